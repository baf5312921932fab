# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# TensorFlow Lite runtime (LiteRT): libLiteRt.so from the PyPI wheel ai-edge-litert, plus the
# crates.io crate tflite (data only: a quantized MNIST model and its reference digits).
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, $DEPS and $DL.
# No registry ships libtensorflowlite_c.so or LiteRT's headers: the plugin declares the LiteRT C
# functions it calls (backends/tensorflowlite/litert_c_api.h); why this route, in
# docs/backends/tensorflow.md.
LITERT_VERSION=2.3.0
TFLITE_CRATE_VERSION=0.9.8

install_tensorflowlite() {
  fetch "https://static.crates.io/crates/tflite/tflite-$TFLITE_CRATE_VERSION.crate" \
    "tflite-$TFLITE_CRATE_VERSION.crate"
  local prefix=$DEPS/litert stamp=$DEPS/litert/.version
  [[ -f $stamp && $(cat "$stamp") == "$LITERT_VERSION" ]] && return
  local whl=ai_edge_litert-$LITERT_VERSION-cp311-cp311-manylinux_2_27_x86_64.whl
  if [[ ! -s $DL/wheels/$whl ]]; then
    say "downloading $whl"
    pip download -q --no-deps --only-binary :all: --platform manylinux_2_27_x86_64 \
      --python-version 3.11 -d "$DL/wheels" "ai-edge-litert==$LITERT_VERSION"
  fi
  rm -rf "$prefix" && mkdir -p "$prefix/lib"
  local tmp; tmp=$(mktemp -d)
  # The runtime and its GPU accelerator (which LiteRT dlopens from its own directory and which
  # finds no device on a machine without a GPU); the Python bindings and NPU plugins stay out.
  unzip -q -o "$DL/wheels/$whl" ai_edge_litert/libLiteRt.so \
    ai_edge_litert/libLiteRtWebGpuAccelerator.so "ai_edge_litert-$LITERT_VERSION.dist-info/licenses/LICENSE" \
    -d "$tmp"
  cp "$tmp"/ai_edge_litert/lib*.so "$prefix/lib/"
  cp "$tmp/ai_edge_litert-$LITERT_VERSION.dist-info/licenses/LICENSE" "$prefix/LICENSE"
  rm -rf "$tmp"
  # The plugin's declarations were checked against these exports (docs/backends/tensorflow.md).
  local sym exports; exports=$(nm -D --defined-only "$prefix/lib/libLiteRt.so")
  for sym in LiteRtCreateEnvironment LiteRtCreateModelFromBuffer LiteRtCreateCompiledModel \
    LiteRtRunCompiledModel LiteRtCreateTensorBufferFromHostMemory; do
    grep -q " T $sym@" <<<"$exports" ||
      { echo "libLiteRt.so $LITERT_VERSION does not export $sym" >&2; exit 1; }
  done
  echo "$LITERT_VERSION" >"$stamp"
  say "LiteRT $LITERT_VERSION -> $prefix"
}
