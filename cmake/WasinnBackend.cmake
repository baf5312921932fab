# wasinn_add_backend(NAME <name> ENCODINGS <enc>... SOURCES <src>... [LIBS <target>...] [ISOLATE_LOAD])
# Builds one backend plugin as lib/wasinn/backends/libwasinn_backend_<name>.so and writes the
# manifest <name>.json beside it, which the host reads at start without loading the library.
# ISOLATE_LOAD ("isolate_load": true): the framework is known to crash on some malformed
# models, so with --isolate-loads=auto the host checks each load in a child process first.
function(wasinn_add_backend)
  cmake_parse_arguments(B "ISOLATE_LOAD" "NAME" "ENCODINGS;SOURCES;LIBS" ${ARGN})
  set(target wasinn_backend_${B_NAME})
  add_library(${target} MODULE ${B_SOURCES})
  target_link_libraries(${target} PRIVATE wasinn_plugin_abi ${B_LIBS})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${WASINN_BACKEND_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    BUILD_RPATH_USE_ORIGIN ON)
  set(enc_json "")
  foreach(e ${B_ENCODINGS})
    if(enc_json)
      string(APPEND enc_json ", ")
    endif()
    string(APPEND enc_json "\"${e}\"")
  endforeach()
  if(B_ISOLATE_LOAD)
    set(isolate_json "true")
  else()
    set(isolate_json "false")
  endif()
  file(WRITE ${WASINN_BACKEND_DIR}/${B_NAME}.json
    "{\n  \"name\": \"${B_NAME}\",\n  \"abi_version\": 1,\n  \"library\": \"lib${target}.so\",\n  \"encodings\": [${enc_json}],\n  \"isolate_load\": ${isolate_json}\n}\n")
endfunction()
