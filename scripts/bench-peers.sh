#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Measures wasinn against Wasmtime's own CLI, whole process, on the same guests and models, and
# writes the results into docs/benchmarks.md (section "peers"). Not part of the test suite.
#   scripts/bench-peers.sh [--runs N] [--cases KEY,...] [--no-doc] [--no-serve | --serve-only | --build-only]
# Then `wasinn serve` against `wasmtime serve` (scripts/bench_serve.py: wrk at concurrency 1, 8
# and 32 on the guest http_classify; section "serve"); --serve-only runs just that.
# The first run builds Wasmtime's CLI, at the version bench/peers/wasmtime/Cargo.toml pins, from
# crates.io (the CLI with its ONNX Runtime wasi-nn backend, linked against the ONNX Runtime wasinn
# downloads) into ~/.cache/wasinn/peers with Debian's rustc-web (as the engine): 20-30 minutes of
# CPU on 2 cores, then cached; --build-only stops there (the tests that compare against it,
# p3.peer and serve.peer, then run). The cases and how answers are compared are in
# scripts/bench_peers.py.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BENCH_BUILD_DIR:-$ROOT/build-bench}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
WASMTIME_VERSION=$(sed -n 's/^wasmtime-cli = { version = "=\([^"]*\)".*/\1/p' "$ROOT/bench/peers/wasmtime/Cargo.toml")
PEERS=$HOME/.cache/wasinn/peers
# Keyed by the peer's manifest and lock, so a change of its features (issue 27 added `serve`)
# builds a new CLI instead of reusing one without them.
PEER_KEY=$(cat "$ROOT/bench/peers/wasmtime/Cargo.toml" "$ROOT/bench/peers/wasmtime/Cargo.lock" | sha256sum | cut -c1-12)
WASMTIME_BIN=$PEERS/wasmtime-$WASMTIME_VERSION-$PEER_KEY/bin/wasmtime
runs=21
cases=""
doc=(--doc "$ROOT/docs/benchmarks.md")
serve=1
peers=1
build_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --no-doc) doc=(); shift ;;
    --no-serve) serve=0; shift ;;
    --serve-only) peers=0; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
step() { printf '\n==> %s\n' "$*" >&2; }

if [[ ! -x $ROOT/.deps/venv/bin/python || ! -d $ROOT/.deps/onnxruntime || ! -d $ROOT/.deps/openvino ||
      ! -x $ROOT/.deps/rust-web/bin/cargo-host ]]; then
  echo "bench-peers.sh: dependencies missing; run scripts/setup.sh --no-example first" >&2
  exit 1
fi
ORT_LIBS=$(readlink -f "$ROOT/.deps/onnxruntime/lib")
OV_LIBS=$(dirname "$(find -L "$ROOT/.deps/openvino" -name 'libopenvino_c.so*' -print -quit)")

if [[ ! -x $WASMTIME_BIN ]]; then
  step "Wasmtime CLI $WASMTIME_VERSION from crates.io -> $WASMTIME_BIN (once; 20-30 min on 2 cores)"
  # ort-sys links the ONNX Runtime named here instead of downloading one. Wasmtime 49 needs Rust
  # 1.96: Debian's rustc-web (cargo-host), which builds the engine too.
  ORT_LIB_LOCATION=$ORT_LIBS ORT_PREFER_DYNAMIC_LINK=1 \
  CARGO_TARGET_DIR=$PEERS/wasmtime-$WASMTIME_VERSION-target \
    "$ROOT/.deps/rust-web/bin/cargo-host" build --release --locked -j2 --manifest-path "$ROOT/bench/peers/wasmtime/Cargo.toml" \
      -p wasmtime-cli --bin wasmtime
  mkdir -p "$(dirname "$WASMTIME_BIN")"
  cp "$PEERS/wasmtime-$WASMTIME_VERSION-target/release/wasmtime" "$WASMTIME_BIN.tmp"
  mv "$WASMTIME_BIN.tmp" "$WASMTIME_BIN"
fi
if [[ $build_only == 1 ]]; then
  echo "Wasmtime's CLI: $WASMTIME_BIN ($(LD_LIBRARY_PATH=$ORT_LIBS "$WASMTIME_BIN" --version))"
  exit 0
fi

step "Fixtures -> $FIXTURES"
"$ROOT/.deps/venv/bin/python" "$ROOT/scripts/make_fixtures.py" --out "$FIXTURES" >&2

step "Release build of wasinn -> $BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWASINN_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target wasinn_cli wasinn_backend_onnxruntime wasinn_backend_openvino guests >&2

if [[ $peers == 1 ]]; then
  step "Cases, $runs runs per host"
  "$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_peers.py" --wasinn "$BUILD/bin/wasinn" \
    --wasmtime "$WASMTIME_BIN" --guests "$BUILD/guests" --fixtures "$FIXTURES" \
    --onnxruntime-libs "$ORT_LIBS" --openvino-libs "$OV_LIBS" --runs "$runs" --cases "$cases" \
    --json "$BUILD/bench_peers.json" "${doc[@]}"
fi
if [[ $serve == 1 ]]; then
  command -v wrk >/dev/null || { echo "bench-peers.sh: wrk is missing (scripts/setup.sh installs it)" >&2; exit 1; }
  step "Serving: wasinn serve and wasmtime serve under wrk"
  "$ROOT/.deps/venv/bin/python" "$ROOT/scripts/bench_serve.py" --wasinn "$BUILD/bin/wasinn" \
    --wasmtime "$WASMTIME_BIN" --guest "$BUILD/guests/http_classify.component.wasm" --fixtures "$FIXTURES" \
    --onnxruntime-libs "$ORT_LIBS" --json "$BUILD/bench_serve.json" "${doc[@]}"
fi
