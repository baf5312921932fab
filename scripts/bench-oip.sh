#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# wasinn serve --oip-http/--oip-grpc against Triton (PyPI nvidia-pytriton) and MLServer 1.7.1,
# all three serving the same ONNX models through ONNX Runtime, measured in one run by Triton's
# perf_analyzer at concurrency 1, 8 and 32; writes the tables into docs/benchmarks.md (sections
# oip-batching-off / oip-batching-on). Not part of the test suite. About 6-8 minutes per
# batching mode.
#   scripts/bench-oip.sh [--batching off|on|both] [--no-doc] [bench_oip.py options...]
# e.g. --protocols http,grpc --concurrency 1,8 --models tiny --window-ms 3000 --keep
# (bench/oip/bench_oip.py --help lists them all). Builds wasinn in Release in
# $WASINN_BENCH_BUILD_DIR (default build-bench/); the servers' venvs come from
# scripts/remote-servers.sh and perf_analyzer from scripts/fetch-deps.sh (both run by setup.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BENCH_BUILD_DIR:-$ROOT/build-bench}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
PA=$ROOT/.deps/perf-analyzer-2.51.0/perf_analyzer
doc=(--doc "$ROOT/docs/benchmarks.md")
pass=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --no-doc) doc=(); shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done
step() { printf '\n==> %s\n' "$*" >&2; }

[[ -x $PA ]] || { echo "bench-oip.sh: no $PA (scripts/fetch-deps.sh perf-analyzer installs it)" >&2; exit 1; }
for v in venv-triton-0.7.0 venv-mlserver-1.7.1; do
  [[ -f $ROOT/.deps/$v/.version ]] || { echo "bench-oip.sh: no .deps/$v (scripts/remote-servers.sh installs it)" >&2; exit 1; }
done
[[ -f $FIXTURES/tiny/model.onnx && -f $FIXTURES/mobilenet_v2/model.onnx ]] ||
  { echo "bench-oip.sh: fixtures missing in $FIXTURES (scripts/make_fixtures.py makes them)" >&2; exit 1; }

step "Release build of wasinn -> $BUILD"
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWASINN_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD" -j2 --target wasinn_cli wasinn_backend_onnxruntime >&2

step "wasinn, Triton and MLServer under perf_analyzer (uptime: $(uptime))"
python3 "$ROOT/bench/oip/bench_oip.py" --wasinn "$BUILD/bin/wasinn" \
  --backend-dir "$BUILD/lib/wasinn/backends" --fixtures "$FIXTURES" --perf-analyzer "$PA" \
  --json "$BUILD/bench_oip.json" "${doc[@]}" "${pass[@]}"
