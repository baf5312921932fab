# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Wasmtime: built from crates.io by cargo as wasinn's own library (the workspace src/Cargo.toml,
# pinned by its Cargo.lock; scripts/build-engine.sh, run by the CMake build). Here only the crates are
# fetched, so that the build needs no network. Rust comes from rustup (1.95 builds Wasmtime 48).
# Sourced by scripts/fetch-deps.sh, which provides say, $ROOT and $CACHE.
WASMTIME_RUST_MIN=1.95

install_wasmtime() {
  command -v cargo >/dev/null || PATH=$HOME/.cargo/bin:$PATH
  if ! command -v cargo >/dev/null; then
    say "wasmtime: cargo not found: install Rust $WASMTIME_RUST_MIN or later with rustup"
    return 1
  fi
  local have; have=$(rustc --version | awk '{print $2}')
  if [[ $(printf '%s\n%s\n' "$WASMTIME_RUST_MIN" "$have" | sort -V | head -1) != "$WASMTIME_RUST_MIN" ]]; then
    say "wasmtime: rustc $have is older than $WASMTIME_RUST_MIN, which Wasmtime 48 needs"
    return 1
  fi
  local stamp=$CACHE/engine/fetched-$(sha256sum "$ROOT/src/Cargo.lock" | cut -c1-16)
  [[ -f $stamp ]] && return
  say "wasmtime: fetching the engine's crates (src/Cargo.lock) from crates.io"
  mkdir -p "$CACHE/engine"
  CARGO_HOME=${WASINN_CARGO_HOME:-$CACHE/engine/cargo-home} \
    cargo fetch -q --locked --manifest-path "$ROOT/src/Cargo.toml"
  touch "$stamp"
}
