#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the Spin guests (the workspace guest/spin: llm, key-value; pinned by its Cargo.lock) into
# wasm32-wasip2 components with the modern Rust route (scripts/deps/rust-web.sh):
#   build.sh CARGO_WASM OUT_DIR [TARGET_DIR]   -> OUT_DIR/spin_llm.wasm, OUT_DIR/spin_key_value.wasm
#   build.sh --fetch-only CARGO_WASM           -> crates (std's too) fetched, nothing built
# Building runs offline from what --fetch-only fetched (scripts/fetch-deps.sh rust-web).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fetch_only=0
if [[ ${1:-} == --fetch-only ]]; then fetch_only=1; shift; fi
cargo=${1:?usage: build.sh [--fetch-only] CARGO_WASM [OUT_DIR [TARGET_DIR]]}
cache=${WASINN_CACHE:-$HOME/.cache/wasinn}

if [[ $fetch_only == 1 ]]; then
  # Every platform's crates (the host's build dependencies and proc macros included), then std's
  # own crates for the target (-Zbuild-std builds them too).
  "$cargo" fetch --quiet --locked --manifest-path "$here/Cargo.toml"
  "$cargo" fetch --quiet --locked --target wasm32-wasip2 --manifest-path "$here/Cargo.toml"
  exit 0
fi

out=${2:?usage: build.sh CARGO_WASM OUT_DIR [TARGET_DIR]}
# In the cache by default, so a fresh build tree reuses the compiled std and crates.
target=${3:-$cache/rust-web-target/spin}
# Checkouts share the target dir: hold it from the build to the copy, or another checkout's build
# could replace a guest between the two (as scripts/build-engine.sh does for the engine).
mkdir -p "$target"
exec 9>"$target/.build.lock"
flock 9
"$cargo" build --quiet --offline --locked --release --target wasm32-wasip2 -j "${WASINN_RUST_JOBS:-2}" \
  --manifest-path "$here/Cargo.toml" --target-dir "$target"
mkdir -p "$out"
for name in spin_llm spin_key_value; do
  cp -f "$target/wasm32-wasip2/release/$name.wasm" "$out/$name.wasm"
done
