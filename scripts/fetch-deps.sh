#!/usr/bin/env bash
# Fetches wasinn's native dependencies from package registries into .deps/ (one prefix per
# dependency), with downloads cached under ~/.cache/wasinn/dl so a second run fetches nothing.
# Every version is pinned here, in one place.
set -euo pipefail

WASMTIME_VERSION=50.0.1
ORT_VERSION=1.29.0
ORT_NPM_PACKAGE=com.github.asus4.onnxruntime
ORT_NPM_VERSION=0.4.9 # carries ORT 1.29.0: Linux x64 library and C/C++ headers (API 29)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEPS=${WASINN_DEPS:-$ROOT/.deps}
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
DL=$CACHE/dl
mkdir -p "$DEPS" "$DL"

say() { printf '[fetch-deps] %s\n' "$*"; }

# fetch URL FILE: download once into the cache; a partial download never counts as done.
fetch() {
  local url=$1 out=$DL/$2
  if [[ ! -s $out ]]; then
    say "downloading $2"
    curl -sSfL --retry 3 -o "$out.part" "$url"
    mv "$out.part" "$out"
  fi
}

# --- Wasmtime C API: library from the PyPI wheel, headers from the crates.io crate (same version).
install_wasmtime() {
  local prefix=$DEPS/wasmtime stamp=$DEPS/wasmtime/.version
  [[ -f $stamp && $(cat "$stamp") == "$WASMTIME_VERSION" ]] && return
  local whl=wasmtime-$WASMTIME_VERSION-py3-none-manylinux1_x86_64.whl
  if [[ ! -s $DL/$whl ]]; then
    say "downloading $whl"
    pip download -q --no-deps --only-binary :all: --platform manylinux1_x86_64 \
      --python-version 3 -d "$DL" "wasmtime==$WASMTIME_VERSION"
  fi
  local crate=wasmtime-c-api-impl-$WASMTIME_VERSION.crate
  fetch "https://static.crates.io/crates/wasmtime-c-api-impl/$crate" "$crate"
  rm -rf "$prefix" && mkdir -p "$prefix/lib" "$prefix/include"
  local tmp; tmp=$(mktemp -d)
  unzip -q -o "$DL/$whl" 'wasmtime/linux-x86_64/_libwasmtime.so' -d "$tmp"
  # The wheel's library has no SONAME; the CMake target links it by path with an rpath.
  cp "$tmp/wasmtime/linux-x86_64/_libwasmtime.so" "$prefix/lib/libwasmtime.so"
  tar -xzf "$DL/$crate" -C "$tmp"
  cmake -DWASMTIME_HEADER_DST="$prefix/include" \
    -P "$tmp/wasmtime-c-api-impl-$WASMTIME_VERSION/cmake/install-headers.cmake" >/dev/null
  rm -rf "$tmp"
  echo "$WASMTIME_VERSION" >"$stamp"
  say "wasmtime $WASMTIME_VERSION -> $prefix"
}

# --- ONNX Runtime: headers and library from one npm tarball, so their API versions match.
install_onnxruntime() {
  local prefix=$DEPS/onnxruntime stamp=$DEPS/onnxruntime/.version
  [[ -f $stamp && $(cat "$stamp") == "$ORT_VERSION" ]] && return
  local tgz=$ORT_NPM_PACKAGE-$ORT_NPM_VERSION.tgz
  if [[ ! -s $DL/$tgz ]]; then
    say "downloading $tgz (about 150 MB, once)"
    (cd "$DL" && npm pack -q "$ORT_NPM_PACKAGE@$ORT_NPM_VERSION" >/dev/null 2>&1)
  fi
  rm -rf "$prefix" && mkdir -p "$prefix/lib" "$prefix/include"
  local tmp; tmp=$(mktemp -d)
  local hdr='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
  tar -xzf "$DL/$tgz" -C "$tmp" package/Plugins/Linux/x64 "$hdr"
  cp "$tmp/$hdr"/*.h "$prefix/include/"
  cp "$tmp/package/Plugins/Linux/x64/libonnxruntime.so" "$prefix/lib/libonnxruntime.so.$ORT_VERSION"
  ln -sf "libonnxruntime.so.$ORT_VERSION" "$prefix/lib/libonnxruntime.so.1"
  ln -sf "libonnxruntime.so.1" "$prefix/lib/libonnxruntime.so"
  rm -rf "$tmp"
  grep -q "define ORT_API_VERSION 29" "$prefix/include/onnxruntime_c_api.h" ||
    { echo "unexpected ORT header version" >&2; exit 1; }
  echo "$ORT_VERSION" >"$stamp"
  say "onnxruntime $ORT_VERSION -> $prefix"
}

install_wasmtime
install_onnxruntime
