#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the Spin guests (guest/spin/<name>/, each a crate pinned by its Cargo.lock) into
# wasm32-wasip2 components with the modern Rust route (scripts/deps/rust-web.sh):
#   build.sh CARGO_WASM OUT_DIR [TARGET_DIR]   -> OUT_DIR/spin_<name>.wasm
#   build.sh --fetch-only CARGO_WASM           -> crates (std's too) fetched, nothing built
# Building runs offline from what --fetch-only fetched (scripts/fetch-deps.sh rust-web).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fetch_only=0
if [[ ${1:-} == --fetch-only ]]; then fetch_only=1; shift; fi
cargo=${1:?usage: build.sh [--fetch-only] CARGO_WASM [OUT_DIR [TARGET_DIR]]}
cache=${WASINN_CACHE:-$HOME/.cache/wasinn}
crates=(llm)

if [[ $fetch_only == 1 ]]; then
  for c in "${crates[@]}"; do
    # Every platform's crates (host-side build dependencies included), then std's for the target.
    "$cargo" fetch --quiet --locked --manifest-path "$here/$c/Cargo.toml"
    "$cargo" fetch --quiet --locked --target wasm32-wasip2 --manifest-path "$here/$c/Cargo.toml"
  done
  exit 0
fi

out=${2:?usage: build.sh CARGO_WASM OUT_DIR [TARGET_DIR]}
# In the cache by default (one folder per crate), so a fresh build tree reuses the compiled std.
target=${3:-$cache/rust-web-target}
mkdir -p "$out"
for c in "${crates[@]}"; do
  "$cargo" build --quiet --offline --locked --release --target wasm32-wasip2 -j "${WASINN_RUST_JOBS:-2}" \
    --manifest-path "$here/$c/Cargo.toml" --target-dir "$target/$c"
  cp -f "$target/$c/wasm32-wasip2/release/spin_${c//-/_}.wasm" "$out/spin_${c//-/_}.wasm"
done
