# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# whisper.cpp (speech to text, WasmEdge's graph encoding 9): the source carried in the PyPI sdist
# of pywhispercpp, built here as static libraries (position-independent, CPU only, portable
# x86-64-v3) that the whisper plugin links with its symbols hidden, plus whisper-cli, the native
# reference of the tests and the benchmark. Its ggml (0.13.1) is not llama.cpp's (0.25.x): the
# two copies never meet, as each plugin keeps its own ggml inside itself.
# Also the real tokenizer and mel filters of OpenAI's whisper (the PyPI sdist of openai-whisper),
# from which scripts/fixtures/export_whisper.py writes a tiny random-weights model.
# whisper.cpp is MIT; its licence is installed as share/whisper/LICENSE.
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, verified_fetch, $DEPS, $CACHE and $DL.
PYWHISPERCPP_VERSION=1.5.1 # carries ggml-org/whisper.cpp 1.8.5
WHISPERCPP_VERSION=1.8.5
PYWHISPERCPP_SDIST_SHA256=5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5
PYWHISPERCPP_SDIST_URL=https://files.pythonhosted.org/packages/9f/35/610787a277e177e6b7983277a35a2969c0876b46c0d889bc6a0c4b4ac4a7/pywhispercpp-$PYWHISPERCPP_VERSION.tar.gz
OPENAI_WHISPER_VERSION=20250625
OPENAI_WHISPER_SDIST_SHA256=37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96
OPENAI_WHISPER_SDIST_URL=https://files.pythonhosted.org/packages/35/8e/d36f8880bcf18ec026a55807d02fe4c7357da9f25aebd92f85178000c0dc/openai_whisper-$OPENAI_WHISPER_VERSION.tar.gz

install_whisper() {
  local prefix=$DEPS/whisper stamp=$DEPS/whisper/.version
  # The stamp holds every input of the build, so changing one of them rebuilds.
  local key="pywhispercpp $PYWHISPERCPP_VERSION whisper.cpp $WHISPERCPP_VERSION openai-whisper $OPENAI_WHISPER_VERSION static-pic cpu-x86-64-v3 miniaudio"
  [[ -f $stamp && $(cat "$stamp") == "$key" ]] && return
  local sdist=pywhispercpp-$PYWHISPERCPP_VERSION.tar.gz assets=openai_whisper-$OPENAI_WHISPER_VERSION.tar.gz
  verified_fetch "$PYWHISPERCPP_SDIST_URL" "$sdist" "$PYWHISPERCPP_SDIST_SHA256"
  verified_fetch "$OPENAI_WHISPER_SDIST_URL" "$assets" "$OPENAI_WHISPER_SDIST_SHA256"
  # Source and build tree stay in the cache (one per version): a flag change rebuilds incrementally.
  local work=$CACHE/build/whisper-$PYWHISPERCPP_VERSION
  local src=$work/pywhispercpp-$PYWHISPERCPP_VERSION/whisper.cpp
  if [[ ! -f $src/CMakeLists.txt ]]; then
    rm -rf "$work" && mkdir -p "$work"
    tar -xzf "$DL/$sdist" -C "$work"
  fi
  say "configuring whisper.cpp $WHISPERCPP_VERSION (log in $work/configure.log)"
  cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DGGML_NATIVE=OFF \
    -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_EXAMPLES=ON -DWHISPER_BUILD_SERVER=OFF \
    -DWHISPER_CURL=OFF -DWHISPER_SDL2=OFF -DGGML_CCACHE=OFF >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; exit 1; }
  # scripts/setup.sh --configure-only (scripts/check-fresh.sh --stages): a missing package shows
  # at configure; the build is what takes long.
  if [[ ${WASINN_CONFIGURE_ONLY:-0} == 1 ]]; then say "whisper.cpp $WHISPERCPP_VERSION: configured (--configure-only: not built)"; return 0; fi
  say "building whisper.cpp $WHISPERCPP_VERSION (2-4 min on 2 cores; log in $work/build.log)"
  cmake --build "$work/build" -j "${WASINN_JOBS:-2}" --target whisper whisper-cli >"$work/build.log" ||
    { tail -50 "$work/build.log" >&2; exit 1; }
  # Installed by hand: `cmake --install` would want every example built.
  rm -rf "$prefix"
  mkdir -p "$prefix/lib" "$prefix/include" "$prefix/bin" "$prefix/share/whisper/assets"
  cp "$work/build/src/libwhisper.a" "$prefix/lib/"
  find "$work/build/ggml/src" -name 'libggml*.a' -exec cp {} "$prefix/lib/" \;
  cp "$src/include/whisper.h" "$src"/ggml/include/*.h "$prefix/include/"
  # miniaudio (single header, public domain/MIT-0): how whisper.cpp's own tools decode audio,
  # and how the plugin reads a guest's WAV file.
  cp "$src/examples/miniaudio.h" "$prefix/include/"
  cp "$work/build/bin/whisper-cli" "$prefix/bin/"
  cp "$src/LICENSE" "$prefix/share/whisper/LICENSE"
  # OpenAI whisper's English-only tokenizer and its 80-bin mel filters, for the fixture model.
  tar -xzf "$DL/$assets" -C "$work" --wildcards '*/whisper/assets/gpt2.tiktoken' '*/whisper/assets/mel_filters.npz'
  cp "$work"/openai_whisper-$OPENAI_WHISPER_VERSION/whisper/assets/{gpt2.tiktoken,mel_filters.npz} "$prefix/share/whisper/assets/"
  printf '{"whisper_cpp": "%s", "pywhispercpp": "%s", "openai_whisper": "%s"}\n' \
    "$WHISPERCPP_VERSION" "$PYWHISPERCPP_VERSION" "$OPENAI_WHISPER_VERSION" >"$prefix/share/whisper/build-info.json"
  echo "$key" >"$stamp"
  say "whisper.cpp $WHISPERCPP_VERSION -> $prefix"
}
