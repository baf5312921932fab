#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds wasinn's Wasmtime (the Cargo workspace src/Cargo.toml: the engine binding
# src/engine/wasmtime, with Wasmtime's C API and the typed wasi:nn component imports, and
# serving's crates src/serve/http and src/serve/pipeline, linked into one shared library by
# src/wasmtime_library) with cargo, from crates.io only, and installs it for one build tree:
#   build-engine.sh OUT_DIR    -> OUT_DIR/lib/libwasinn_wasmtime.so and OUT_DIR/include/ (wasmtime.h,
#                              wasinn_wit_slots.h)
#   build-engine.sh --test [--no-run]  every member's own tests (cargo test --release: the same
#                              objects; not wasinn-wasmtime's, which has none and links everything);
#                              --no-run: only build them (the build tree does, so the test engine.rust
#                              runs them and compiles nothing)
#   WASINN_ENGINE_TARGET_DIR=DIR  use DIR as cargo's target directory instead of the shared cache
# Cargo's target directory is cached in ~/.cache/wasinn/engine, keyed by the lock file, the
# manifests (their features) and the toolchain, so every build tree of a clone (plain, ASan, TSan)
# and every clone share one build: ~5 min on 2 cores the first time, seconds after an edit of the
# workspace's own files, a no-op otherwise. Cargo builds a copy of the workspace's Rust parts kept
# at one path beside that target directory, rewritten only where a file's bytes changed: cargo
# keys a path crate by its path and its files' times, so building a fresh clone's own copy would
# recompile the crates (about 3 min, and 2.5 more for their tests) every time. Files are copied out
# with their times, so an unchanged library or header never makes the C++ side rebuild or relink.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORKSPACE=$ROOT/src
OUT=${1:?usage: build-engine.sh OUT_DIR | --test}
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
# Debian's rustc-web 1.96 (Wasmtime 49 needs 1.96; rustup's stable here is 1.95), unpacked by
# scripts/deps/rust-web.sh, whatever the caller's PATH (a build started from an IDE, CI's shell).
CARGO=${WASINN_DEPS:-$ROOT/.deps}/rust-web/bin/cargo-host
if [[ ! -x $CARGO ]]; then
  echo "build-engine.sh: $CARGO not found: run scripts/fetch-deps.sh rust-web (scripts/setup.sh does)" >&2
  exit 1
fi
# One build for every caller: the sanitizer trees configure with CC=clang-14, and a compiler or
# flags in the environment would make cargo rebuild the crates that compile C (zstd-sys, then
# Wasmtime and everything above it) each time a plain and a sanitizer tree take turns.
unset CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS
export CARGO_HOME=${WASINN_CARGO_HOME:-$CACHE/engine/cargo-home}
# Every Cargo.toml below src/ is the workspace's or a member's (src/Cargo.toml lists them).
mapfile -t manifests < <(cd "$WORKSPACE" && find . -name Cargo.toml | LC_ALL=C sort)
key=$(cd "$WORKSPACE" && cat Cargo.lock "${manifests[@]}" <("$CARGO" --rustc -vV) | sha256sum | cut -c1-16)
# WASINN_ENGINE_TARGET_DIR: a checkout of its own (a copy of the shared one), for work that edits the
# crates beside another checkout that does too: the shared copy would rebuild at each turn.
export CARGO_TARGET_DIR=${WASINN_ENGINE_TARGET_DIR:-$CACHE/engine/target-$key}
mkdir -p "$CARGO_HOME" "$CARGO_TARGET_DIR"
[[ -f $CARGO_TARGET_DIR/release/libwasinn_wasmtime.so ]] ||
  echo "build-engine.sh: building Wasmtime $(sed -n 's/^wasmtime = { version = "=\([0-9.]*\)".*/\1/p' "$WORKSPACE/Cargo.toml") with cargo into $CARGO_TARGET_DIR (the first time: about 6 min on 2 cores)" >&2

# Checkouts share the workspace's copy and the target directory: hold them from the copy in to the
# copy out (or to the tests' end), or another checkout's files could be built or linked mid-way.
exec 9>"$CARGO_TARGET_DIR/.build-engine.lock"
flock 9
# As images/stage.sh keeps its contexts: no -t, so an unchanged file keeps its time; --delete, so
# a file the checkout no longer has goes too. Only src/'s Rust parts: the manifests, the lock
# file, the sources, and the C headers the crates generate their mirrors from (their build.rs:
# the *_host.h contracts).
BUILT=$CARGO_TARGET_DIR/workspace
rsync -r --checksum --delete --delete-excluded --prune-empty-dirs --include='*/' --include=Cargo.toml \
  --include=Cargo.lock --include='*.rs' --include='*_host.h' --include='*_host_table.h' --exclude='*' \
  "$WORKSPACE/" "$BUILT/"
# Beside the copy as beside src/ in the checkout: the WIT files the engine's bindgen! reads
# (src/engine/wasmtime/src/bindings.rs), and the public header serve/http's mirrors include
# (wasinn/request_record.h).
rsync -r --checksum --delete --include='*/' --include='*.wit' --exclude='*' "$ROOT/wit/" "$BUILT/../wit/"
mkdir -p "$BUILT/../include/wasinn"
rsync --checksum "$ROOT/include/wasinn/request_record.h" "$BUILT/../include/wasinn/"

if [[ $OUT == --test ]]; then
  shift
  if [[ $# -gt 0 && $1 != --no-run ]]; then
    echo "build-engine.sh: --test takes only --no-run, not '$1'" >&2
    exit 2
  fi
  exec "$CARGO" test --release --locked --workspace --exclude wasinn-wasmtime --lib --manifest-path "$BUILT/Cargo.toml" \
    -j"${WASINN_CARGO_JOBS:-$(nproc)}" "$@"
fi
# The C API crate's build script writes its headers (with conf.h for the features built) into
# its OUT_DIR, and the engine crate's the table's slots generated from the WIT
# (wasinn_wit_slots.h); cargo's JSON messages say where (a file of this caller's own).
mkdir -p "$OUT"
msgs=$OUT/build-messages.json
"$CARGO" build --release --locked --manifest-path "$BUILT/Cargo.toml" -j"${WASINN_CARGO_JOBS:-$(nproc)}" \
  --message-format=json-render-diagnostics >"$msgs"
# PACKAGE's build script's include/ (the last one cargo reports).
generated_include() {
  python3 -c '
import json, sys
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    m = json.loads(line)
    if m.get("reason") == "build-script-executed" and sys.argv[2] in m.get("package_id", ""):
        print(m["out_dir"] + "/include")
' "$msgs" "$1" | tail -1
}
mkdir -p "$OUT/lib" "$OUT/include"
for found in wasmtime-c-api-impl:wasmtime.h wasinn-engine:wasinn_wit_slots.h; do
  include=$(generated_include "${found%%:*}")
  if [[ ! -f $include/${found#*:} ]]; then
    echo "build-engine.sh: cargo did not report ${found#*:} from ${found%%:*}'s build script (looked in '$include')" >&2
    exit 1
  fi
  cp -a "$include/." "$OUT/include/"
done
cp -a "$CARGO_TARGET_DIR/release/libwasinn_wasmtime.so" "$OUT/lib/libwasinn_wasmtime.so"
