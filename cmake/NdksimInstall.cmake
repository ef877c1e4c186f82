# SPDX-License-Identifier: MIT
# Install rules: headers, the shared library, a CMake package (find_package(ndksim CONFIG)
# -> ndksim::ndksim, COMPONENTS testkit -> ndksim::testkit), a pkg-config file, the licence
# and the change log. The tools install their own rules (sim/), with a RUNPATH that finds the
# library from the prefix. Every file is placed relative to the prefix, so an installed tree
# or an extracted package works wherever it lies.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ndksim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ndksim ndksim_headers EXPORT ndksimTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(ndksim_headers PROPERTIES EXPORT_NAME headers)
install(EXPORT ndksimTargets NAMESPACE ndksim::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ndksim)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ndksimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ndksimConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ndksim)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ndksimConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ndksimConfig.cmake
              ${PROJECT_BINARY_DIR}/ndksimConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/NdksimKernelConsumer.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ndksim)

# pkg-config: the prefix is found from the .pc file's own place (${pcfiledir}), not written in.
file(RELATIVE_PATH NDKSIM_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
     "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" NDKSIM_PC_TO_PREFIX "${NDKSIM_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ndksim.pc.in ${PROJECT_BINARY_DIR}/ndksim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ndksim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# A Debian package of everything above (cpack -G DEB, or the `package` target). Its runtime
# dependencies come from dpkg-shlibdeps, which reads the libraries the binaries link.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ndksim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the ndksim authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Runs and tests Windows NDK (NDKPI) consumer code - kernel-mode storage, SMB-Direct-like and
RPC transports - on Linux in user mode, without RDMA hardware: the NDKPI surface in front of a
software RDMA NIC on simulated time, RoCEv2 frames over UDP or TCP between processes, a
user-mode kernel runtime for driver sources, a GoogleTest kit, and the tools ndksim-loopback
and ndksim-perf.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(NDKSIM_DEB_MAINTAINER "the ndksim authors" CACHE STRING
    "Maintainer field of the Debian package (Name <email>)")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${NDKSIM_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# What building against the package needs beyond its own files: GoogleTest for
# ndksim::testkit, and a build system that reads the CMake or pkg-config files.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libgtest-dev, cmake, pkg-config")
include(CPack)
