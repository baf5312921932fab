# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# install.embed_example: installs the build into a scratch prefix (nothing else is copied), builds
# examples/embed out of tree against that prefix twice, with find_package(wasinn) and with
# pkg-config, and runs both programs from a directory outside the build tree: four host threads
# each running classify_digits three times on one shared, preloaded model must all classify 435
# of the 450 held-out digits (the digits test's known answer), with the ONNX Runtime plugin found
# beside the installed libwasinn and the model loaded once, as the log callback reports. The
# installed `wasinn` must find its plugins too.
# With -DIN_BUILD_TREE=ON (install.embed_build_tree) nothing is installed: the example is built
# against the build tree itself (CMAKE_PREFIX_PATH=BUILD_DIR, PKG_CONFIG_PATH=BUILD_DIR/pkgconfig),
# as a developer embeds a wasinn they just built.
# -DBUILD_DIR= -DEXAMPLE_DIR= -DGUEST= -DFIXTURES= -DGENERATOR= -DC_COMPILER= [-DIN_BUILD_TREE=ON]
if(DEFINED ENV{WASINN_FIXTURES})
  set(FIXTURES $ENV{WASINN_FIXTURES})
endif()
foreach(input ${GUEST} ${FIXTURES}/digits/model.onnx)
  if(NOT EXISTS ${input})
    message(FATAL_ERROR "missing ${input} (build the guests; fixtures: scripts/make_fixtures.py)")
  endif()
endforeach()

# Outside the build tree, so nothing can be found there by accident.
execute_process(COMMAND mktemp -d /tmp/wasinn-install-test.XXXXXX OUTPUT_VARIABLE scratch
                OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
set(prefix ${scratch}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}); scratch kept in ${scratch}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

# The plugins must be found from the installed layout, not from an environment variable.
set(clean_env ${CMAKE_COMMAND} -E env --unset=WASINN_BACKEND_PATH --unset=WASINN_LOAD_CHECK)

if(IN_BUILD_TREE)
  set(prefix ${BUILD_DIR})
  set(pkgconfig_dir ${BUILD_DIR}/pkgconfig)
else()
  set(pkgconfig_dir ${prefix}/lib/pkgconfig)
  run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
  foreach(header host.h limits.h version.h wasinn.h)
    file(READ ${prefix}/include/wasinn/${header} text)
    if(text MATCHES "#include <(spdlog|fmt|nlohmann)")
      message(FATAL_ERROR "installed ${header} includes ${CMAKE_MATCH_1}")
    endif()
  endforeach()

  run("installed wasinn backends" ${clean_env} ${prefix}/bin/wasinn backends)
  if(NOT run_out MATCHES "onnxruntime")
    message(FATAL_ERROR "the installed wasinn does not list the onnxruntime plugin:\n${run_out}")
  endif()
endif()

run("configure examples/embed with find_package"
    ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${scratch}/build-cmake -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
run("build examples/embed with find_package" ${CMAKE_COMMAND} --build ${scratch}/build-cmake)
file(MAKE_DIRECTORY ${scratch}/build-pkgconfig)
run("build examples/embed with pkg-config"
    ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pkgconfig_dir} CC=${C_COMPILER}
    make -C ${scratch}/build-pkgconfig -f ${EXAMPLE_DIR}/Makefile SRCDIR=${EXAMPLE_DIR})

# Run from a directory of their own, with copies of the programs there: no build-tree path helps.
file(MAKE_DIRECTORY ${scratch}/run)
file(COPY ${scratch}/build-cmake/embed_digits DESTINATION ${scratch}/run/cmake)
file(COPY ${scratch}/build-pkgconfig/embed_digits DESTINATION ${scratch}/run/pkgconfig)
# The pkg-config build checks every load in wasinn-load-check, which libwasinn must find in the
# prefix's bin/ (a fresh verdict cache, so the check really runs).
set(isolate_cmake auto)
set(isolate_pkgconfig always)
foreach(how cmake pkgconfig)
  execute_process(COMMAND ${clean_env} XDG_CACHE_HOME=${scratch}/cache
                          ${scratch}/run/${how}/embed_digits ${GUEST} ${FIXTURES}/digits 4 3 ${isolate_${how}}
                  WORKING_DIRECTORY ${scratch}/run RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "embed_digits (${how}):\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "embed_digits built with ${how} failed (${rc}); scratch kept in ${scratch}")
  endif()
  if(NOT out MATCHES "backend onnxruntime \\(onnx\\): found")
    message(FATAL_ERROR "embed_digits (${how}) did not find the installed onnxruntime plugin")
  endif()
  if(NOT out MATCHES "4 threads x 3 runs, every run: accuracy: 435/450 = 96.67%")
    message(FATAL_ERROR "embed_digits (${how}) did not report 435/450 in every run")
  endif()
  # One load of the shared model for all 12 runs, reported through the log callback, not stderr.
  if(NOT out MATCHES "model loads logged: 1\n")
    message(FATAL_ERROR "embed_digits (${how}): the log callback did not see exactly one model load")
  endif()
  if(err MATCHES "wasinn: ")
    message(FATAL_ERROR "embed_digits (${how}): wasinn logged to stderr despite the log callback")
  endif()
endforeach()
file(REMOVE_RECURSE ${scratch})
