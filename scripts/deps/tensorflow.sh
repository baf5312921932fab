# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# TensorFlow C API: libtensorflow_cc.so.2 (which exports TF_*), libtensorflow_framework.so.2 and
# the tensorflow/c headers, all from the PyPI wheel tensorflow-cpu. The same wheel is installed
# into .deps/venv for fixture generation (scripts/deps/tensorflow.pip pins the same version).
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, $DEPS and $DL.
TF_VERSION=2.17.1

install_tensorflow() {
  local prefix=$DEPS/tensorflow stamp=$DEPS/tensorflow/.version
  [[ -f $stamp && $(cat "$stamp") == "$TF_VERSION" ]] && return
  local whl=tensorflow_cpu-$TF_VERSION-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
  # Into the wheel cache that python_env installs from, so the 220 MB come down once.
  if [[ ! -s $DL/wheels/$whl ]]; then
    say "downloading $whl (about 220 MB, once)"
    pip download -q --no-deps --only-binary :all: --platform manylinux2014_x86_64 \
      --python-version 3.11 -d "$DL/wheels" "tensorflow-cpu==$TF_VERSION"
  fi
  rm -rf "$prefix" && mkdir -p "$prefix/lib" "$prefix/include"
  local tmp; tmp=$(mktemp -d)
  unzip -q -o "$DL/wheels/$whl" 'tensorflow/libtensorflow_cc.so.2' \
    'tensorflow/libtensorflow_framework.so.2' 'tensorflow/include/tensorflow/c/*' \
    'tensorflow/include/tensorflow/core/platform/ctstring*' 'tensorflow/include/tsl/platform/ctstring*' \
    'tensorflow/include/xla/tsl/c/*' \
    -d "$tmp"
  mv "$tmp"/tensorflow/lib*.so.2 "$prefix/lib/"
  cp -r "$tmp"/tensorflow/include/. "$prefix/include/"
  rm -rf "$tmp"
  local sym exports; exports=$(nm -D --defined-only "$prefix/lib/libtensorflow_cc.so.2")
  for sym in TF_LoadSessionFromSavedModel TF_SessionRun TF_NewGraph TF_GraphImportGraphDef; do
    grep -q " T $sym@" <<<"$exports" ||
      { echo "libtensorflow_cc.so.2 $TF_VERSION does not export $sym" >&2; exit 1; }
  done
  [[ -f $prefix/include/tensorflow/c/c_api.h ]] || { echo "no tensorflow/c/c_api.h in the wheel" >&2; exit 1; }
  echo "$TF_VERSION" >"$stamp"
  say "tensorflow C API $TF_VERSION -> $prefix"
}
