# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `cmake --install`: what an embedder or a user needs under a prefix, laid out as the build tree.
#   bin/wasinn, bin/wasinn-load-check, bin/wasinn-oip  RUNPATH $ORIGIN/../<libdir>
#   <libdir>/libwasinn.so.<major> (+ links)      RUNPATH $ORIGIN; exports the public API only
#   <libdir>/libwasinn_wasmtime.so               Wasmtime (C API + typed wasi:nn imports), which libwasinn needs
#   <libdir>/wasinn/backends/*.so + *.json       plugins (installed by wasinn_add_backend)
#   <libdir>/cmake/wasinn/                       find_package(wasinn): target wasinn::wasinn
#   <libdir>/pkgconfig/wasinn.pc                 pkg-config --cflags --libs wasinn
#   include/wasinn/                              host.h, host_options.h, server.h, request_record.h,
#                                                limits.h, version.h, wasinn.h, plugin SDK
#   share/man/man1/wasinn.1                      when help2man made it
# Frameworks are not copied: plugins keep an absolute RUNPATH to them (docs/embedding.md).
include(CMakePackageConfigHelpers)

file(RELATIVE_PATH _wasinn_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set(_wasinn_programs wasinn_cli wasinn_load_check)
if(TARGET wasinn_oip_cli)
  list(APPEND _wasinn_programs wasinn_oip_cli)
endif()
set_target_properties(${_wasinn_programs} PROPERTIES INSTALL_RPATH "$ORIGIN/${_wasinn_bin_to_lib}")

install(TARGETS ${_wasinn_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS wasinn EXPORT wasinnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
# wasinn's own Wasmtime build (scripts/build-engine.sh), SONAME libwasinn_wasmtime.so.
install(FILES ${WASINN_ENGINE_LIB} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)

# Public headers only: none includes spdlog, fmt or nlohmann (plugin_sdk/json_config.hpp, which
# needs nlohmann_json, stays in the source tree for the plugins built here).
install(FILES
  ${CMAKE_SOURCE_DIR}/include/wasinn/host.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/host_options.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/server.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/limits.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/request_record.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/wasinn.h
  ${CMAKE_BINARY_DIR}/include/wasinn/version.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/backend_plugin.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/plugin_thread_limit.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/available_cpus.h
  ${CMAKE_SOURCE_DIR}/include/wasinn/plugin_sdk.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wasinn COMPONENT dev)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/wasinn/plugin_sdk/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wasinn/plugin_sdk COMPONENT dev
  PATTERN json_config.hpp EXCLUDE)

# The installed package's files are made under build/install-files/ (they name paths relative to
# the prefix); build/cmake/ and build/pkgconfig/ hold the build tree's own (below).
set(_wasinn_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/wasinn)
set(_wasinn_install_files ${CMAKE_BINARY_DIR}/install-files)
install(EXPORT wasinnTargets NAMESPACE wasinn:: DESTINATION ${_wasinn_cmake_dir} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/wasinnConfig.cmake.in
  ${_wasinn_install_files}/wasinnConfig.cmake INSTALL_DESTINATION ${_wasinn_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR WASINN_INSTALL_BACKENDDIR)
# 0.x: a new minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/wasinnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${_wasinn_install_files}/wasinnConfig.cmake ${CMAKE_BINARY_DIR}/cmake/wasinnConfigVersion.cmake
  DESTINATION ${_wasinn_cmake_dir} COMPONENT dev)

file(RELATIVE_PATH WASINN_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" WASINN_PC_TO_PREFIX "${WASINN_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/wasinn.pc.in ${_wasinn_install_files}/wasinn.pc @ONLY)
install(FILES ${_wasinn_install_files}/wasinn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The build tree is a package too, used in place: `cmake -DCMAKE_PREFIX_PATH=build` finds
# build/cmake/wasinnConfig.cmake, and PKG_CONFIG_PATH=build/pkgconfig finds wasinn.pc, both
# naming the build's libwasinn (build/lib, beside its plugins) and the headers where they are.
export(EXPORT wasinnTargets NAMESPACE wasinn:: FILE ${CMAKE_BINARY_DIR}/cmake/wasinnTargets.cmake)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/cmake/wasinnConfig.cmake @ONLY CONTENT
"# find_package(wasinn) in the build tree @CMAKE_BINARY_DIR@ (the installed package: cmake --install).
include(\"\${CMAKE_CURRENT_LIST_DIR}/wasinnTargets.cmake\")
set(wasinn_INCLUDE_DIR \"@CMAKE_SOURCE_DIR@/include\")
set(wasinn_BACKEND_DIR \"@WASINN_BACKEND_DIR@\")
")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/pkgconfig/wasinn.pc @ONLY CONTENT
"# pkg-config for the build tree @CMAKE_BINARY_DIR@ (the installed wasinn.pc: cmake --install).
libdir=@CMAKE_BINARY_DIR@/lib
includedir=@CMAKE_SOURCE_DIR@/include
backenddir=@WASINN_BACKEND_DIR@

Name: wasinn
Description: Run WebAssembly programs whose wasi-nn calls native inference frameworks serve (build tree)
Version: @PROJECT_VERSION@
Libs: -L\${libdir} -lwasinn
Cflags: -I\${includedir} -I@CMAKE_BINARY_DIR@/include
")

if(TARGET wasinn_man)
  install(FILES ${CMAKE_BINARY_DIR}/share/man/man1/wasinn.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT runtime OPTIONAL)
endif()
