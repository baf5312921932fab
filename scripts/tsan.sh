#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the concurrency tests with ThreadSanitizer (clang-14) in their own build directory and
# runs them: the core and ABI under several threads (fake backend), the engine's wasi-threads
# guests and several guests in one Host on the real ONNX Runtime plugin, the OIP server's dynamic
# batcher, WASI 0.3's async calls, `wasinn serve`'s lanes and the llama.cpp plugin's shared context.
# Any report fails the run. Frameworks and Wasmtime are not instrumented: TSan sees wasinn's own
# accesses.
#   scripts/tsan.sh [ctest args...]
# Environment: WASINN_TSAN_BUILD_DIR (default build-tsan).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_TSAN_BUILD_DIR:-$ROOT/build-tsan}

printf '\n==> ThreadSanitizer build -> %s\n' "$BUILD"
bash "$ROOT/scripts/configure-sanitize.sh" "$BUILD" tsan
# Only what the concurrency tests run: not every plugin and test of the suite.
# (wasinn_cli, llama.cpp's plugin, native llama.cpp's reference and the Rust guests: the WASI 0.3
# cases, tests/p3/; the plugin's shared context under concurrent generations: llamacpp_batch_test).
bash "$ROOT/scripts/build.sh" "$BUILD" wasinn_unit_tests wasinn_integration_test wasinn_threads_host_test \
  wasinn_backend_onnxruntime oip_dynamic_batcher_test wasinn_cli wasinn_backend_llamacpp wasinn_llama_reference \
  rust_web_guests llamacpp_batch_test

# halt_on_error: the first report fails the test that caused it (exit code 66).
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/sanitizers/tsan.supp"
printf '\n==> Concurrency tests under ThreadSanitizer\n'
cd "$BUILD"
ctest --output-on-failure --no-tests=error -j2 -L tsan "$@"
