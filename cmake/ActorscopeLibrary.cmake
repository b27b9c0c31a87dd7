# actorscope_library(TARGET): the properties an installed Actorscope library shares. A shared build
# gets the SONAME (VERSION/SOVERSION) and exports only the actorscope:: namespace
# (cmake/actorscope.map), so the Boost.Asio, SQLite glue and standard-library code inside stays
# private to the library.
function(actorscope_library target)
  set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${ACTORSCOPE_SOVERSION})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "SHARED_LIBRARY")
    set(map "${PROJECT_SOURCE_DIR}/cmake/actorscope.map")
    target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
  endif()
endfunction()
