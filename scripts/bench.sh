#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds wasinn's guest-versus-native benchmarks in Release mode, runs them, and writes their
# results into docs/benchmarks.md between the generated-section markers, leaving the
# hand-written text around them alone.
#   scripts/bench.sh [--seconds S] [--no-doc] [BACKEND...]
# BACKEND: a folder bench/<backend>/ (default: all of them). Each builds bench_<backend>, which
# takes --fixtures DIR --seconds S --json FILE, prints a Markdown section on stdout and exits
# non-zero if a side fails or gives a wrong answer.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BENCH_BUILD_DIR:-$ROOT/build-bench}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
DOC=$ROOT/docs/benchmarks.md
seconds=3
write_doc=1
names=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --no-doc) write_doc=0; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [[ ${#names[@]} -eq 0 ]]; then
  for d in "$ROOT"/bench/*/; do
    n=$(basename "$d")
    # metrics/ is a Google Benchmark microbenchmark, run by hand (docs/metrics.md).
    [[ $n != common && $n != metrics && -f $d/CMakeLists.txt ]] && names+=("$n")
  done
fi

step() { printf '\n==> %s\n' "$*" >&2; }

if [[ ! -x $ROOT/.deps/venv/bin/python || ! -d $ROOT/.deps/onnxruntime ]]; then
  echo "bench.sh: dependencies missing; run scripts/setup.sh --no-example first" >&2
  exit 1
fi
step "Fixtures -> $FIXTURES"
"$ROOT/.deps/venv/bin/python" "$ROOT/scripts/make_fixtures.py" --out "$FIXTURES" >&2

step "Release build -> $BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWASINN_BUILD_TESTS=OFF >/dev/null
targets=()
for n in "${names[@]}"; do targets+=("bench_$n"); done
# -j2: the machine is shared; more jobs would only slow the others down.
cmake --build "$BUILD" -j2 --target "${targets[@]}" >&2

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{
  echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores visible"
  echo "- Load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: other builds run too)"
  echo "- OS: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "- Host compiler: $(c++ --version | head -1); guests: $(clang-14 --version | head -1)"
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} >"$out/machine.md"

for n in "${names[@]}"; do
  step "bench_$n"
  "$BUILD/bin/bench_$n" --fixtures "$FIXTURES" --seconds "$seconds" --json "$BUILD/bench_$n.json" >"$out/$n.md"
  cat "$out/$n.md"
done

[[ $write_doc == 1 ]] || exit 0
step "Writing $DOC"
python3 "$ROOT/scripts/bench_doc.py" "$DOC" "$out" machine "${names[@]}"
echo "bench.sh: results written to $DOC" >&2
