#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Benchmarks the OpenAI-compatible endpoint (guest http_openai under `wasinn serve`) against
# native llama.cpp's own `llama-server`, on the same GGUF (the bench fixture), the same threads
# and context, with the same client (PyPI's openai, streaming): time to first token and tokens/s.
# Writes the section between the openai markers of docs/benchmarks.md.
#   scripts/bench-openai.sh [--requests N] [--threads T] [--no-doc] [--batching [--rounds R]]
# --batching: continuous batching and the prompt cache instead (issue 82, scripts/bench_batching.py):
# 8 concurrent and 1 request x 64 tokens and a conversation's next turn, llama-server -np 8 against
# wasinn --workers 8, on bench-large.gguf (made on demand); docs/benchmarks.md's bench:batching.
# llama-server is llama.cpp's own, built by scripts/deps/llamacpp.sh in the plugin's llama.cpp build
# (the same b-number and CPU flags) and installed as .deps/llamacpp-dl/bin/llama-server.
# A long run: not part of the test command.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
FIXTURES=${WASINN_FIXTURES:-$CACHE/fixtures}
requests=8 threads=2 doc=$ROOT/docs/benchmarks.md batching=0 rounds=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --requests) requests=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --no-doc) doc=; shift ;;
    --batching) batching=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "bench-openai.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
say() { printf '\n==> %s\n' "$*" >&2; }

llama_prefix=${WASINN_DEPS:-$ROOT/.deps}/llamacpp-dl
server=$llama_prefix/bin/llama-server
for need in "$BUILD/bin/wasinn" "$BUILD/guests/http_openai.component.wasm" "$FIXTURES/llama/bench.gguf" \
            "$ROOT/.deps/venv/bin/python" "$server"; do
  [[ -e $need ]] || { echo "bench-openai.sh: $need is missing: run scripts/setup.sh first" >&2; exit 1; }
done
# The build the plugin and llama-server share, as the plugin reports it.
build_number=$(sed -n 's/.*"llama_build_number": *\([0-9]*\).*/\1/p' "$llama_prefix/share/llamacpp/build-info.json")

# That build also loads ggml's Vulkan module: llama-server is kept on the CPU (the bench's numbers
# are CPU numbers, as with the CPU-only llama-server it used to build).
export LLAMA_ARG_DEVICE=none

if (( batching )); then
  say "measuring batching and the prompt cache: $rounds rounds, $threads threads, the bench-large GGUF"
  exec "$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_batching.py" --wasinn "$BUILD/bin/wasinn" \
    --backend-dir "$BUILD/lib/wasinn/backends" --guest "$BUILD/guests/http_openai.component.wasm" \
    --llama-server "$server" --fixtures "$FIXTURES" --rounds "$rounds" --threads "$threads" \
    --llama-build "b$build_number" ${doc:+--doc "$doc"}
fi
say "measuring: $requests streamed requests per server, $threads threads, the bench GGUF"
exec "$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_openai.py" --wasinn "$BUILD/bin/wasinn" \
  --backend-dir "$BUILD/lib/wasinn/backends" --guest "$BUILD/guests/http_openai.component.wasm" \
  --llama-server "$server" --model "$FIXTURES/llama/bench.gguf" --requests "$requests" --threads "$threads" \
  --llama-build "b$build_number" ${doc:+--doc "$doc"}
