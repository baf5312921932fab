# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# wasinn_add_guest(NAME <name> SOURCES <src>... [FLAGS <flag>...])
# Compiles a C guest to wasm32-wasi with Debian's clang into ${WASINN_GUEST_DIR}/<name>.wasm.
find_program(WASM_CLANG NAMES clang-14 clang REQUIRED)
set(WASINN_GUEST_DIR ${CMAKE_BINARY_DIR}/guests)
file(MAKE_DIRECTORY ${WASINN_GUEST_DIR})
add_custom_target(guests ALL)

function(wasinn_add_guest)
  cmake_parse_arguments(G "" "NAME" "SOURCES;FLAGS" ${ARGN})
  set(out ${WASINN_GUEST_DIR}/${G_NAME}.wasm)
  set(srcs "")
  set(local_headers "")
  foreach(s ${G_SOURCES})
    list(APPEND srcs ${CMAKE_CURRENT_SOURCE_DIR}/${s})
    # Headers beside a source (run_model_io.h) are inputs too, or editing one rebuilds nothing.
    get_filename_component(src_dir ${CMAKE_CURRENT_SOURCE_DIR}/${s} DIRECTORY)
    file(GLOB beside ${src_dir}/*.h)
    list(APPEND local_headers ${beside})
  endforeach()
  if(local_headers)
    list(REMOVE_DUPLICATES local_headers)
  endif()
  file(GLOB guest_headers ${CMAKE_SOURCE_DIR}/guest/include/*.h)
  add_custom_command(OUTPUT ${out}
    COMMAND ${WASM_CLANG} --target=wasm32-wasi -O2 -Wall -Wextra
            -I${CMAKE_SOURCE_DIR}/guest/include ${G_FLAGS} ${srcs} -o ${out}
    DEPENDS ${srcs} ${guest_headers} ${local_headers}
    COMMENT "guest ${G_NAME}.wasm"
    VERBATIM)
  add_custom_target(guest_${G_NAME} DEPENDS ${out})
  add_dependencies(guests guest_${G_NAME})
endfunction()
