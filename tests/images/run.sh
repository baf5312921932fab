#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The container images' tests (docs/deployment.md), run by scripts/test.sh where podman works and
# skipped with the reason elsewhere. Builds the images first (scripts/images.sh: incremental, so
# seconds when nothing changed), then checks each one from the outside with real guests, models
# and clients: the cpu image classifies the digits read-only and offline and serves HTTP to the
# host; the nvidia image resolves every library but libcuda.so.1 and refuses `gpu` saying why;
# the cpu image speaks with a Piper voice as piper-tts does; the compile image builds guests that
# the cpu image runs. Ends with a ctest-style count line; exits 77 (skipped) where podman cannot
# run containers.
#   tests/images/run.sh [--no-build]    (--no-build: check the images as they are)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
source "$ROOT/scripts/images/podman-env.sh"
source "$ROOT/tests/images/lib.sh"
source "$ROOT/tests/images/licenses.sh" 2>/dev/null ||
  check_licenses() { skip "$1: licences" "tests/images/licenses.sh is missing"; }
source "$ROOT/tests/images/compile.sh" 2>/dev/null ||
  check_compile_image() { skip "compile image" "tests/images/compile.sh is missing"; }

# 77: "skipped" to scripts/test.sh, which reports the stage as skipped with this line, not passed.
if ! why=$(podman_usable); then
  echo "images: skipped: $why"
  exit 77
fi
if [[ ${1:-} != --no-build ]]; then
  echo "==> bash scripts/images.sh"
  build_log=$(mktemp)
  if ! bash "$ROOT/scripts/images.sh" >"$build_log" 2>&1; then
    tail -n 40 "$build_log"; echo "images: scripts/images.sh failed"; rm -f "$build_log"
    echo "0% tests passed, 1 tests failed out of 1"; exit 1
  fi
  grep -E '^wasinn:.* built in|^skipped' "$build_log"; rm -f "$build_log"
fi
VERSION=$(sed -n 's/^#define WASINN_VERSION_STRING "\(.*\)"/\1/p' "$BUILD/include/wasinn/version.h")
CPU=localhost/wasinn:$VERSION-cpu NVIDIA=localhost/wasinn:$VERSION-nvidia COMPILE=localhost/wasinn:$VERSION-compile
SCRATCH=$(mktemp -d); chmod 755 "$SCRATCH"
cleanup() { podman rm -f -t 0 wasinn-images-serve wasinn-images-kserve >/dev/null 2>&1; rm -rf "$SCRATCH"; }
trap cleanup EXIT

# How a user runs it locked down: no network, read-only root, the model read-only.
run_locked() {  # IMAGE ARGS...
  local image=$1; shift
  podman run --rm --read-only --network=none -v "$FIXTURES/digits:/digits:ro" \
    -v "$BUILD/guests:/guests:ro" "$image" "$@"
}
digits_args=(run --dir /digits /guests/classify_digits.wasm /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8)

# An air-gapped move: the archive --save writes loads into another podman storage and runs there.
save_and_load() {
  bash "$ROOT/scripts/images.sh" --only cpu --save "$SCRATCH/save" >/dev/null || return 1
  local other=$SCRATCH/other-storage
  mkdir -p "$other"
  printf '[storage]\ndriver = "overlay"\ngraphroot = "%s/root"\nrunroot = "%s/run"\n' "$other" "$other" >"$other/storage.conf"
  zstd -d -q <"$SCRATCH/save/wasinn-$VERSION-cpu.tar.zst" >"$SCRATCH/cpu.tar"
  rm -rf "$SCRATCH/save"
  CONTAINERS_STORAGE_CONF=$other/storage.conf podman load -q -i "$SCRATCH/cpu.tar" || return 1
  rm -f "$SCRATCH/cpu.tar"
  CONTAINERS_STORAGE_CONF=$other/storage.conf podman run --rm --network=none "$CPU" --version
  CONTAINERS_STORAGE_CONF=$other/storage.conf podman rmi -a -f >/dev/null 2>&1
  rm -rf "$other" 2>/dev/null || true
}

# Its disk work (about 50 s: save, compress, load 1.7 GiB into another storage) runs beside the
# checks below, which mostly wait on containers; its result is read at the end.
if [[ ${1:-} != --no-build ]]; then
  (start=$SECONDS; save_and_load >"$SCRATCH/save_and_load.out" 2>&1; echo $? >"$SCRATCH/save_and_load.rc"
   echo $((SECONDS - start)) >"$SCRATCH/save_and_load.s") &
  save_pid=$!
fi

echo "==> $CPU"
check_output "cpu: backends --check: every backend ok" \
  '^whisper +whisper +whisper.cpp [^ ]+ +ok' run_locked "$CPU" backends --check
check_output "cpu: every backend ok in the JSON list" '^9 9$' bash -c \
  "podman run --rm --network=none $CPU backends --check --json | python3 -c 'import json,sys; b=json.load(sys.stdin)[\"backends\"]; print(len(b), sum(bool(x[\"loadable\"]) for x in b))'"
check_output "cpu: digits guest, read-only root, no network: 435/450" \
  '^accuracy: 435/450' run_locked "$CPU" "${digits_args[@]}"
check_output "cpu: a component guest, read-only, no network: 435/450" 'accuracy: 435/450' \
  run_locked "$CPU" run --dir /digits /guests/wit_classify_digits.component.wasm \
  /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8
check_output "cpu: runs as the non-root user 10001" '^10001:10001$' \
  podman run --rm --network=none --entrypoint /bin/sh "$CPU" -c 'echo $(id -u):$(id -g)'
check_output "cpu: the read-only root refuses writes" 'Read-only file system' \
  bash -c "podman run --rm --read-only --network=none --entrypoint /bin/sh $CPU -c 'touch /opt/wasinn/x' 2>&1; true"
check_output "cpu: no compiler in the runtime image" '^none$' \
  podman run --rm --network=none --entrypoint /bin/sh "$CPU" -c \
  'for c in cc gcc clang c++ g++ ld; do command -v $c; done; echo none'
check_output "cpu: labels: version, revision, licenses" "^$VERSION [0-9a-f]+ .+" \
  podman image inspect --format '{{index .Labels "org.opencontainers.image.version"}} {{index .Labels "org.opencontainers.image.revision"}} {{index .Labels "org.opencontainers.image.licenses"}}' "$CPU"
check_output "cpu: wasinn's own licence (LICENSE, Apache-2.0 WITH LLVM-exception) is in the image" '^1$' \
  podman run --rm --network=none --entrypoint /bin/sh "$CPU" -c \
  'grep -c "LLVM Exceptions to the Apache 2.0 License" /opt/wasinn/LICENSES/wasinn/LICENSE'
check_output "cpu: headers and CMake package for embedders" 'wasinnConfig.cmake' \
  podman run --rm --network=none --entrypoint /bin/sh "$CPU" -c \
  'ls /opt/wasinn/include/wasinn/wasinn.h /opt/wasinn/lib/cmake/wasinn/wasinnConfig.cmake'

# speak IMAGE: the piper backend in the image (espeak-ng linked in, its data installed beside the
# plugin, ONNX Runtime) speaks the piper tests' "welcome" case with the tiny voice, registered read-only, as a
# user runs it locked down. Its WAV must equal piper-tts's (piper/ref-welcome.wav, the known
# answer), and the run must say nothing else (no audio device probed, no missing data).
speak() {
  local out=$SCRATCH/speak
  rm -rf "$out"; mkdir -p "$out"; chmod 777 "$out"
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cases"]["welcome"]["text"], end="")' \
    "$FIXTURES/piper/reference.json" >"$out/text.txt" || return 1
  podman run --rm --read-only --network=none -v "$FIXTURES/piper:/voices:ro" -v "$BUILD/guests:/guests:ro" \
    -v "$out:/out" "$1" run --nn-preload voice:piper:CPU:/voices/tiny.onnx --dir /out \
    /guests/speak.wasm voice /out/text.txt /out/speech.wav >"$out/stdout" 2>"$out/stderr" || { cat "$out"/std*; return 1; }
  cat "$out/stdout"
  [[ -s $out/stderr ]] && { echo "stderr:"; cat "$out/stderr"; return 1; }
  cmp "$out/speech.wav" "$FIXTURES/piper/ref-welcome.wav" && echo "equal to piper-tts's WAV"
}
check_output "cpu: piper speaks, read-only, no network: the WAV equals piper-tts's" \
  "^equal to piper-tts's WAV$" speak "$CPU"

# run_published NAME READY_PATH ARGS...: `podman run -d ARGS` as NAME, read-only, its port 8080
# published on a free loopback port; waits until READY_PATH answers and prints that port.
run_published() {
  local name=$1 ready=$2; shift 2
  podman run -d --name "$name" --read-only -p 127.0.0.1::8080 "$@" >/dev/null || return 1
  local port i; port=$(podman port "$name" 8080/tcp | sed 's/.*://')
  for i in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port$ready" >/dev/null && break
    sleep 0.1
  done
  echo "$port"
}

# wasinn serve in the image answers the host: the digits model behind http_classify, one row of
# the held-out set, whose class is known (the label file) and must be the argmax.
serve_digits() {
  local port
  port=$(run_published wasinn-images-serve /readyz -v "$FIXTURES/digits:/digits:ro" -v "$BUILD/guests:/guests:ro" \
    "$CPU" serve --addr 0.0.0.0:8080 --nn-preload digits:onnx:cpu:/digits/model.onnx \
    /guests/http_classify.component.wasm) || return 1
  head -c 256 "$FIXTURES/digits/test_x.f32" >"$SCRATCH/row0.f32"
  curl -sS -f -X POST --data-binary @"$SCRATCH/row0.f32" "http://127.0.0.1:$port/infer/digits?dims=1,64" |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["outputs"][0]["data"]; print("argmax", d.index(max(d)))'
  echo "label $(od -An -tu1 -N1 "$FIXTURES/digits/test_y.u8" | tr -d ' ')"
  podman stop -t 10 wasinn-images-serve >/dev/null
  podman logs wasinn-images-serve 2>&1 | tail -n 3
}
check_output "cpu: wasinn serve in the image answers the host (argmax = label 2)" \
  $'argmax 2\nlabel 2' serve_digits
podman rm -f -t 0 wasinn-images-serve >/dev/null 2>&1
# KServe's ServingRuntime (deploy/kserve/wasinn-servingruntime.yaml) run as KServe would: its
# container's args, {{.Name}} made the InferenceService's name as KServe does, in this image, over
# /mnt/models as the storage initializer leaves it: a Triton-layout repository (served as its
# directory's name) or a single model.onnx (a single-file storageUri: served as the
# InferenceService's name); a v2 infer of one held-out digit over REST must give its known class.
# tests/deploy/kserve_pod_spec.py checks the ports and runs the same args with build/bin/wasinn.
kserve_runtime() {  # LAYOUT (triton or flat)
  local manifest=$ROOT/deploy/kserve/wasinn-servingruntime.yaml layout=$1 model
  local -a args
  mapfile -t args < <(python3 -c 'import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
rt = next(d for d in docs if d["kind"] == "ServingRuntime")
isvc = next(d for d in docs if d["kind"] == "InferenceService")
print("\n".join(a.replace("{{.Name}}", isvc["metadata"]["name"]) for a in rt["spec"]["containers"][0]["args"]))' "$manifest") || return 1
  rm -rf "$SCRATCH/repo"
  if [[ $layout == triton ]]; then
    mkdir -p "$SCRATCH/repo/digits/1"; cp "$FIXTURES/digits/model.onnx" "$SCRATCH/repo/digits/1/model.onnx"; model=digits
  else
    mkdir -p "$SCRATCH/repo"; cp "$FIXTURES/digits/model.onnx" "$SCRATCH/repo/model.onnx"; model=wasinn-digits
  fi
  chmod -R a+rX "$SCRATCH/repo"
  local port
  port=$(run_published wasinn-images-kserve /v2/health/ready -v "$SCRATCH/repo:/mnt/models:ro" "$CPU" "${args[@]}") || return 1
  local row; row=$(python3 -c 'import struct, sys; print(list(struct.unpack("64f", open(sys.argv[1], "rb").read(256))))' "$FIXTURES/digits/test_x.f32")
  curl -sS -f -X POST -H 'Content-Type: application/json' \
    -d "{\"inputs\":[{\"name\":\"input\",\"datatype\":\"FP32\",\"shape\":[1,64],\"data\":$row}]}" \
    "http://127.0.0.1:$port/v2/models/$model/infer" |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["outputs"][0]["data"]; print("argmax", d.index(max(d)))'
  echo "label $(od -An -tu1 -N1 "$FIXTURES/digits/test_y.u8" | tr -d ' ')"
  podman stop -t 10 wasinn-images-kserve >/dev/null
  podman rm -f -t 0 wasinn-images-kserve >/dev/null 2>&1
}
check_output "cpu: KServe's ServingRuntime container serves a Triton-layout /mnt/models over OIP (argmax = label 2)" \
  $'argmax 2\nlabel 2' kserve_runtime triton
check_output "cpu: KServe's ServingRuntime container serves a single model.onnx in /mnt/models as the InferenceService's name (argmax = label 2)" \
  $'argmax 2\nlabel 2' kserve_runtime flat
podman rm -f -t 0 wasinn-images-kserve >/dev/null 2>&1
check_licenses cpu "$CPU"

echo "==> $NVIDIA"
if podman image exists "$NVIDIA"; then
  check_output "nvidia: every library of every plugin resolves but libcuda.so.1" '^missing: libcuda.so.1$' \
    podman run --rm --network=none --entrypoint /bin/bash "$NVIDIA" -c \
    'for f in /opt/wasinn/lib/*.so* /opt/wasinn/lib/wasinn/backends/*.so /opt/wasinn/bin/*; do ldd "$f"; done |
     awk "/not found/ {print \$1}" | sort -u | paste -sd" " | sed "s/^/missing: /"'
  gpu_refusal() {
    run_locked "$NVIDIA" run --nn-preload x:onnx:gpu:/digits/model.onnx /guests/run_model.wasm --name x 2>&1
    echo "exit $?"
  }
  check_output "nvidia: target gpu without a GPU: unsupported_operation, no CUDA device visible" \
    'unsupported_operation \(6\): target gpu is not available: no NVIDIA driver.*no CUDA device is visible.*exit 6' \
    bash -c "$(declare -f run_locked gpu_refusal); FIXTURES=$FIXTURES BUILD=$BUILD NVIDIA=$NVIDIA; gpu_refusal | tr '\n' ' '"
  check_output "nvidia: target cpu still runs: 435/450" '^accuracy: 435/450' run_locked "$NVIDIA" "${digits_args[@]}"
  check_output "nvidia: piper speaks on ONNX Runtime's CUDA build (CPU provider): piper-tts's WAV" \
    "^equal to piper-tts's WAV$" speak "$NVIDIA"
  check "nvidia: ONNX Runtime's CUDA provider, ggml's Vulkan module, LiteRT's WebGPU accelerator" \
    podman run --rm --network=none --entrypoint /bin/sh "$NVIDIA" -c \
    'cd /opt/wasinn/lib && ls libonnxruntime_providers_cuda.so libggml-vulkan.so libLiteRtWebGpuAccelerator.so'
  check_licenses nvidia "$NVIDIA"
else
  skip "nvidia image" "not built: ONNX Runtime's CUDA variant is missing (bash scripts/setup.sh --gpu)"
fi

echo "==> $COMPILE"
check_compile_image
check_licenses compile "$COMPILE"

if [[ ${1:-} != --no-build ]]; then
  echo "==> podman save, then load elsewhere"
  wait "$save_pid"
  saved() { cat "$SCRATCH/save_and_load.out"; return "$(cat "$SCRATCH/save_and_load.rc")"; }
  check_output "cpu: --save archive loads into another storage and runs ($(cat "$SCRATCH/save_and_load.s") s, beside the checks)" \
    "^wasinn $VERSION " saved
  echo "==> incremental rebuild"
  ids_before=$(podman image inspect --format '{{.Id}}' "$CPU" "$COMPILE" $(podman image exists "$NVIDIA" && echo "$NVIDIA"))
  start=$SECONDS
  check "images.sh again with nothing changed" bash "$ROOT/scripts/images.sh"
  ids_after=$(podman image inspect --format '{{.Id}}' "$CPU" "$COMPILE" $(podman image exists "$NVIDIA" && echo "$NVIDIA"))
  check_output "... reused every layer ($((SECONDS - start)) s)" '^same$' \
    bash -c "[[ '$ids_before' == '$ids_after' ]] && echo same || echo changed"
fi

total=$((IMAGES_PASSED + IMAGES_FAILED))
pct=100; [[ $total -gt 0 ]] && pct=$((IMAGES_PASSED * 100 / total))
echo
[[ $IMAGES_FAILED -gt 0 ]] && printf 'failed: %s\n' "${IMAGES_FAILED_NAMES[@]}"
echo "$pct% tests passed, $IMAGES_FAILED tests failed out of $total ($IMAGES_SKIPPED skipped)"
[[ $IMAGES_FAILED -eq 0 ]]
