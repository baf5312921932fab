#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the Rust compatibility guests with Debian's rustc 1.63 (scripts/deps/rust-guest.sh):
#   build.sh CARGO_WASM32 OUT_DIR [TARGET_DIR]   -> OUT_DIR/compat_*.wasm
#   build.sh --fetch-only CARGO_WASM32           -> crates vendored, nothing built
# The crates pinned in Cargo.lock are vendored once per lock file under
# ~/.cache/wasinn/cargo/vendor/<hash> (cargo 0.66 reaches crates.io's sparse index only behind
# -Z, so only that step goes online); builds then run offline from the vendored sources.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fetch_only=0
if [[ ${1:-} == --fetch-only ]]; then fetch_only=1; shift; fi
cargo=${1:?usage: build.sh [--fetch-only] CARGO_WASM32 [OUT_DIR [TARGET_DIR]]}
cache=${WASINN_CACHE:-$HOME/.cache/wasinn}

lock_hash=$(sha256sum "$here/Cargo.lock" | cut -c1-16)
vendor=$cache/cargo/vendor/$lock_hash
if [[ ! -f $vendor/.complete ]]; then
  echo "[rust-guest] vendoring the crates of guest/rust/Cargo.lock -> $vendor"
  mkdir -p "$(dirname "$vendor")"
  # A private scratch dir, so two builds vendoring at once cannot mix their files.
  part=$(mktemp -d "$vendor.part.XXXXXX")
  RUSTC_BOOTSTRAP=1 "$cargo" -Z sparse-registry vendor --quiet --locked \
    --manifest-path "$here/Cargo.toml" "$part" >/dev/null
  touch "$part/.complete"
  if [[ -f $vendor/.complete ]]; then rm -rf "$part"; else rm -rf "$vendor" && mv "$part" "$vendor"; fi
fi
[[ $fetch_only == 1 ]] && exit 0

out=${2:?usage: build.sh CARGO_WASM32 OUT_DIR [TARGET_DIR]}
# The target dir lives in the cache by default, so a fresh build tree (CI) reuses compiled crates.
target=${3:-$cache/rust-guest-target}
"$cargo" build --quiet --offline --locked --release --target wasm32-wasi -j "${WASINN_RUST_JOBS:-2}" \
  --manifest-path "$here/Cargo.toml" --target-dir "$target" \
  --config "source.crates-io.replace-with=\"wasinn-vendor\"" \
  --config "source.wasinn-vendor.directory=\"$vendor\""
mkdir -p "$out"
for wasm in "$target"/wasm32-wasi/release/compat_*.wasm; do
  cp -f "$wasm" "$out/"
done
