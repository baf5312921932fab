# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Wasmtime: built from crates.io by cargo as wasinn's own library (the workspace src/Cargo.toml,
# pinned by its Cargo.lock; scripts/build-engine.sh, run by the CMake build). Here only the crates are
# fetched, so that the build needs no network. Rust is Debian's rustc-web 1.96 (Wasmtime 49 needs
# 1.96), unpacked by scripts/deps/rust-web.sh, which runs first.
# Sourced by scripts/fetch-deps.sh, which provides say, $ROOT, $DEPS and $CACHE.
install_wasmtime() {
  local cargo=$DEPS/rust-web/bin/cargo-host
  if [[ ! -x $cargo ]]; then
    say "wasmtime: $cargo not found: fetch rust-web first (scripts/fetch-deps.sh rust-web wasmtime)"
    return 1
  fi
  local stamp=$CACHE/engine/fetched-$(sha256sum "$ROOT/src/Cargo.lock" | cut -c1-16)
  [[ -f $stamp ]] && return
  say "wasmtime: fetching the engine's crates (src/Cargo.lock) from crates.io"
  mkdir -p "$CACHE/engine"
  CARGO_HOME=${WASINN_CARGO_HOME:-$CACHE/engine/cargo-home} \
    "$cargo" fetch -q --locked --manifest-path "$ROOT/src/Cargo.toml"
  touch "$stamp"
}
