#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Opt-in (scripts/setup.sh --gpu): ONNX Runtime's CUDA execution provider for the onnxruntime
# plugin, in its own prefix .deps/onnxruntime-cuda-<ORT version>/lib, which the default setup
# never touches:
#   libonnxruntime.so.1                   the same ORT core as .deps/onnxruntime (a copy: ORT
#                                         loads its providers from the core's own folder)
#   libonnxruntime_providers_{shared,cuda}.so  the CUDA 13 provider built with that exact core
#                                         (the npm GPU add-on of the package the default uses)
#   libcudart, libcublas*, libcurand, libcufft, libnvrtc, libnvJitLink, libcudnn*  (PyPI wheels)
# libcuda.so.1 is the NVIDIA driver's and is never installed here. The plugin build uses this
# prefix when it exists (backends/onnxruntime/CMakeLists.txt). Idempotent; downloads cached.
#   scripts/gpu/onnxruntime-cuda.sh [--no-cudnn]   (--no-cudnn: 517 MB less; no Conv on the GPU)
set -euo pipefail
source "$(dirname "$0")/common.sh"
# ORT_VERSION, ORT_NPM_PACKAGE, ORT_NPM_VERSION: one pin for the CPU core and its CUDA provider.
source "$ROOT/scripts/deps/onnxruntime.sh"

with_cudnn=1
[[ ${1:-} == --no-cudnn ]] && with_cudnn=0
wheels=("${CUDA_RUNTIME_WHEELS[@]}")
[[ $with_cudnn == 1 ]] && wheels+=("$CUDNN_WHEEL")

prefix=$DEPS/onnxruntime-cuda-$ORT_VERSION
gpu_npm=$ORT_NPM_PACKAGE.linux-x64-gpu
key="ort $ORT_VERSION npm $gpu_npm@$ORT_NPM_VERSION wheels ${wheels[*]}"
if [[ -f $prefix/.version && $(cat "$prefix/.version") == "$key" ]]; then
  say "onnxruntime CUDA provider already in $prefix"
  exit 0
fi

bash "$ROOT/scripts/fetch-deps.sh" onnxruntime  # the core this provider pairs with
need_tool patchelf patchelf
need_tool unzip unzip

tgz=$gpu_npm-$ORT_NPM_VERSION.tgz
if [[ ! -s $DL/$tgz ]]; then
  say "downloading $tgz from npm (about 180 MB, once)"
  (cd "$DL" && npm pack -q "$gpu_npm@$ORT_NPM_VERSION" >/dev/null 2>&1)
fi
pip_wheels "${wheels[@]}"

say "assembling $prefix"
rm -rf "$prefix" && mkdir -p "$prefix/lib"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tar -xzf "$DL/$tgz" -C "$tmp" package/Plugins/Linux/x64
cp "$tmp"/package/Plugins/Linux/x64/libonnxruntime_providers_{shared,cuda}.so "$prefix/lib/"
grep -qa "^$ORT_VERSION\$" <(strings "$prefix/lib/libonnxruntime_providers_cuda.so") ||
  { echo "the CUDA provider in $tgz is not for ONNX Runtime $ORT_VERSION" >&2; exit 1; }
cp "$DEPS/onnxruntime/lib/libonnxruntime.so.$ORT_VERSION" "$prefix/lib/"
ln -sf "libonnxruntime.so.$ORT_VERSION" "$prefix/lib/libonnxruntime.so.1"
ln -sf libonnxruntime.so.1 "$prefix/lib/libonnxruntime.so"
ln -s ../../onnxruntime/include "$prefix/include"
unpack_libs "$prefix/lib" "${wheels[@]}"
# The provider has no RUNPATH: without one it would look for libcudart.so.13 and the rest only
# in the system's folders, not beside itself.
patchelf --set-rpath '$ORIGIN' "$prefix/lib/libonnxruntime_providers_cuda.so"
echo "$key" >"$prefix/.version"
say "onnxruntime $ORT_VERSION CUDA provider -> $prefix ($(du -sh "$prefix" | cut -f1))"
say "rebuild (cmake --build build) so the plugin loads ONNX Runtime from there"
