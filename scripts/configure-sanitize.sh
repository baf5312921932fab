#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Configures BUILD (once) as wasinn's clang-14 ASan+UBSan build with the libFuzzer targets:
# the one build that scripts/sanitize.sh and scripts/fuzz.sh share.
#   scripts/configure-sanitize.sh BUILD
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
[[ -f $BUILD/CMakeCache.txt ]] && exit 0
mkdir -p "$BUILD"
CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWASINN_FUZZ=ON -DWASINN_BUILD_TESTS=ON -DWASINN_BUILD_BENCH=OFF >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log" >&2; exit 1; }
