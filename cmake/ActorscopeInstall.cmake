# The CMake package (ActorscopeConfig.cmake, its version file, one targets file per component) and
# the pkg-config files. The targets' own install() rules are beside them (engine/, engine/runtime/qt/,
# storage/, app/); this file only ties them into a package. Included by the top-level CMakeLists.txt
# after every target exists. Installed under the "dev" install component (libactorscope-dev).
include(CMakePackageConfigHelpers)

set(ACTORSCOPE_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Actorscope" CACHE STRING
    "Where ActorscopeConfig.cmake is installed (relative to the prefix)")
mark_as_advanced(ACTORSCOPE_CMAKE_DIR)

install(EXPORT ActorscopeEngineTargets NAMESPACE actorscope:: DESTINATION "${ACTORSCOPE_CMAKE_DIR}" COMPONENT dev)
if(TARGET actorscope_runtime_qt)
  install(EXPORT ActorscopeRuntimeQtTargets NAMESPACE actorscope:: DESTINATION "${ACTORSCOPE_CMAKE_DIR}" COMPONENT dev)
endif()
if(TARGET actorscope_storage)
  install(EXPORT ActorscopeStorageTargets NAMESPACE actorscope:: DESTINATION "${ACTORSCOPE_CMAKE_DIR}" COMPONENT dev)
endif()

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/ActorscopeConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/ActorscopeConfig.cmake"
  INSTALL_DESTINATION "${ACTORSCOPE_CMAKE_DIR}")
# 0.x: a new minor version may break the API, so 0.2 accepts 0.2.y only (SameMinorVersion); from 1.0
# on, the same major version.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_compatibility SameMinorVersion)
else()
  set(_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/package/ActorscopeConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY ${_compatibility})
install(FILES
  "${PROJECT_BINARY_DIR}/package/ActorscopeConfig.cmake"
  "${PROJECT_BINARY_DIR}/package/ActorscopeConfigVersion.cmake"
  DESTINATION "${ACTORSCOPE_CMAKE_DIR}" COMPONENT dev)

# pkg-config: actorscope (engine), actorscope-qt, actorscope-storage. Their prefix is found from the
# .pc file's own place (${pcfiledir}), so an installed tree can be moved (cmake --install --prefix).
set(_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH ACTORSCOPE_PC_TO_PREFIX "/prefix/${_pc_dir}" "/prefix")
string(REGEX REPLACE "/$" "" ACTORSCOPE_PC_TO_PREFIX "${ACTORSCOPE_PC_TO_PREFIX}")
if(ACTORSCOPE_WITH_OBSERVE)
  set(ACTORSCOPE_OBSERVE_VALUE 1)
else()
  set(ACTORSCOPE_OBSERVE_VALUE 0)
endif()
# Static libraries need their dependencies named in Libs/Requires; shared ones carry them (.private).
if(BUILD_SHARED_LIBS)
  set(ACTORSCOPE_PC_THREADS_PUBLIC "")
  set(ACTORSCOPE_PC_THREADS_PRIVATE "-pthread")
  set(ACTORSCOPE_PC_SQLITE_FIELD "Requires.private")
else()
  set(ACTORSCOPE_PC_THREADS_PUBLIC "-pthread")
  set(ACTORSCOPE_PC_THREADS_PRIVATE "")
  set(ACTORSCOPE_PC_SQLITE_FIELD "Requires")
endif()
set(_pc_files actorscope)
if(TARGET actorscope_runtime_qt)
  list(APPEND _pc_files actorscope-qt)
endif()
if(TARGET actorscope_storage)
  list(APPEND _pc_files actorscope-storage)
endif()
foreach(_pc IN LISTS _pc_files)
  configure_file("${CMAKE_CURRENT_LIST_DIR}/${_pc}.pc.in" "${PROJECT_BINARY_DIR}/package/${_pc}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/package/${_pc}.pc" DESTINATION "${_pc_dir}" COMPONENT dev)
endforeach()
