# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# OpenVINO runtime: C++ headers, CMake config and libraries from the PyPI wheel (the wheel has
# shipped all three since 2024.4). Sourced by scripts/fetch-deps.sh, which provides say, $DEPS
# and $DL. The fixture venv installs the same version from scripts/deps/openvino.pip.
OPENVINO_VERSION=2026.4.1
# 2025.x and later wheels are tagged manylinux_2_28 only (Debian 12 has glibc 2.36).
OPENVINO_PLATFORM=manylinux_2_28_x86_64

# Layout kept as in the wheel, because OpenVINOConfig.cmake finds its libraries relative to
# itself: $DEPS/openvino/openvino/{cmake,include,libs}; OpenVINO_DIR is .../openvino/cmake.
install_openvino() {
  local prefix=$DEPS/openvino stamp=$DEPS/openvino/.version
  [[ -f $stamp && $(cat "$stamp") == "$OPENVINO_VERSION" ]] && return
  local whl
  whl=$(ls "$DL"/openvino-"$OPENVINO_VERSION"-*-cp311-cp311-"$OPENVINO_PLATFORM".whl 2>/dev/null | head -n1 || true)
  if [[ -z $whl ]]; then
    say "downloading the openvino $OPENVINO_VERSION wheel (about 60 MB, once)"
    pip download -q --no-deps --only-binary :all: --platform "$OPENVINO_PLATFORM" \
      --python-version 3.11 --implementation cp -d "$DL" "openvino==$OPENVINO_VERSION"
    whl=$(ls "$DL"/openvino-"$OPENVINO_VERSION"-*-cp311-cp311-"$OPENVINO_PLATFORM".whl | head -n1)
  fi
  rm -rf "$prefix" && mkdir -p "$prefix"
  unzip -q -o "$whl" 'openvino/cmake/*' 'openvino/include/*' 'openvino/libs/*' -d "$prefix"
  # The runtime library is versioned by release (libopenvino.so.2641); check it is there so a
  # renamed wheel layout fails here, not at link time.
  local tag; tag=$(awk -F. '{ printf "%s%s%s", substr($1, 3), $2, $3 }' <<<"$OPENVINO_VERSION")
  [[ -f $prefix/openvino/libs/libopenvino.so.$tag && -f $prefix/openvino/cmake/OpenVINOConfig.cmake &&
     -f $prefix/openvino/include/openvino/openvino.hpp ]] ||
    { echo "unexpected layout of $whl" >&2; exit 1; }
  echo "$OPENVINO_VERSION" >"$stamp"
  say "openvino $OPENVINO_VERSION -> $prefix"
}
