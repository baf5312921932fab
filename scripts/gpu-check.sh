#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# For a machine with an NVIDIA GPU: installs the CUDA variants (scripts/setup.sh --gpu), runs the
# GPU-labelled tests, and prints what each compared: every GPU output against the CPU's, with the
# speedup (the tests print one "GPU-CHECK" line per comparison). Exits non-zero when a test
# fails. docs/gpu.md says what to expect and what to send back.
#   scripts/gpu-check.sh            (WASINN_CUDA_ARCHS defaults to "native": this GPU only)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
LOG=$BUILD/gpu-check.log
step() { printf '\n==> %s\n' "$*"; }

step "The NVIDIA driver"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
else
  echo "no nvidia-smi: without the NVIDIA driver the GPU tests show the refusals only"
fi

step "Setup with the CUDA variants"
# Only this machine's GPU architectures: a fraction of the full list's compile time.
export WASINN_CUDA_ARCHS=${WASINN_CUDA_ARCHS:-native}
bash "$ROOT/scripts/setup.sh" --gpu --no-example

step "GPU-labelled tests (ctest -L gpu; full output in $LOG)"
status=0
(cd "$BUILD" && ctest -L gpu --output-on-failure -V) >"$LOG" 2>&1 || status=$?
grep -E "^[0-9]+/[0-9]+ Test|tests passed|SKIPPED \]|FAILED \]" "$LOG" | sed 's/^[0-9]*: //' || true

step "GPU against CPU"
if grep -q "GPU-CHECK" "$LOG"; then
  grep -o "GPU-CHECK.*" "$LOG"
else
  echo "no comparison ran: no usable GPU (the skips above say why)"
fi
"$BUILD/bin/wasinn" backends --check || true
exit $status
