# Wasmtime C API: library from the PyPI wheel, headers from the crates.io crate (same version).
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, $DEPS and $DL.
WASMTIME_VERSION=50.0.1

install_wasmtime() {
  local prefix=$DEPS/wasmtime stamp=$DEPS/wasmtime/.version
  [[ -f $stamp && $(cat "$stamp") == "$WASMTIME_VERSION" ]] && return
  local whl=wasmtime-$WASMTIME_VERSION-py3-none-manylinux1_x86_64.whl
  if [[ ! -s $DL/$whl ]]; then
    say "downloading $whl"
    pip download -q --no-deps --only-binary :all: --platform manylinux1_x86_64 \
      --python-version 3.11 -d "$DL" "wasmtime==$WASMTIME_VERSION"
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

