#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Benchmarks the OpenAI-compatible endpoint (guest http_openai under `wasinn serve`) against
# native llama.cpp's own `llama-server`, on the same GGUF (the bench fixture), the same threads
# and context, with the same client (PyPI's openai, streaming): time to first token and tokens/s.
# Writes the section between the openai markers of docs/benchmarks.md.
#   scripts/bench-openai.sh [--requests N] [--threads T] [--no-doc]
# llama-server is built once from the llama.cpp source scripts/deps/llamacpp.sh unpacked (the
# same b-number and the same CPU flags as the plugin's), into ~/.cache/wasinn/build/: about 10
# minutes on 2 cores the first time. A long run: not part of the test command.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
FIXTURES=${WASINN_FIXTURES:-$CACHE/fixtures}
requests=8 threads=2 doc=$ROOT/docs/benchmarks.md
while [[ $# -gt 0 ]]; do
  case $1 in
    --requests) requests=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --no-doc) doc=; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "bench-openai.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
say() { printf '\n==> %s\n' "$*" >&2; }

# shellcheck source=deps/llamacpp.sh
source "$ROOT/scripts/deps/llamacpp.sh"  # the pinned version's names only; nothing runs
src=$CACHE/build/llamacpp-dl-$LLAMACPP_PY_VERSION/llama_cpp_python-$LLAMACPP_PY_VERSION/vendor/llama.cpp
if [[ ! -f $src/CMakeLists.txt ]]; then
  echo "bench-openai.sh: no llama.cpp source in $src: run scripts/setup.sh first" >&2
  exit 1
fi
for need in "$BUILD/bin/wasinn" "$BUILD/guests/http_openai.component.wasm" "$FIXTURES/llama/bench.gguf" \
            "$ROOT/.deps/venv/bin/python"; do
  [[ -e $need ]] || { echo "bench-openai.sh: $need is missing: run scripts/setup.sh first" >&2; exit 1; }
done

server_build=$CACHE/build/llama-server-b$LLAMACPP_BUILD_NUMBER
server=$server_build/bin/llama-server
if [[ ! -x $server ]]; then
  say "building llama.cpp b$LLAMACPP_BUILD_NUMBER's llama-server (CPU, the plugin's flags; log in $server_build/build.log)"
  mkdir -p "$server_build"
  cmake -S "$src" -B "$server_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_VULKAN=OFF \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_NUMBER="$LLAMACPP_BUILD_NUMBER" -DLLAMA_BUILD_COMMIT="${LLAMACPP_COMMIT:0:9}" \
    -DGGML_CCACHE=OFF >"$server_build/configure.log" || { tail -30 "$server_build/configure.log" >&2; exit 1; }
  cmake --build "$server_build" -j "${WASINN_JOBS:-2}" --target llama-server ggml-cpu >"$server_build/build.log" ||
    { tail -40 "$server_build/build.log" >&2; exit 1; }
fi

say "measuring: $requests streamed requests per server, $threads threads, the bench GGUF"
exec "$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_openai.py" --wasinn "$BUILD/bin/wasinn" \
  --backend-dir "$BUILD/lib/wasinn/backends" --guest "$BUILD/guests/http_openai.component.wasm" \
  --llama-server "$server" --model "$FIXTURES/llama/bench.gguf" --requests "$requests" --threads "$threads" \
  --llama-build "b$LLAMACPP_BUILD_NUMBER" ${doc:+--doc "$doc"}
