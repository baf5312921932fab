#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds wasinn's container images with podman from the project's own build (docs/deployment.md):
#   wasinn:VERSION-cpu      the CLI, libwasinn, every CPU plugin and the framework libraries they
#                           load, headers and CMake package; non-root; ENTRYPOINT ["wasinn"]
#   wasinn:VERSION-nvidia   the cpu image plus the GPU variants (ONNX Runtime's CUDA provider and
#                           the CUDA wheels' libraries, ggml's Vulkan module, LiteRT's WebGPU
#                           accelerator); libcuda.so.1 comes from the NVIDIA container toolkit
#   wasinn:VERSION-compile  clang/lld/wasi-libc, node with jco, the guest headers and WIT: builds
#                           wasi-nn guests and components
# No registry is reachable and HTTPS fails inside containers here, so nothing is pulled or
# downloaded in a build: the bases are Debian root file systems made by mmdebstrap from the host's
# apt mirror, and everything else is built on the host and copied in. Incremental: unchanged
# inputs reuse every layer, so a second run takes seconds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
usage() {
  cat <<'EOF'
usage: bash scripts/images.sh [--only cpu,nvidia,compile] [--save DIR] [--sizes]
  Builds the images wasinn:VERSION-cpu, -nvidia and -compile (all three by default) with podman,
  from build/ (set up and built first if missing). Images and podman's state live under
  ~/.cache/wasinn/containers (WASINN_IMAGES_STATE); the machine's podman configuration is untouched.
  --only LIST   build only these images (the nvidia image needs the cpu image; it is built too)
  --save DIR    also write each image as DIR/wasinn-VERSION-NAME.tar.zst (podman save, docker
                archive, zstd): `zstd -d < F | podman load` (or docker load, or containerd's
                ctr images import) on an air-gapped host
  --sizes       print each image's size by layer (what dominates) after building
  The nvidia image's GPU libraries come from `bash scripts/setup.sh --gpu` (ONNX Runtime's CUDA
  variant, 2.3 GB); without them it is skipped with that advice.
  WASINN_IMAGES_REFRESH=1 remakes the Debian bases (security updates);
  WASINN_IMAGES_COMPILE_RUST=0 leaves Rust out of the compile image (747 MB instead of 1.4 GB).
EOF
}
only=cpu,nvidia,compile save_dir= sizes=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) only=${2:?--only needs a list, e.g. cpu,compile}; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --save) save_dir=${2:?--save needs a directory}; shift 2 ;;
    --save=*) save_dir=${1#--save=}; shift ;;
    --sizes) sizes=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "images.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
want() { [[ ,$only, == *,$1,* ]]; }
for name in ${only//,/ }; do
  case $name in cpu|nvidia|compile) ;; *) echo "images.sh: no image '$name' (cpu, nvidia, compile)" >&2; exit 2 ;; esac
done
want nvidia && ! want cpu && only=cpu,$only
step() { printf '\n==> %s\n' "$*"; }

step "Host packages (scripts/images/images.apt)"
bash "$ROOT/scripts/apt-packages.sh" "$ROOT/scripts/images/images.apt"
source "$ROOT/scripts/images/podman-env.sh"
source "$ROOT/scripts/images/rootfs.sh"
source "$ROOT/scripts/images/stage.sh"
source "$ROOT/scripts/images/licenses.sh"
source "$ROOT/scripts/images/compile.sh"
if ! why=$(podman_usable); then echo "images.sh: $why" >&2; exit 1; fi

step "Build -> $BUILD"
if [[ ! -x $BUILD/bin/wasinn ]]; then
  bash "$ROOT/scripts/setup.sh" --no-example
else
  cmake --build "$BUILD"
fi
VERSION=$(sed -n 's/^#define WASINN_VERSION_STRING "\(.*\)"/\1/p' "$BUILD/include/wasinn/version.h")
REVISION=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# The OCI source label: the repository a published build came from (empty when there is none).
SOURCE=${WASINN_IMAGE_SOURCE:-$(git -C "$ROOT" remote get-url origin 2>/dev/null || true)}
CONTEXTS=$BUILD/images
mkdir -p "$CONTEXTS"

# build_image NAME CONTAINERFILE CONTEXT BUILD-ARG...: podman build with the layer cache, tagged
# wasinn:VERSION-NAME. Skipped outright when nothing it reads changed (the Containerfile, the
# arguments, the base image and every context file's size and mtime, which the stage functions
# keep for unchanged files): even a cached podman build re-reads gigabytes of context.
build_image() {
  local name=$1 file=$2 context=$3; shift 3
  local ref=localhost/wasinn:$VERSION-$name args=() a base=
  for a in "$@" "VERSION=$VERSION" "REVISION=$REVISION" "SOURCE=$SOURCE"; do
    args+=(--build-arg "$a")
    [[ $a == BASE=* ]] && base=${a#BASE=}
  done
  # Directories' times say only when an entry last came or went: fixed, so two checkouts staging
  # the same files make the same layers (podman's cache key includes them).
  find "$context" -type d -exec touch -h -d @0 {} +
  local stamp=$IMAGES_STATE/$name.inputs inputs
  inputs=$( { cat "$file"; printf '%s\n' "${args[@]}"; podman image inspect --format '{{.Id}}' "$base";
              (cd "$context" && find . -printf '%P %s %T@ %l\n' | sort); } | sha256sum)
  if podman image exists "$ref" && [[ -f $stamp && $(cat "$stamp") == "$inputs" ]]; then
    echo "wasinn:$VERSION-$name is up to date"
    return
  fi
  local start=$SECONDS
  podman build --quiet --pull=never --network=host --layers -f "$file" "${args[@]}" -t "$ref" "$context" >/dev/null
  echo "$inputs" >"$stamp"
  echo "wasinn:$VERSION-$name built in $((SECONDS - start)) s ($(podman image inspect --format '{{.Size}}' "$ref" | numfmt --to=iec-i --suffix=B))"
}

built=()
if want cpu; then
  step "wasinn:$VERSION-cpu"
  stage_runtime "$CONTEXTS/cpu"
  stage_licenses cpu "$CONTEXTS/cpu/LICENSES"
  # libvulkan1: the Vulkan loader the llama.cpp and TFLite plugins ask for GPUs (none here; the
  # nvidia image's GPU modules need it too, and it is 0.4 MB). The piper plugin links espeak-ng
  # in and its data lies beside it (lib/wasinn/backends/piper-espeak-ng-data, by cmake --install).
  runtime_pkgs=$(runtime_packages "$CONTEXTS/cpu")
  base=$(ensure_rootfs runtime $runtime_pkgs libvulkan1)
  build_image cpu "$ROOT/images/Containerfile.cpu" "$CONTEXTS/cpu" "BASE=$base" \
    "LICENSES_SPDX=$(licenses_spdx cpu)"
  built+=(cpu)
fi
if want nvidia; then
  step "wasinn:$VERSION-nvidia"
  if why=$(stage_nvidia "$CONTEXTS/nvidia"); then
    stage_licenses nvidia "$CONTEXTS/nvidia/LICENSES"
    build_image nvidia "$ROOT/images/Containerfile.nvidia" "$CONTEXTS/nvidia" \
      "BASE=localhost/wasinn:$VERSION-cpu" "LICENSES_SPDX=$(licenses_spdx nvidia)"
    built+=(nvidia)
  else
    echo "skipped: $why"
  fi
fi
if want compile; then
  step "wasinn:$VERSION-compile"
  stage_compile "$CONTEXTS/compile"
  stage_licenses compile "$CONTEXTS/compile/LICENSES"
  compile_pkgs=$(compile_packages)
  base=$(ensure_rootfs compile $compile_pkgs)
  build_image compile "$ROOT/images/Containerfile.compile" "$CONTEXTS/compile" "BASE=$base" \
    "LICENSES_SPDX=$(licenses_spdx compile)"
  built+=(compile)
fi

# The images these tags held before are now untagged: drop them, or every rebuild of the nvidia
# image would keep another 2.5 GB (only this script's own storage is touched).
podman image prune -f >/dev/null
if [[ $sizes == 1 ]]; then
  for name in "${built[@]}"; do
    step "wasinn:$VERSION-$name by layer (largest first)"
    image_layers "localhost/wasinn:$VERSION-$name"
  done
fi
if [[ -n $save_dir ]]; then
  mkdir -p "$save_dir"
  for name in "${built[@]}"; do
    out=$save_dir/wasinn-$VERSION-$name.tar.zst
    step "podman save -> $out"
    podman save --format docker-archive "localhost/wasinn:$VERSION-$name" | zstd -q -T0 -3 -f -o "$out"
    echo "$(du -h "$out" | cut -f1)  $out"
  done
fi
printf '\nimages: %s\n' "$(for n in "${built[@]}"; do printf 'wasinn:%s-%s ' "$VERSION" "$n"; done)"
