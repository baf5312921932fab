# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shared by the opt-in NVIDIA installers in scripts/gpu/ (never by scripts/fetch-deps.sh, whose
# default run stays CPU-only): paths, logging, and the CUDA 13 wheels from PyPI, pinned.
# Sourced; the caller has `set -euo pipefail`.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
DL=$CACHE/dl
DEPS=${WASINN_DEPS:-$ROOT/.deps}
CUDA_WHEELS=$DL/cuda13-wheels
mkdir -p "$DL" "$CUDA_WHEELS"

say() { printf '[gpu] %s\n' "$*"; }

# The CUDA 13 line (driver 580 or newer): what onnxruntime-gpu 1.29.0's "cuda" and "cudnn"
# extras resolve to, plus cuBLAS, which its CUDA provider links. One pin per wheel, so the
# cache key (the list) changes when a version does.
CUDART_WHEEL=nvidia-cuda-runtime==13.5.37   # libcudart.so.13
CUBLAS_WHEEL=nvidia-cublas==13.10.0.20      # libcublas.so.13, libcublasLt.so.13
NVRTC_WHEEL=nvidia-cuda-nvrtc==13.5.37      # libnvrtc.so.13 (dlopened by ORT's fused kernels; cuBLAS needs it)
CUDA_RUNTIME_WHEELS=(
  "$CUDART_WHEEL"
  "$CUBLAS_WHEEL"
  nvidia-curand==10.4.5.25       # libcurand.so.10
  nvidia-cufft==12.5.0.14        # libcufft.so.12 (dlopened by ORT's FFT kernels)
  "$NVRTC_WHEEL"
  nvidia-nvjitlink==13.5.37      # libnvJitLink.so.13 (cuFFT needs it)
)
CUDNN_WHEEL=nvidia-cudnn-cu13==9.28.1.4  # libcudnn*.so.9, 517 MB (ORT's Conv, pooling)
# The compiler side, for building ggml's CUDA module only.
CUDA_BUILD_WHEELS=(  # nvcc first: its version names the toolkit
  nvidia-cuda-nvcc==13.5.37
  nvidia-cuda-crt==13.5.37
  nvidia-cuda-cccl==13.3.5.0.6
)

# pip_wheels SPEC...: downloads the wheels once into $CUDA_WHEELS (pip shows its progress).
pip_wheels() {
  local missing=() spec name ver
  for spec in "$@"; do
    name=${spec%%==*} ver=${spec##*==}
    compgen -G "$CUDA_WHEELS/${name//-/_}-$ver-*.whl" >/dev/null || missing+=("$spec")
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  say "downloading from PyPI (cached in $CUDA_WHEELS): ${missing[*]}"
  # The fixture venv's pip (scripts/fetch-deps.sh makes it), since Debian's python3 has none.
  local py=$DEPS/venv/bin/python
  [[ -x $py ]] || py=python3
  "$py" -m pip download --no-deps --only-binary=:all: --progress-bar on -d "$CUDA_WHEELS" "${missing[@]}"
}

# wheel_file SPEC: the cached wheel's path.
wheel_file() {
  local name=${1%%==*} ver=${1##*==}
  compgen -G "$CUDA_WHEELS/${name//-/_}-$ver-*.whl" | head -n1
}

# unpack_libs DEST SPEC...: every shared library under nvidia/*/lib in the wheels, flat into
# DEST, where their own RUNPATH ($ORIGIN) finds one another; not NVBLAS or FFTW shims (unused).
unpack_libs() {
  local dest=$1; shift
  local spec
  for spec in "$@"; do
    unzip -qo -j "$(wheel_file "$spec")" 'nvidia/*/lib/*.so*' -d "$dest"
  done
  rm -f "$dest"/libnvblas.so* "$dest"/libcufftw.so*
}

# need_tool NAME PACKAGE: installs a Debian package when its tool is missing.
need_tool() {
  command -v "$1" >/dev/null && return
  say "installing Debian package $2 (for $1)"
  local sudo=; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}
