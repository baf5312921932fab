#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs wasinn's whole test suite from any state: sets up what is missing (as scripts/setup.sh
# does, without the example), builds the tests, test guests and benchmarks, then runs
#   1. every test with ctest (unit, integration, compat, backends, reliability),
#   2. the container images' tests where podman works (tests/images/run.sh: builds the images with
#      scripts/images.sh, incremental; skipped with the reason elsewhere),
#   3. the same suite built with ASan+UBSan (scripts/sanitize.sh, its own build directory),
#   4. the concurrency tests built with ThreadSanitizer (scripts/tsan.sh, its own build directory),
#   5. a short run of the default fuzz targets (scripts/fuzz.sh).
# Every stage runs even if an earlier one failed; the exit status says whether all passed. A stage
# that cannot run here exits 77 (automake's "skipped") and is reported as skipped with its reason,
# never as passed; the closing lines name every skipped stage.
#   scripts/test.sh               the whole suite (what CI runs)
#   scripts/test.sh ARGS...       only stage 1, with ARGS passed to ctest (e.g. -L unit)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
FUZZ_SECONDS=${WASINN_FUZZ_SECONDS:-6}
# Three tests at a time on 2 cores: many tests wait on a server or a child for part of their time,
# so the suite and its ASan run finish 15-20% sooner than at -j2 (measured in docs/setup.md).
# Tests that time a wait against a compute take two slots (ctest's PROCESSORS 2).
export WASINN_CTEST_JOBS=${WASINN_CTEST_JOBS:-3}
# Three tests on 2 cores share them as any busy machine does: OpenMP's threads (ggml's, libtorch's)
# then spin away the time slices their partners need (docs/backends/whisper.md); a short spin took
# the ASan stage's tests from 467 to 430 s and whisper_guest_test from 49 to 29 s there.
export GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-1000}
bash "$ROOT/scripts/setup.sh" --no-example

source "$ROOT/scripts/test-stages.sh"

# setup.sh builds what a user runs; the tests, their guests and the benchmarks are built here.
stage "Build: tests, test guests, benchmarks" bash "$ROOT/scripts/build.sh" "$BUILD"
stage "Tests" bash -c 'cd "$1" && shift && ctest --output-on-failure --no-tests=error -j"$WASINN_CTEST_JOBS" -LE soak "$@"' _ "$BUILD" "$@"
if [[ $# -eq 0 ]]; then
  stage "Container images" bash "$ROOT/tests/images/run.sh"
  stage "Tests under ASan+UBSan" bash "$ROOT/scripts/sanitize.sh"
  stage "Concurrency tests under ThreadSanitizer" bash "$ROOT/scripts/tsan.sh"
  stage "Fuzzing, ${FUZZ_SECONDS} s per default target" bash "$ROOT/scripts/fuzz.sh" "$FUZZ_SECONDS"
fi

stages_close
