# wasinn_add_backend(NAME <name> ENCODINGS <enc>... SOURCES <src>... [LIBS <target>...])
# Builds one backend plugin as lib/wasinn/backends/libwasinn_backend_<name>.so and writes the
# manifest <name>.json beside it, which the host reads at start without loading the library.
function(wasinn_add_backend)
  cmake_parse_arguments(B "" "NAME" "ENCODINGS;SOURCES;LIBS" ${ARGN})
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
  file(WRITE ${WASINN_BACKEND_DIR}/${B_NAME}.json
    "{\n  \"name\": \"${B_NAME}\",\n  \"abi_version\": 1,\n  \"library\": \"lib${target}.so\",\n  \"encodings\": [${enc_json}]\n}\n")
endfunction()
