#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the whole test suite with AddressSanitizer + UndefinedBehaviorSanitizer (clang-14) in its
# own build directory and runs it: any finding fails the run (UBSan does not recover; ASan stops at
# the first error; LeakSanitizer reports leaks at exit). Expects scripts/setup.sh to have run.
# The same build holds the libFuzzer targets (-DWASINN_FUZZ=ON), so scripts/fuzz.sh reuses it
# instead of compiling everything a third time.
#   scripts/sanitize.sh [ctest args...]     e.g. scripts/sanitize.sh -L unit
# Environment: WASINN_SANITIZE_BUILD_DIR (default build-sanitize), WASINN_CTEST_JOBS (default 3,
# as scripts/test.sh explains).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}
SUPP=$ROOT/tests/sanitizers

printf '\n==> ASan+UBSan build -> %s\n' "$BUILD"
bash "$ROOT/scripts/configure-sanitize.sh" "$BUILD"
bash "$ROOT/scripts/build.sh" "$BUILD"

# Wasmtime catches guest out-of-bounds accesses with its own SIGSEGV handler, so ASan must
# leave SIGSEGV/SIGBUS to it. Framework leaks at exit are suppressed by name in lsan.supp.
# clang-14's __tls_get_addr interceptor takes a dynamic TLS block that malloc happened to place at
# offset 16 of a page for a pre-2.25 glibc header and reads garbage: LeakSanitizer's tracer then
# dies at exit ("Tracer caught signal 11") with no leak found. Fixed upstream in LLVM 17.
export ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:detect_stack_use_after_return=0:abort_on_error=0:halt_on_error=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp
export LSAN_OPTIONS=suppressions=$SUPP/lsan.supp:print_suppressions=0
# oneTBB (OpenVINO) dlopens libtbbbind with RTLD_DEEPBIND, which ASan refuses; this makes TBB
# leave the flag out.
export TBB_ENABLE_SANITIZERS=1
export GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-1000}  # as scripts/test.sh says why

printf '\n==> Tests under ASan+UBSan\n'
cd "$BUILD"
set -o pipefail
ctest --output-on-failure --no-tests=error -j"${WASINN_CTEST_JOBS:-3}" -LE soak "$@" 2>&1 | tee "$BUILD/sanitize.log"
