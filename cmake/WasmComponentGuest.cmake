# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# wasinn_add_component_guest(NAME <name> SOURCES <src>... WIT <version> KIND command|library|http|pipeline
#                            [WORLD <world>] [FLAGS <flag>...] [OWN_CABI_REALLOC] [EXT])
# Compiles a C guest with Debian's clang to a core module and makes it a component with
# scripts/componentize.mjs (jco 1.35.0's wasm-tools, installed by scripts/deps/jco.sh) into
# ${WASINN_GUEST_DIR}/<name>.component.wasm (the core module stays beside it as
# <name>.core.wasm).
#   WIT     wasi:nn version: a directory of wit/wasi-nn (0.2.0-rc-2024-10-28, -08-19, -06-25);
#           the guest gets -DWASI_NN_WIT_2024_MM_DD for it (wasi_nn_wit_legacy.h selects by it).
#   KIND    command: a WASI preview1 command (main, stdio, files) that the preview1 command
#           adapter turns into a WASI 0.2 command component; the world is the wasi:nn imports.
#           library: a reactor with no WASI imports at all; the world is the wasi:nn imports and
#           an export `run: func() -> s32`.
#           http: a reactor with no WASI preview1 imports for the wasi:http/proxy world
#           (guest-http in worlds_http.wit: it exports wasi:http/incoming-handler@0.2.12 and
#           imports wasi:nn); links http_guest.c (guest/include/wasi_http.h has the imports).
#           Needs Wasmtime's wasi:http WIT (WASINN_WASI_HTTP_WIT_DIR); without it the guest is
#           skipped (WASINN_HAVE_HTTP_GUESTS OFF).
#           pipeline: a reactor with no WASI imports for wasinn:pipeline's world `pipeline`
#           (wit/wasinn-pipeline: it exports wasinn:pipeline/model and imports wasi:nn; guest/
#           include/wasinn_pipeline.h has the exports' layouts), WIT 0.2.0-rc-2024-10-28 only.
#   WORLD   a world of guest/components/worlds.wit or of the version's WIT (default guest-<KIND>).
#   EXT     the guest imports wasinn:nn-ext@0.1.0 too (wit/wasinn-nn-ext; guest/include/
#           wasinn_nn_ext_wit.h), KIND command or http and WIT 0.2.0-rc-2024-10-28 only: the world
#           is guest-command-ext of guest/components/worlds_ext.wit (http: guest-http-ext of
#           worlds_http_ext.wit, with wasi:http's packages too), a package of its own with both
#           packages nested after it (nn-ext uses wasi:nn's types, so its world cannot be one of
#           the wasi:nn package's as worlds.wit's are).
#   STDIO   (KIND http) the core module may use libc's stdio (C++ guests: libc++ writes to stderr
#           on abort): jco's preview1 reactor adapter turns those calls into WASI 0.2 ones.
# Every guest links guest/components/cabi_realloc.c, unless OWN_CABI_REALLOC says it has its own.
# Without node or jco (or with -DWASINN_COMPONENT_GUESTS=OFF) the guests are skipped with a
# STATUS message, and WASINN_HAVE_COMPONENT_GUESTS is OFF (tests that need them check it).
option(WASINN_COMPONENT_GUESTS "build the component guests (guest/components) when node and jco are there" ON)
find_program(WASINN_NODE NAMES node nodejs DOC "Node.js, which runs jco for the component guests")
set(WASINN_JCO_VERSION 1.35.0)
set(WASINN_JCO_DIR ${WASINN_DEPS_DIR}/jco-${WASINN_JCO_VERSION} CACHE PATH
    "prefix where scripts/deps/jco.sh installed @bytecodealliance/jco")
set(WASINN_WIT_DIR ${CMAKE_SOURCE_DIR}/wit/wasi-nn)
set(WASINN_COMPONENTIZE ${CMAKE_SOURCE_DIR}/scripts/componentize.mjs)

set(WASINN_HAVE_COMPONENT_GUESTS OFF)
if(NOT WASINN_COMPONENT_GUESTS)
  message(STATUS "Component guests skipped: WASINN_COMPONENT_GUESTS is OFF")
elseif(NOT WASINN_NODE)
  message(STATUS "Component guests skipped: node is not installed")
elseif(NOT EXISTS ${WASINN_JCO_DIR}/.version)
  message(STATUS "Component guests skipped: jco is not in ${WASINN_JCO_DIR} (run scripts/fetch-deps.sh jco)")
else()
  set(WASINN_HAVE_COMPONENT_GUESTS ON)
  message(STATUS "Component guests: jco ${WASINN_JCO_VERSION} in ${WASINN_JCO_DIR}")
endif()

# wasi:http's WIT for the HTTP guests: not kept here but taken from the crate the engine build
# fetches (wasmtime-wasi-http, at the version src/Cargo.toml pins), in the cargo
# home scripts/build-engine.sh uses (or ~/.cargo). -DWASINN_WASI_HTTP_WIT_DIR=DIR overrides: a
# directory with deps/http.wit, deps/io.wit, ... (one package a file).
set(WASINN_HAVE_HTTP_GUESTS OFF)
if(WASINN_HAVE_COMPONENT_GUESTS)
  wasinn_pinned_crate_version(_wasi_http_version wasmtime-wasi-http)
  # A path of another version's crate in a registry was found here by an earlier configure, before
  # the pin moved (a user's own directory has no such shape): looked up again, not kept stale.
  if(WASINN_WASI_HTTP_WIT_DIR MATCHES "/registry/src/[^/]+/wasmtime-wasi-http-[^/]+/wit$"
     AND NOT WASINN_WASI_HTTP_WIT_DIR MATCHES "/wasmtime-wasi-http-${_wasi_http_version}/wit$")
    message(STATUS "wasi:http WIT: ${WASINN_WASI_HTTP_WIT_DIR} is not wasmtime-wasi-http ${_wasi_http_version}'s; looking again")
    unset(WASINN_WASI_HTTP_WIT_DIR CACHE)
  endif()
  if(NOT DEFINED CACHE{WASINN_WASI_HTTP_WIT_DIR} OR NOT WASINN_WASI_HTTP_WIT_DIR)
    set(_cargo_homes "")
    if(DEFINED ENV{WASINN_CARGO_HOME})
      list(APPEND _cargo_homes $ENV{WASINN_CARGO_HOME})
    endif()
    if(DEFINED ENV{WASINN_CACHE})
      list(APPEND _cargo_homes $ENV{WASINN_CACHE}/engine/cargo-home)
    endif()
    list(APPEND _cargo_homes $ENV{HOME}/.cache/wasinn/engine/cargo-home $ENV{HOME}/.cargo)
    set(_found "")
    foreach(home ${_cargo_homes})
      file(GLOB _candidates ${home}/registry/src/*/wasmtime-wasi-http-${_wasi_http_version}/wit/deps/http.wit)
      if(_candidates)
        list(GET _candidates 0 _first)
        get_filename_component(_found ${_first} DIRECTORY)
        get_filename_component(_found ${_found} DIRECTORY)
        break()
      endif()
    endforeach()
    # Cached only once found, so a later configure (after the engine's cargo fetch) finds it.
    if(_found)
      set(WASINN_WASI_HTTP_WIT_DIR ${_found} CACHE PATH "wasi:http WIT (a directory with deps/http.wit) for the HTTP component guests")
    endif()
  endif()
  if(WASINN_WASI_HTTP_WIT_DIR AND NOT EXISTS ${WASINN_WASI_HTTP_WIT_DIR}/deps/http.wit)
    message(STATUS "HTTP component guests skipped: WASINN_WASI_HTTP_WIT_DIR=${WASINN_WASI_HTTP_WIT_DIR} has no deps/http.wit")
  elseif(NOT WASINN_WASI_HTTP_WIT_DIR)
    message(STATUS "HTTP component guests skipped: no wasi:http WIT of wasmtime-wasi-http ${_wasi_http_version} in a "
                   "cargo registry (build the engine first, or set -DWASINN_WASI_HTTP_WIT_DIR=DIR with DIR/deps/http.wit)")
  else()
    set(WASINN_HAVE_HTTP_GUESTS ON)
    message(STATUS "HTTP component guests: wasi:http WIT in ${WASINN_WASI_HTTP_WIT_DIR}")
  endif()
endif()

function(wasinn_add_component_guest)
  cmake_parse_arguments(G "OWN_CABI_REALLOC;EXT;STDIO" "NAME;WIT;WORLD;KIND" "SOURCES;FLAGS" ${ARGN})
  if(NOT WASINN_HAVE_COMPONENT_GUESTS)
    return()
  endif()
  foreach(required NAME WIT KIND SOURCES)
    if(NOT G_${required})
      message(FATAL_ERROR "wasinn_add_component_guest: ${required} is required")
    endif()
  endforeach()
  set(wit_file ${WASINN_WIT_DIR}/${G_WIT}/wasi-nn.wit)
  if(NOT EXISTS ${wit_file})
    message(FATAL_ERROR "wasinn_add_component_guest(${G_NAME}): no WIT ${wit_file}")
  endif()
  if(NOT G_WIT MATCHES "([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$")
    message(FATAL_ERROR "wasinn_add_component_guest(${G_NAME}): WIT ${G_WIT} has no date")
  endif()
  set(version_define -DWASI_NN_WIT_${CMAKE_MATCH_1}_${CMAKE_MATCH_2}_${CMAKE_MATCH_3})
  set(components_dir ${CMAKE_SOURCE_DIR}/guest/components)
  set(extra_wit "")
  set(extra_depends "")
  # The WIT: the version's package with the guests' worlds appended, or for EXT a world package
  # of its own with wasi:nn and wasinn:nn-ext nested after it.
  set(wit_args --wit ${wit_file} --wit ${components_dir}/worlds.wit)
  set(wit_depends ${wit_file} ${components_dir}/worlds.wit)
  if(G_EXT)
    if(NOT (G_KIND STREQUAL "command" OR G_KIND STREQUAL "http") OR NOT G_WIT STREQUAL "0.2.0-rc-2024-10-28")
      message(FATAL_ERROR "wasinn_add_component_guest(${G_NAME}): EXT needs KIND command or http and WIT "
                          "0.2.0-rc-2024-10-28")
    endif()
    set(ext_wit ${CMAKE_SOURCE_DIR}/wit/wasinn-nn-ext/nn-ext.wit)
    set(ext_worlds ${components_dir}/worlds_ext.wit)
    if(G_KIND STREQUAL "http")
      set(ext_worlds ${components_dir}/worlds_http_ext.wit)
    endif()
    set(wit_args --wit ${ext_worlds} --wit-deps ${wit_file} --wit-deps ${ext_wit})
    set(wit_depends ${wit_file} ${ext_worlds} ${ext_wit})
    if(NOT G_WORLD)
      set(G_WORLD guest-${G_KIND}-ext)
    endif()
  endif()
  if(G_KIND STREQUAL "pipeline")
    if(NOT G_WIT STREQUAL "0.2.0-rc-2024-10-28")
      message(FATAL_ERROR "wasinn_add_component_guest(${G_NAME}): KIND pipeline needs WIT 0.2.0-rc-2024-10-28")
    endif()
    set(pipeline_wit ${CMAKE_SOURCE_DIR}/wit/wasinn-pipeline/pipeline.wit)
    set(wit_args --wit ${pipeline_wit} --wit-deps ${wit_file})
    set(wit_depends ${wit_file} ${pipeline_wit})
    set(G_WORLD pipeline)
  endif()
  if(NOT G_WORLD)
    set(G_WORLD guest-${G_KIND})
  endif()
  if(G_KIND STREQUAL "command")
    # Our own _start (command_start.c) instead of crt1-command.o: with the latter, wasm-ld 14
    # wraps every other export, cabi_realloc included, in constructor and destructor calls.
    set(kind_flags -nostartfiles)
    set(kind_sources ${components_dir}/command_start.c)
    set(adapter command)
  elseif(G_KIND STREQUAL "library" OR G_KIND STREQUAL "pipeline")
    # A reactor: _initialize (run by the component's start) instead of _start; with no stdio or
    # file use, libc brings in no WASI import (componentize.mjs checks).
    set(kind_flags -mexec-model=reactor)
    set(kind_sources "")
    set(adapter none)
  elseif(G_KIND STREQUAL "http")
    if(NOT WASINN_HAVE_HTTP_GUESTS)
      return()
    endif()
    # A reactor, as library is, plus the HTTP helpers and the WIT of wasi:http and its world.
    set(kind_flags -mexec-model=reactor)
    set(kind_sources ${components_dir}/http_guest.c)
    set(adapter none)
    file(GLOB http_wit_deps ${WASINN_WASI_HTTP_WIT_DIR}/deps/*.wit)
    if(G_EXT)  # the world is worlds_http_ext.wit's, in wit_args
      set(extra_wit --wit-deps ${WASINN_WASI_HTTP_WIT_DIR}/deps)
      set(extra_depends ${http_wit_deps})
    else()
      set(world_file ${components_dir}/worlds_http.wit)
      set(extra_wit --wit ${world_file} --wit-deps ${WASINN_WASI_HTTP_WIT_DIR}/deps)
      set(extra_depends ${world_file} ${http_wit_deps})
    endif()
  else()
    message(FATAL_ERROR "wasinn_add_component_guest(${G_NAME}): KIND must be command, library, http or pipeline")
  endif()
  if(G_STDIO)
    if(NOT G_KIND STREQUAL "http")
      message(FATAL_ERROR "wasinn_add_component_guest(${G_NAME}): STDIO is for KIND http")
    endif()
    set(adapter reactor)
  endif()
  if(NOT G_OWN_CABI_REALLOC)
    list(APPEND kind_sources ${components_dir}/cabi_realloc.c)
  endif()

  set(srcs "")
  foreach(s ${G_SOURCES})
    list(APPEND srcs ${CMAKE_CURRENT_SOURCE_DIR}/${s})
  endforeach()
  file(GLOB guest_headers ${CMAKE_SOURCE_DIR}/guest/include/*.h ${components_dir}/*.h)
  set(core ${WASINN_GUEST_DIR}/${G_NAME}.core.wasm)
  set(out ${WASINN_GUEST_DIR}/${G_NAME}.component.wasm)
  add_custom_command(OUTPUT ${out} BYPRODUCTS ${core}
    COMMAND ${WASM_CLANG} --target=wasm32-wasi -O2 -Wall -Wextra ${kind_flags} ${version_define}
            -I${CMAKE_SOURCE_DIR}/guest/include -I${components_dir} ${G_FLAGS}
            ${srcs} ${kind_sources} -o ${core}
    COMMAND ${WASINN_NODE} ${WASINN_COMPONENTIZE} --jco ${WASINN_JCO_DIR} --core ${core}
            ${wit_args} ${extra_wit} --world ${G_WORLD}
            --adapter ${adapter} --out ${out}
    DEPENDS ${srcs} ${kind_sources} ${guest_headers} ${wit_depends} ${extra_depends}
            ${WASINN_COMPONENTIZE} ${WASINN_JCO_DIR}/.version
    COMMENT "component guest ${G_NAME}.component.wasm (wasi:nn@${G_WIT}, ${G_KIND})"
    VERBATIM)
  add_custom_target(guest_${G_NAME} DEPENDS ${out})
  add_dependencies(guests guest_${G_NAME})
endfunction()
