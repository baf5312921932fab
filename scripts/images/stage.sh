# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by scripts/images.sh (needs ROOT, BUILD): lays out the build contexts of the runtime
# images from the build and the framework prefixes, and works out which Debian packages they need.
#   stage_runtime DIR   DIR/wasinn: `cmake --install --strip` to /opt/wasinn; DIR/frameworks: the
#                       CPU framework libraries the plugins load, for /opt/wasinn/lib (the plugins'
#                       RUNPATH starts with $ORIGIN/../.., that directory)
#   runtime_packages DIR  the Debian packages whose libraries DIR's ELF files need (ldd closure)
#   stage_nvidia DIR    DIR/gpu: the GPU variants for /opt/wasinn/lib; prints why not and fails
#                       when ONNX Runtime's CUDA variant is not installed (setup.sh --gpu)
# Contexts are kept in step with rsync, which leaves unchanged files (and their mtimes, part of
# podman's layer-cache key) alone, so an unchanged build reuses every layer.
DEPS_DIR=${WASINN_DEPS:-$ROOT/.deps}

# DEST SRC...: DEST holds exactly the SRCs (symlinks kept as symlinks), hard-linked to them where
# the file system allows (--link-dest per source directory): no gigabyte copy per checkout.
_sync_into() {
  local dest=$1; shift
  mkdir -p "$dest"
  local links=() d
  while read -r d; do links+=("--link-dest=$d"); done < <(for f in "$@"; do dirname "$(readlink -f "$f")"; done | sort -u)
  rsync -a --delete "${links[@]}" "$@" "$dest/"
}

stage_runtime() {
  local dir=$1 tmp
  tmp=$(mktemp -d)
  # Installed to a scratch prefix first: cmake --install rewrites every stripped file, and rsync
  # --checksum then carries only real changes into the context.
  cmake --install "$BUILD" --prefix "$tmp/opt/wasinn" --strip >/dev/null
  mkdir -p "$dir/wasinn"
  rsync -rlpgoD --checksum --delete "$tmp/" "$dir/wasinn/"  # no -t: unchanged files keep their mtimes
  rm -rf "$tmp"
  local d=$DEPS_DIR fw=()
  fw+=("$d"/onnxruntime/lib/libonnxruntime.so*)
  # OpenVINO: the core, the CPU plugin and the meta plugins (AUTO, HETERO, BATCH), the IR
  # reader (the plugin takes .xml/.bin only) and TBB; not the Intel GPU/NPU plugins or the
  # ONNX, TensorFlow, PaddlePaddle, PyTorch, JAX or GGUF readers.
  local ov=$d/openvino/openvino/libs
  fw+=("$ov"/libopenvino.so.* "$ov"/libopenvino_ir_frontend.so.* "$ov"/libopenvino_intel_cpu_plugin.so
       "$ov"/libopenvino_auto_plugin.so "$ov"/libopenvino_hetero_plugin.so
       "$ov"/libopenvino_auto_batch_plugin.so "$ov"/libtbb*.so.* "$ov"/libhwloc.so.*)
  fw+=("$d"/tensorflow/lib/libtensorflow_cc.so.2 "$d"/tensorflow/lib/libtensorflow_framework.so.2)
  fw+=("$d"/litert/lib/libLiteRt.so)
  # llama.cpp: libllama, ggml and ggml's CPU module; the Vulkan module is the nvidia image's.
  local l
  for l in "$d"/llamacpp-dl/lib/lib*.so*; do
    [[ $(basename "$l") == libggml-vulkan.so ]] || fw+=("$l")
  done
  local f
  for f in "${fw[@]}"; do
    [[ -e $f ]] || { echo "images: $f is missing (bash scripts/setup.sh installs it)" >&2; return 1; }
  done
  _sync_into "$dir/frameworks" "${fw[@]}"
}

# The ELF files under DIR, resolved as they will be in the image (frameworks beside the plugins),
# mapped to the Debian packages owning the system libraries they need. A library nobody provides
# fails the build, naming it; libcuda.so.1 is the NVIDIA container toolkit's to inject.
runtime_packages() {
  local dir; dir=$(cd "$1" && pwd)
  # ldd over a gigabyte of libraries takes a while: the answer is kept per content listing.
  local key; key=$(cd "$dir" && find . -path ./LICENSES -prune -o -type f -printf '%P %s %T@\n' | sort | sha256sum | cut -c1-16)
  local memo=$IMAGES_STATE/runtime-packages-$key
  if [[ -s $memo ]]; then cat "$memo"; return; fi
  _runtime_packages_of "$dir" >"$memo.part" || { rm -f "$memo.part"; return 1; }
  mv "$memo.part" "$memo" && cat "$memo"
}

_runtime_packages_of() {
  local dir=$1
  local libpath="$dir/frameworks:$dir/gpu:$dir/wasinn/opt/wasinn/lib"
  # Without it the pipeline below finds no ELF file and the image would lack its libraries.
  command -v file >/dev/null || { echo "images: 'file' is missing: run bash scripts/setup.sh (scripts/images/images.apt)" >&2; return 1; }
  local needed
  needed=$(find "$dir" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
    xargs -0 file -L | awk -F: '/ELF/ {print $1}' |
    LD_LIBRARY_PATH=$libpath xargs -r -n1 ldd 2>/dev/null | awk '$2 == "=>" {print $1, $3}' | sort -u)
  local missing; missing=$(awk '$2 == "not" && $1 != "libcuda.so.1" {print $1}' <<<"$needed" | sort -u)
  if [[ -n $missing ]]; then
    echo "images: no library for: $missing" >&2; return 1
  fi
  local paths; paths=$(awk '$2 ~ /^\// {print $2}' <<<"$needed" | grep -v -e "^$dir" -e "^$DEPS_DIR" \
    -e "^$(readlink -f "$DEPS_DIR")" | sort -u)
  local p pkgs=()
  for p in $paths; do
    local real; real=$(readlink -f "$p")
    # dpkg knows a file by the path its package installed, /usr/lib or /lib (merged /usr).
    local owner; owner=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null ||
      dpkg -S "/usr$real" 2>/dev/null) || { echo "images: no Debian package owns $real" >&2; return 1; }
    pkgs+=("${owner%%:*}")
  done
  # The remote backend's https:// reaches servers with Debian's CA bundle (never the host's).
  printf '%s\n' "${pkgs[@]}" ca-certificates | sort -u
}

stage_nvidia() {
  local dir=$1 d=$DEPS_DIR
  local cuda=$d/onnxruntime-cuda-1.29.0/lib
  if [[ ! -e $cuda/libonnxruntime_providers_cuda.so ]]; then
    echo "ONNX Runtime's CUDA variant is not installed (bash scripts/setup.sh --gpu, 1.4 GB of downloads)"
    return 1
  fi
  # The CUDA build of the same ONNX Runtime (it replaces the CPU one) with its providers and the
  # CUDA runtime, cuBLAS and cuDNN from NVIDIA's wheels; ggml's Vulkan module and LiteRT's WebGPU
  # accelerator, which the NVIDIA toolkit's Vulkan ICD (capability `graphics`) serves.
  local gpu=("$cuda"/lib*.so* "$d"/llamacpp-dl/lib/libggml-vulkan.so "$d"/litert/lib/libLiteRtWebGpuAccelerator.so)
  [[ -d $d/llamacpp-cuda/lib ]] && gpu+=("$d"/llamacpp-cuda/lib/libggml-cuda.so)
  _sync_into "$dir/gpu" "${gpu[@]}" >&2
}
