#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sets wasinn up on a fresh Debian 12 machine and runs the main job: an example guest that
# classifies the held-out handwritten digits on the default ONNX Runtime backend. On a new machine
# the main job runs as soon as its own parts are built, then the rest is fetched and built.
# Idempotent: a second run reuses the cached downloads, fixtures and build.
#   scripts/setup.sh [--no-example] [--gpu] [--configure-only]
# --gpu (or WASINN_GPU=1): also the NVIDIA CUDA variants, opt-in and never part of the default
# (scripts/gpu/, docs/gpu.md): ONNX Runtime's CUDA provider with the nvidia-* wheels' libraries
# (about 1.3 GB of downloads, 2.3 GB unpacked) and ggml's CUDA module for llama.cpp (compiled
# here: long; WASINN_CUDA_ARCHS picks the GPU architectures).
# --configure-only: the Debian packages, every download and the native dependencies' CMake
# configure steps, then stop (minutes: scripts/check-fresh.sh --stages, for a quick answer to
# "does a new machine have every package?"; the builds are what take long).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
run_example=1
with_gpu=${WASINN_GPU:-0}
configure_only=0
for arg in "$@"; do
  case $arg in
    --no-example) run_example=0 ;;
    --gpu) with_gpu=1 ;;
    --configure-only) configure_only=1 run_example=0 ;;
    *) echo "usage: scripts/setup.sh [--no-example] [--gpu] [--configure-only]" >&2; exit 2 ;;
  esac
done

# Each step's time is kept as it ends and all of them are said at the close (docs/setup.md).
step_name= step_start=$SECONDS setup_start=$SECONDS times=()
step_end() {
  [[ -n $step_name ]] && times+=("$(printf '%5d s  %s' $((SECONDS - step_start)) "$step_name")")
  step_name=
}
step() {
  step_end
  step_name=$* step_start=$SECONDS
  printf '\n==> %s\n' "$*"
}
# setup_close WHAT: the last step's end, then "setup: WHAT in N s" and every step's time.
setup_close() {
  step_end
  printf '\nsetup: %s %d s\n' "$1" $((SECONDS - setup_start))
  printf '%s\n' "${times[@]}"
}

step "Debian packages"
# The images' packages too, so the test command checks the images on a new machine.
bash "$ROOT/scripts/apt-packages.sh" "$ROOT"/scripts/deps/*.apt "$ROOT"/scripts/images/images.apt

# The main job first, on a new machine: ONNX Runtime, the engine, the CLI and the example guest
# are all it needs, so its accuracy shows in minutes, before llama.cpp, whisper.cpp and the other
# frameworks are fetched and built (issue 52). A tree configured before, or --no-example, goes
# straight to the whole build.
main_job_first=0
[[ $run_example == 1 && $configure_only == 0 && ! -f $BUILD/CMakeCache.txt ]] && main_job_first=1
run_main_job() {
  "$BUILD/bin/wasinn" run --dir "$FIXTURES/digits::/digits" "$BUILD/guests/classify_digits.wasm" \
    /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8
}
if [[ $main_job_first == 1 ]]; then
  step "The main job's dependencies: ONNX Runtime, the Rust that builds Wasmtime, Wasmtime's crates"
  bash "$ROOT/scripts/fetch-deps.sh" onnxruntime rust-web wasmtime
  step "The main job's model and data -> $FIXTURES/digits"
  /usr/bin/python3 "$ROOT/scripts/make_fixtures.py" --main-job --out "$FIXTURES"
  step "Build the main job -> $BUILD: the CLI, ONNX Runtime's plugin and the example guest (the engine by cargo first)"
  # The engine by cargo before the configure, which would otherwise build it with its output hidden.
  bash "$ROOT/scripts/build-engine.sh" "$BUILD/engine"
  # Its warnings (guests skipped for toolchains not fetched yet) are not the user's to act on.
  mkdir -p "$BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWASINN_BACKENDS=onnxruntime \
    -DWASINN_BUILD_TESTS=OFF -DWASINN_BUILD_BENCH=OFF >"$BUILD/main-job-configure.log" 2>&1 ||
    { cat "$BUILD/main-job-configure.log" >&2; exit 1; }
  bash "$ROOT/scripts/build.sh" "$BUILD" wasinn_cli wasinn_backend_onnxruntime guest_classify_digits
  step "Example: a wasm guest classifies the held-out digits through wasi-nn on ONNX Runtime"
  run_main_job
  echo "setup: the main job ran; now the other frameworks and the rest of what a user runs"
fi

step "Native dependencies (cached in ~/.cache/wasinn/dl)"
WASINN_CONFIGURE_ONLY=$configure_only bash "$ROOT/scripts/fetch-deps.sh"
if [[ $configure_only == 1 ]]; then
  setup_close "--configure-only: packages, downloads and configure steps passed in"
  exit 0
fi

if [[ $with_gpu == 1 ]]; then
  step "NVIDIA CUDA variants (--gpu; cached in ~/.cache/wasinn)"
  bash "$ROOT/scripts/gpu/onnxruntime-cuda.sh"
  bash "$ROOT/scripts/gpu/llamacpp-cuda.sh"
fi

step "Test models and data -> $FIXTURES"
"$ROOT/.deps/venv/bin/python" "$ROOT/scripts/make_fixtures.py" --out "$FIXTURES"

step "Inference servers for the remote backend's tests (cached venvs; never fatal)"
bash "$ROOT/scripts/remote-servers.sh" || echo "setup: a remote test server is missing: its tests will skip"

step "Build -> $BUILD (what a user runs: the CMake target product)"
# Configured with every backend, the tests and benchmarks, which scripts/test.sh builds in this
# tree (so a change that breaks a benchmark fails the test command, not the next benchmark run),
# but built here only as far as the README's and docs' programs need.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -UWASINN_BACKENDS \
  -DWASINN_BUILD_TESTS=ON -DWASINN_BUILD_BENCH=ON >/dev/null
bash "$ROOT/scripts/build.sh" "$BUILD" product
# The WASI 0.3 guests docs/compatibility.md runs (guest/rust-web: Rust's std for two wasm targets and
# about 120 crates, so not in product): built here, after the main job's parts, for the docs'
# commands to run as written; the test command would build them anyway.
step "WASI 0.3 guests the docs run (guest/rust-web) -> $BUILD/guests"
bash "$ROOT/scripts/build.sh" "$BUILD" rust_web_guests

if [[ $run_example == 1 ]]; then
  # Exits 1 when a backend cannot load (a health check); the example needs only onnxruntime.
  step "Backends' health check$([[ $main_job_first == 0 ]] && echo ", then the example: a wasm guest classifies the held-out digits through wasi-nn on ONNX Runtime")"
  "$BUILD/bin/wasinn" backends --check || echo "setup: a backend above cannot load; guests using it will get errors"
  if [[ $main_job_first == 0 ]]; then
    echo
    run_main_job
  fi
fi
setup_close took
