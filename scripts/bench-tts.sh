#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Text to speech (WasmEdge's GGML "tts": OuteTTS 0.2 + WavTokenizer) on wasinn against the native tool
# that defined it: llama.cpp's llama-tts as it was before b11312 turned it into libmtmd's
# Qwen3-TTS/Pocket TTS demo (llama-cpp-python 0.3.34's llama.cpp, the last with its OuteTTS code).
#   scripts/bench-tts.sh [--rounds N] [--codes N] [--no-doc]
# Builds that llama-tts once (CPU only, static; about 10 CPU-minutes) into
# ~/.cache/wasinn/peers/llama-tts-0.3.34, then runs scripts/bench_tts.py (section "tts" of
# docs/benchmarks.md). Uses the build in build/ (WASINN_BUILD_DIR). A benchmark: not part of the
# test command, whose native reference is llama_native.cpp on this build's llama.cpp.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
rounds=5 codes=375 doc=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --codes) codes=$2; shift 2 ;;
    --no-doc) doc=(--no-doc); shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "bench-tts.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
for need in "$BUILD/bin/wasinn" "$BUILD/guests/compat_wasmedge_ggml_tts.wasm" "$ROOT/.deps/venv/bin/python"; do
  [[ -e $need ]] || { echo "bench-tts.sh: $need is missing: run scripts/setup.sh first" >&2; exit 1; }
done

VERSION=0.3.34
SHA256=d849d286d808284f1d3ec1bd6875572430d29d1f9574a010232caa4e9cef0e35
URL=https://files.pythonhosted.org/packages/c1/2f/46487e949da42b31847853793ddbfd44c7414e94d4364c9a41f91f30af27/llama_cpp_python-$VERSION.tar.gz
peer=$CACHE/peers/llama-tts-$VERSION
if [[ ! -x $peer/bin/llama-tts ]]; then
  work=$CACHE/build/llamacpp-tts-$VERSION sdist=$CACHE/dl/llama_cpp_python-$VERSION.tar.gz
  mkdir -p "$work" "$CACHE/dl"
  [[ -s $sdist ]] || curl -sSfL --retry 3 -o "$sdist" "$URL"
  echo "$SHA256  $sdist" | sha256sum -c --quiet - || { echo "bench-tts.sh: checksum mismatch for $sdist" >&2; exit 1; }
  [[ -d $work/llama_cpp_python-$VERSION ]] || tar -xzf "$sdist" -C "$work"
  echo "bench-tts.sh: building llama.cpp $VERSION's llama-tts (CPU only; about 10 CPU-minutes; log in $work/build.log)" >&2
  cmake -S "$work/llama_cpp_python-$VERSION/vendor/llama.cpp" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_CCACHE=OFF >"$work/configure.log"
  cmake --build "$work/build" -j "${WASINN_JOBS:-2}" --target llama-tts >"$work/build.log" ||
    { tail -30 "$work/build.log" >&2; exit 1; }
  mkdir -p "$peer/bin" && cp "$work/build/bin/llama-tts" "$peer/bin/"
fi
exec "$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_tts.py" --wasinn "$BUILD/bin/wasinn" \
  --guest "$BUILD/guests/compat_wasmedge_ggml_tts.wasm" --native "$peer/bin/llama-tts" --rounds "$rounds" \
  --codes "$codes" "${doc[@]}"
