# Install rules: headers, the shared library, a CMake package (find_package(ndksim CONFIG)
# -> ndksim::ndksim) and a pkg-config file.
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
configure_file(${PROJECT_SOURCE_DIR}/cmake/ndksim.pc.in ${PROJECT_BINARY_DIR}/ndksim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ndksim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
