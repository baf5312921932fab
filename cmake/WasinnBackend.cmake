# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ["a", "b"] from the list a;b (names only: nothing is escaped).
function(wasinn_json_string_array out)
  set(items ${ARGN})
  list(TRANSFORM items PREPEND "\"")
  list(TRANSFORM items APPEND "\"")
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# wasinn_add_backend(NAME <name> ENCODINGS <enc>... SOURCES <src>... [LIBS <target>...]
#                    [FRAMEWORK_LIB_DIR <dir>] [INCLUDES <dir>...] [DEFINITIONS <def>...]
#                    [ISOLATE_LOAD] [CONFIG_KEYS [<key>...]] FRAMEWORK "<name> <version>")
# Builds one backend plugin as lib/wasinn/backends/libwasinn_backend_<name>.so and writes the
# manifest <name>.json beside it, which the host reads at start without loading the library.
# What every plugin shares is set here once: C++20, the plugin ABI and SDK headers (and
# nlohmann_json, which the SDK's config readers use), hidden visibility, the plugin's own folder
# on the include path, and -z defs, so that an unresolved symbol fails the link rather than the
# first dlopen in front of a user (not under WASINN_SANITIZE: sanitizer runtimes resolve at load).
# FRAMEWORK_LIB_DIR: where the framework's libraries live outside the build and install trees
# (.deps/); it goes into the plugin's RUNPATH, after lib/ (two levels up from
# lib/wasinn/backends/, where a packaged install would put them). `cmake --install` installs
# the plugin and its manifest under ${WASINN_INSTALL_BACKENDDIR}.
# ISOLATE_LOAD ("isolate_load": true): the framework is known to crash on some malformed
# models, so with --isolate-loads=auto the host checks each load in a child process first.
# INPUTS_SIZED_BY_DATA ("inputs_sized_by_data": true): an input's data length alone counts, not
# its dims (WasmEdge's GGML and whisper guests); TEXT_MODEL ("text_model": true): its graphs are
# text models, which wasinn:nn-ext's prompt serves. The core's rules ask these, never an encoding.
# FRAMEWORK ("framework": "..."): the framework and version the plugin is built against, shown by
# `wasinn --version` (global property WASINN_BUILT_WITH) and `wasinn backends`.
# CONFIG_KEYS ("config_keys": [...]): the keys the backend's config (--backend-config NAME=JSON)
# takes, so that `wasinn` refuses an unknown one at start and `wasinn backends` lists them
# without loading the plugin. CONFIG_KEYS with no key: the backend takes none. Left out: the
# manifest does not say, and the host checks nothing.
function(wasinn_add_backend)
  cmake_parse_arguments(B "ISOLATE_LOAD;INPUTS_SIZED_BY_DATA;TEXT_MODEL" "NAME;FRAMEWORK_LIB_DIR;FRAMEWORK"
                        "ENCODINGS;SOURCES;LIBS;INCLUDES;DEFINITIONS;CONFIG_KEYS" ${ARGN})
  if(NOT B_FRAMEWORK)
    message(FATAL_ERROR "wasinn_add_backend(${B_NAME}): FRAMEWORK \"<name> <version>\" is required")
  endif()
  set_property(GLOBAL APPEND PROPERTY WASINN_BUILT_WITH "${B_NAME}: ${B_FRAMEWORK}")
  set(target wasinn_backend_${B_NAME})
  add_library(${target} MODULE ${B_SOURCES})
  add_dependencies(product ${target})
  target_link_libraries(${target} PRIVATE wasinn_plugin_abi nlohmann_json::nlohmann_json ${B_LIBS})
  target_compile_features(${target} PRIVATE cxx_std_20)
  # backends/shared: the libraries the plugins share (plugin_common's headers, included by path).
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/backends/shared ${B_INCLUDES})
  if(B_DEFINITIONS)
    target_compile_definitions(${target} PRIVATE ${B_DEFINITIONS})
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${WASINN_BACKEND_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    BUILD_RPATH_USE_ORIGIN ON)
  # Installed, a plugin keeps an absolute RUNPATH to its framework where it was built (the real
  # path, not the .deps symlink; docs/embedding.md says why frameworks are not copied).
  # INSTALL_RPATH_USE_LINK_PATH adds the directories of the other libraries it links.
  set_target_properties(${target} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  if(B_FRAMEWORK_LIB_DIR)
    file(REAL_PATH ${B_FRAMEWORK_LIB_DIR} framework_lib_dir)
    set_target_properties(${target} PROPERTIES
      BUILD_RPATH "${B_FRAMEWORK_LIB_DIR}"
      INSTALL_RPATH "$ORIGIN/../..;${framework_lib_dir}")
  else()
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/../..")
  endif()
  # A sanitized plugin leaves the sanitizer runtime's symbols to the executable.
  if(NOT WASINN_SANITIZE AND NOT WASINN_TSAN)
    target_link_options(${target} PRIVATE -Wl,-z,defs)
  endif()
  wasinn_json_string_array(enc_json ${B_ENCODINGS})
  set(keys_json "")
  if(DEFINED B_CONFIG_KEYS OR "CONFIG_KEYS" IN_LIST B_KEYWORDS_MISSING_VALUES)
    wasinn_json_string_array(keys_list ${B_CONFIG_KEYS})
    set(keys_json ",\n  \"config_keys\": ${keys_list}")
  endif()
  foreach(flag ISOLATE_LOAD INPUTS_SIZED_BY_DATA TEXT_MODEL)
    if(B_${flag})
      set(${flag}_json "true")
    else()
      set(${flag}_json "false")
    endif()
  endforeach()
  file(WRITE ${WASINN_BACKEND_DIR}/${B_NAME}.json
    "{\n  \"name\": \"${B_NAME}\",\n  \"abi_version\": 1,\n  \"library\": \"lib${target}.so\",\n  \"encodings\": ${enc_json},\n  \"framework\": \"${B_FRAMEWORK}\",\n  \"isolate_load\": ${ISOLATE_LOAD_json},\n  \"inputs_sized_by_data\": ${INPUTS_SIZED_BY_DATA_json},\n  \"text_model\": ${TEXT_MODEL_json}${keys_json}\n}\n")
  # Installed as the build lays it out. OPTIONAL, and the manifest only beside its plugin: a
  # build that skipped a plugin's target installs the others.
  install(TARGETS ${target} LIBRARY DESTINATION ${WASINN_INSTALL_BACKENDDIR} COMPONENT runtime OPTIONAL)
  install(CODE "if(EXISTS \"$<TARGET_FILE:${target}>\")
      file(INSTALL \"${WASINN_BACKEND_DIR}/${B_NAME}.json\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${WASINN_INSTALL_BACKENDDIR}\")
    endif()" COMPONENT runtime)
endfunction()
