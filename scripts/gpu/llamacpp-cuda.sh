#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Opt-in (scripts/setup.sh --gpu): ggml's CUDA backend as a run-time loadable module
# (GGML_BACKEND_DL), built from the same llama.cpp source as the default build
# (scripts/deps/llamacpp.sh), installed as .deps/llamacpp-cuda/lib/libggml-cuda.so beside the
# CUDA 13 runtime and cuBLAS it needs; the llama.cpp plugin loads modules from there. The
# compiler comes from PyPI too (nvidia-cuda-nvcc, -crt, -cccl, nvidia-nvvm), assembled into a
# toolkit folder .deps/cuda-toolkit-<version>. libcuda.so.1 is the NVIDIA driver's.
#   WASINN_CUDA_ARCHS="86;89" scripts/gpu/llamacpp-cuda.sh
# WASINN_CUDA_ARCHS: CMake CUDA architectures; default the current generations (Turing to
# Blackwell, as real code, plus PTX for newer ones); "native" builds for the GPUs present only
# (needs the driver), which is fastest. WASINN_JOBS: parallel compile jobs (default 2).
set -euo pipefail
source "$(dirname "$0")/common.sh"
# LLAMACPP_PY_VERSION, LLAMACPP_BUILD_NUMBER, LLAMACPP_COMMIT: the source the plugin's ggml is.
source "$ROOT/scripts/deps/llamacpp.sh"

archs=${WASINN_CUDA_ARCHS:-75-real;80-real;86-real;89-real;90-real;120a-real;120-virtual}
nvcc_ver=${CUDA_BUILD_WHEELS[0]##*==}
toolkit=$DEPS/cuda-toolkit-$nvcc_ver
prefix=$DEPS/llamacpp-cuda
key="llama-cpp-python $LLAMACPP_PY_VERSION b$LLAMACPP_BUILD_NUMBER cuda $nvcc_ver archs $archs backend-dl no-vmm"
if [[ -f $prefix/.version && $(cat "$prefix/.version") == "$key" ]]; then
  say "ggml CUDA module already in $prefix"
  exit 0
fi
need_tool unzip unzip
need_tool patchelf patchelf

# The toolkit: nvcc and its parts, the runtime's and cuBLAS's headers and libraries.
toolkit_wheels=("${CUDA_BUILD_WHEELS[@]}" nvidia-nvvm==$nvcc_ver "$CUDART_WHEEL" "$CUBLAS_WHEEL" "$NVRTC_WHEEL")
tk_key="${toolkit_wheels[*]}"
if [[ ! -f $toolkit/.version || $(cat "$toolkit/.version") != "$tk_key" ]]; then
  pip_wheels "${toolkit_wheels[@]}"
  say "assembling the CUDA toolkit from wheels -> $toolkit"
  rm -rf "$toolkit" && mkdir -p "$toolkit"
  tmp=$(mktemp -d)
  for spec in "${toolkit_wheels[@]}"; do unzip -qo "$(wheel_file "$spec")" 'nvidia/cu13/*' -d "$tmp"; done
  mv "$tmp"/nvidia/cu13/* "$toolkit/" && rm -rf "$tmp"
  # Link-time names (CMake's FindCUDAToolkit looks for them) and the lib64 some tools expect.
  for l in cudart cublas cublasLt nvrtc; do
    ln -sf "$(basename "$(compgen -G "$toolkit/lib/lib$l.so.*" | head -n1)")" "$toolkit/lib/lib$l.so"
  done
  ln -sfn lib "$toolkit/lib64"
  echo "$tk_key" >"$toolkit/.version"
fi
"$toolkit/bin/nvcc" --version | tail -n2

# The same source as the plugin's llama.cpp: the sdist scripts/deps/llamacpp.sh pins, fetched and
# checked there, extracted here into a tree of this build's own.
sdist=$DL/llama_cpp_python-$LLAMACPP_PY_VERSION.tar.gz
[[ -s $sdist ]] || bash "$ROOT/scripts/fetch-deps.sh" llamacpp
echo "$LLAMACPP_SDIST_SHA256  $sdist" | sha256sum -c --quiet - ||
  { echo "checksum mismatch for $sdist" >&2; exit 1; }
work=$CACHE/build/llamacpp-cuda-$LLAMACPP_PY_VERSION
src=$work/llama_cpp_python-$LLAMACPP_PY_VERSION/vendor/llama.cpp
build=$work/build
if [[ ! -f $src/CMakeLists.txt ]]; then
  rm -rf "$work" && mkdir -p "$work"
  tar -xzf "$sdist" -C "$work"
fi
say "building ggml's CUDA module for architectures $archs (long; log in $work/build.log)"
# GGML_CUDA_NO_VMM: the VMM memory pool links libcuda.so at build time, and no PyPI wheel has
# the toolkit's driver stub; ggml then uses its plain pool. GGML_NATIVE=OFF: no host -march.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$toolkit/bin/nvcc" -DCUDAToolkit_ROOT="$toolkit" \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" \
  -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON -DGGML_CPU=OFF -DGGML_CUDA=ON -DGGML_CUDA_NO_VMM=ON \
  -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_COMMON=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DGGML_CCACHE=OFF \
  -DLLAMA_BUILD_NUMBER="$LLAMACPP_BUILD_NUMBER" -DLLAMA_BUILD_COMMIT="${LLAMACPP_COMMIT:0:9}" \
  >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log" >&2; exit 1; }
start=$SECONDS
cmake --build "$build" -j "${WASINN_JOBS:-2}" --target ggml-cuda >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log" >&2; exit 1; }
say "compiled in $(( (SECONDS - start) / 60 )) min"

rm -rf "$prefix" && mkdir -p "$prefix/lib"
cp "$build"/bin/libggml-cuda.so "$prefix/lib/"
# Its RUNPATH becomes $ORIGIN (the build's points into the build tree): it finds the CUDA
# runtime and cuBLAS beside it; libggml-base is the plugin's, already loaded when ggml loads it.
patchelf --set-rpath '$ORIGIN' "$prefix/lib/libggml-cuda.so"
unpack_libs "$prefix/lib" "$CUDART_WHEEL" "$CUBLAS_WHEEL" "$NVRTC_WHEEL"
echo "$key" >"$prefix/.version"
say "ggml CUDA module -> $prefix"
