# CPack: the Debian packages that installer/package builds (cpack -G DEB):
#   actorscope          the program (install component "program"): /usr/bin/actorscope, its desktop
#                       entry, AppStream metainfo, hicolor icon and man page
#   libactorscope-dev   headers, the static libraries, the CMake package and the pkg-config files
#                       (install component "dev")
# The program links the libraries statically, so the two packages do not depend on each other.
set(CPACK_PACKAGE_NAME actorscope)
set(CPACK_PACKAGE_VENDOR "Actorscope developers")
set(CPACK_PACKAGE_CONTACT "Actorscope developers <dev@actorscope.invalid>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# An empty CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it above each package's own synopsis
# (the first line of CPACK_DEBIAN_<COMPONENT>_DESCRIPTION). In the descriptions, a blank line is a
# " ." paragraph break, and lines must not start with a space (that would make them verbatim).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_PACKAGE_INSTALL_DIRECTORY actorscope)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL program dev)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The packaging revision: 0.2.0-1.
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

# The program: its shared-library dependencies (Qt 6, SQLite, the C++ runtime) come from
# dpkg-shlibdeps; the Qt platform plugins (xcb, wayland) and SVG support are loaded at run time.
set(CPACK_DEBIAN_PROGRAM_PACKAGE_NAME actorscope)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_RECOMMENDS "qt6-qpa-plugins, qt6-svg-plugins, sqlite3")
set(CPACK_DEBIAN_PROGRAM_DESCRIPTION
"observatory and command-line tool for the Actorscope actor engine
Actorscope is an actor engine for C++20 in the Erlang/OTP tradition:
actors with typed mailboxes, supervision trees, a name registry, process
groups, timers and RPC, on a runtime chosen at run time (a Boost.Asio thread
pool or Qt event loops).

This package contains the actorscope program: a Qt 6 desktop observatory
that shows an actor system running live, replays and compares recordings
(SQLite files), and a command-line tool that records, inspects, exports and
benchmarks.")

# The development files: what a program that uses the engine needs to build.
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libactorscope-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libboost-dev (>= ${ACTORSCOPE_BOOST_MIN}) | libboost1.81-dev, qt6-base-dev, libsqlite3-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "cmake (>= 3.25), pkgconf | pkg-config, actorscope")
set(CPACK_DEBIAN_DEV_DESCRIPTION
"actor engine for C++20 - development files
Actorscope is an actor engine for C++20 in the Erlang/OTP tradition:
actors with typed mailboxes, supervision trees, a name registry, process
groups, timers and RPC, on a runtime chosen at run time (a Boost.Asio thread
pool or Qt event loops).

This package contains the headers and static libraries of the engine
(actorscope::engine), its Qt runtime (actorscope::runtime_qt) and its SQLite
recorder (actorscope::storage), with a CMake package
(find_package(Actorscope)) and pkg-config files.")

include(CPack)
