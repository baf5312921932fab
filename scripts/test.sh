#!/usr/bin/env bash
# Runs wasinn's whole test suite from any state: sets up what is missing (as scripts/setup.sh
# does, without the example), builds, then runs
#   1. every test with ctest (unit, integration, compat, backends, reliability),
#   2. the container images' tests where podman works (tests/images/run.sh: builds the images with
#      scripts/images.sh, incremental; skipped with the reason elsewhere),
#   3. the same suite built with ASan+UBSan (scripts/sanitize.sh, its own build directory),
#   4. the concurrency tests built with ThreadSanitizer (scripts/tsan.sh, its own build directory),
#   5. a short run of the default fuzz targets (scripts/fuzz.sh).
# Every stage runs even if an earlier one failed; the exit status says whether all passed.
#   scripts/test.sh               the whole suite (what CI runs)
#   scripts/test.sh ARGS...       only stage 1, with ARGS passed to ctest (e.g. -L unit)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
FUZZ_SECONDS=${WASINN_FUZZ_SECONDS:-10}
bash "$ROOT/scripts/setup.sh" --no-example

failed=()
summaries=$(mktemp)
failures=$(mktemp)
trap 'rm -f "$summaries" "$failures"' EXIT
stage() {
  local name=$1; shift
  printf '\n==> %s\n' "$name"
  local start=$SECONDS
  local log; log=$(mktemp)
  local ok=1
  "$@" 2>&1 | tee "$log" || ok=0
  # ctest's "N% tests passed, F tests failed out of T" lines are kept for the closing count.
  grep -a 'tests failed out of' "$log" >>"$summaries" || true
  # A failed test's name and the end of its output are repeated at the close, where a CI page
  # that shows only the tail of the log still shows them.
  local named; named=$(python3 "$ROOT/scripts/ctest_failures.py" "$name" <"$log" || true)
  if [[ $ok == 1 ]]; then
    printf '==> %s: passed (%d s)\n' "$name" $((SECONDS - start))
  else
    printf '==> %s: FAILED (%d s)\n' "$name" $((SECONDS - start))
    failed+=("$name")
    # A stage that failed outside ctest (a build, the images' checks) shows its last lines.
    [[ -n $named ]] || named=$(printf '\n--- %s: its last 25 lines:\n' "$name"; tail -n 25 "$log" | sed 's/^/    /')
  fi
  [[ -z $named ]] || printf '%s\n' "$named" >>"$failures"
  rm -f "$log"
}

stage "Tests" bash -c 'cd "$1" && shift && ctest --output-on-failure --no-tests=error -j2 -LE soak "$@"' _ "$BUILD" "$@"
if [[ $# -eq 0 ]]; then
  stage "Container images" bash "$ROOT/tests/images/run.sh"
  stage "Tests under ASan+UBSan" bash "$ROOT/scripts/sanitize.sh"
  stage "Concurrency tests under ThreadSanitizer" bash "$ROOT/scripts/tsan.sh"
  stage "Fuzzing, ${FUZZ_SECONDS} s per default target" bash "$ROOT/scripts/fuzz.sh" "$FUZZ_SECONDS"
fi

# One closing line over every ctest run (main and sanitizer builds).
read -r tests_failed tests_total < <(awk '{for (i = 3; i + 3 <= NF; i++) if ($i == "failed" && $(i+1) == "out") {f += $(i-2); t += $(i+3)}}
                                          END {print f + 0, t + 0}' "$summaries")
if [[ ${#failed[@]} -gt 0 ]]; then
  cat "$failures"
  printf '\nFAILED stages: %s\n' "${failed[*]}"
  printf 'tests: %d passed, %d failed\n' $((tests_total - tests_failed)) "$tests_failed"
  exit 1
fi
printf '\nAll stages passed.\n'
printf 'tests: %d passed, %d failed\n' $((tests_total - tests_failed)) "$tests_failed"
