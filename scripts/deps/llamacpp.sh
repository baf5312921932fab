# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# llama.cpp (GGML/GGUF): the source vendored in the PyPI sdist of llama-cpp-python, built here
# as shared libraries and installed into $DEPS/llamacpp-dl, with llama.cpp's common library
# (libllama-common) for its JSON-schema-to-GBNF converter. ggml's backends are run-time loadable
# modules (GGML_BACKEND_DL) in $DEPS/llamacpp-dl/lib: the CPU one (portable x86-64-v3) and Vulkan
# (any GPU, or Mesa's lavapipe on the CPU; Debian's libvulkan-dev and glslc, scripts/deps/vulkan.apt).
# A CUDA module can be built beside them on request into $DEPS/llamacpp-cuda.
# libmtmd (images into text models) and llama-mtmd-cli, its native reference, are built too, and
# llama-server (the reference of the chat-template and tool-call tests, and of bench-openai.sh).
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, verified_fetch, $DEPS and $DL.
LLAMACPP_PY_VERSION=0.3.36 # vendors ggml-org/llama.cpp at the commit below
LLAMACPP_BUILD_NUMBER=11312 # the release tag b11312; the sdist has no git history to count
LLAMACPP_COMMIT=0c1e57098bba43ac29e6e3b677cdceebdd22334f
LLAMACPP_SDIST_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
LLAMACPP_SDIST_URL=https://files.pythonhosted.org/packages/ec/e9/e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/llama_cpp_python-$LLAMACPP_PY_VERSION.tar.gz

# The source patched anew: the patches applied last time (kept in SRC/.wasinn-patches) reversed,
# the new ones applied, so only the files they touch are newer than the build tree, which stays:
# a changed patch rebuilds a few objects, not the whole library and its Vulkan shaders (~20 min).
# A source whose old patches do not reverse cleanly is extracted again, build tree and all.
llamacpp_repatch() {
  local work=$1 src=$2 sdist=$3 p
  shift 3
  local applied=$src/.wasinn-patches reversed=1
  if [[ -d $applied ]]; then
    local old=("$applied"/*.patch) i
    for ((i = ${#old[@]} - 1; i >= 0; i--)); do
      patch -d "$src" -p1 -R --quiet --dry-run <"${old[i]}" >/dev/null &&
        patch -d "$src" -p1 -R --quiet <"${old[i]}" || { reversed=0; break; }
    done
  else
    reversed=0
  fi
  if ((!reversed)); then
    rm -rf "$work" && mkdir -p "$work"
    tar -xzf "$sdist" -C "$work"
  fi
  rm -rf "$applied" && mkdir -p "$applied"
  for p in "$@"; do
    patch -d "$src" -p1 --quiet <"$p"
    cp "$p" "$applied/"
  done
}

install_llamacpp() {
  # A prefix of its own: the CPU-only build in $DEPS/llamacpp stays for checkouts still using it.
  local prefix=$DEPS/llamacpp-dl stamp=$DEPS/llamacpp-dl/.version
  # Our patches, applied in name order: Debian 12's Vulkan headers (vulkan-no-layer-settings) and
  # grammar work that a caller can stop and whose stacks are capped (grammar-bounds, issue 79).
  local patches=("$ROOT"/scripts/deps/patches/llamacpp-*.patch) patch_sum
  patch_sum=$(cat "${patches[@]}" | sha256sum | cut -c1-12)
  # The stamp holds every input of the build, so changing one of them rebuilds.
  local key="llama-cpp-python $LLAMACPP_PY_VERSION b$LLAMACPP_BUILD_NUMBER backend-dl cpu-x86-64-v3 vulkan"
  key+=" rpath-origin common-lib mtmd vocab-qwen2 server chat-headers log-header vocab-llama-bpe patches-$patch_sum"
  [[ -f $stamp && $(cat "$stamp") == "$key" ]] && return
  local sdist=llama_cpp_python-$LLAMACPP_PY_VERSION.tar.gz
  verified_fetch "$LLAMACPP_SDIST_URL" "$sdist" "$LLAMACPP_SDIST_SHA256"
  # The source and build tree stay in the cache (one per version), so a change of build flags
  # rebuilds incrementally instead of from scratch.
  # The patched source is a tree of its own, not the one the CPU-only build above used.
  local work=$CACHE/build/llamacpp-dl-$LLAMACPP_PY_VERSION
  local src=$work/llama_cpp_python-$LLAMACPP_PY_VERSION/vendor/llama.cpp
  if [[ ! -f $src/.wasinn-patched ]] || [[ $(cat "$src/.wasinn-patched") != "$patch_sum" ]]; then
    llamacpp_repatch "$work" "$src" "$DL/$sdist" "${patches[@]}"
    echo "$patch_sum" >"$src/.wasinn-patched"
  fi
  say "configuring llama.cpp b$LLAMACPP_BUILD_NUMBER with Vulkan (log in $work/configure.log)"
  # GGML_NATIVE=OFF keeps the library portable; the AVX2/FMA/F16C defaults still apply, in one
  # CPU module (no per-microarchitecture variants). The modules go beside libggml-base in lib/
  # (GGML_BACKEND_DIR) and the plugin loads them from there by path.
  # The $ORIGIN rpath lets libllama and the modules find libggml* beside themselves.
  # LLAMA_BUILD_COMMON=ON defines llama-common; LLAMA_BUILD_TOOLS=ON defines libmtmd and
  # llama-mtmd-cli (the only switch that defines the CLI), and LLAMA_TOOLS_INSTALL=OFF keeps the
  # other tools' install rules out, since they are never built: the build names its targets.
  # LLAMA_BUILD_SERVER=ON defines llama-server; its web UI is neither built (npm) nor downloaded
  # (LLAMA_USE_PREBUILT_UI=OFF: no Hugging Face at build time), so it serves the API only.
  cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_INSTALL_RPATH='$ORIGIN' \
    -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_VULKAN=ON \
    -DGGML_BACKEND_DIR="$(realpath -m "$prefix")/lib" \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_TOOLS_INSTALL=OFF -DMTMD_VIDEO=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_NUMBER="$LLAMACPP_BUILD_NUMBER" -DLLAMA_BUILD_COMMIT="${LLAMACPP_COMMIT:0:9}" \
    -DGGML_CCACHE=OFF >"$work/configure.log" ||
    { cat "$work/configure.log" >&2; exit 1; }
  # scripts/setup.sh --configure-only (scripts/check-fresh.sh --stages): a missing package shows
  # at configure; the build is what takes long.
  if [[ ${WASINN_CONFIGURE_ONLY:-0} == 1 ]]; then say "llama.cpp b$LLAMACPP_BUILD_NUMBER: configured (--configure-only: not built)"; return 0; fi
  say "building llama.cpp b$LLAMACPP_BUILD_NUMBER (up to 25 min on 2 busy cores; log in $work/build.log)"
  cmake --build "$work/build" -j "${WASINN_JOBS:-2}" \
    --target llama llama-common ggml-cpu ggml-vulkan mtmd llama-mtmd-cli llama-server >"$work/build.log" ||
    { tail -50 "$work/build.log" >&2; exit 1; }
  # Installed beside the prefix and swapped in, so the other worktrees sharing it never see it
  # half-written.
  local stage=$prefix.new
  rm -rf "$stage"
  cmake --install "$work/build" --prefix "$stage" >/dev/null
  # ggml's modules install into GGML_BACKEND_DIR, an absolute path into $prefix, whatever
  # --prefix says: they go into the stage too, or the swap below would drop them.
  cp -p "$prefix"/lib/libggml-{cpu,vulkan}.so "$stage/lib/"
  # llama-mtmd-cli: the native reference of the image tests; CMake's own ELF editor points its
  # runpath from the build tree to the installed libraries.
  mkdir -p "$stage/bin"
  cp "$work/build/bin/llama-mtmd-cli" "$stage/bin/"
  # llama-server (installed into bin/ by its own rule) and the shared library holding its HTTP
  # side, which only LLAMA_TOOLS_INSTALL would install: the reference of the chat tests.
  cp -P "$work/build/bin"/libllama-server-impl.so* "$stage/lib/"
  # shellcheck disable=SC2016
  echo 'file(RPATH_SET FILE "${F}" NEW_RPATH "$ORIGIN/../lib")' >"$work/set-rpath.cmake"
  local exe
  for exe in llama-mtmd-cli llama-server; do
    cmake -DF="$stage/bin/$exe" -P "$work/set-rpath.cmake"
  done
  # The plugin calls json_schema_to_grammar and the chat layer (chat.h: templates, tool-call
  # parsers); their headers and the ones they include (common_json, a pimpl over nlohmann, so no
  # nlohmann header leaks) go in a folder of their own, with log.h (the plugin quiets common's
  # logger, which writes to stderr past the host's log levels).
  mkdir -p "$stage/include/llama-common/jinja"
  cp "$src"/common/{json-schema-to-grammar.h,json-schema.h,json.h,common.h,chat.h,peg-parser.h,log.h} \
    "$stage/include/llama-common/"
  cp "$src"/common/jinja/*.h "$stage/include/llama-common/jinja/"
  # Vocab-only GGUF files: the fixture script copies a real tokenizer from them.
  mkdir -p "$stage/share/llamacpp/vocab"
  cp "$src"/models/ggml-vocab-{llama-spm,qwen2,llama-bpe}.gguf "$stage/share/llamacpp/vocab/"
  printf '{"llama_build_number": %s, "llama_commit": "%s", "llama_cpp_python": "%s"}\n' \
    "$LLAMACPP_BUILD_NUMBER" "${LLAMACPP_COMMIT:0:9}" "$LLAMACPP_PY_VERSION" \
    >"$stage/share/llamacpp/build-info.json"
  echo "$key" >"$stage/.version"
  rm -rf "$prefix.old"
  [[ -e $prefix ]] && mv "$prefix" "$prefix.old"
  mv "$stage" "$prefix"
  rm -rf "$prefix.old"
  say "llama.cpp b$LLAMACPP_BUILD_NUMBER -> $prefix"
}
