#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Configures BUILD (once) as one of wasinn's clang-14 sanitizer builds:
#   scripts/configure-sanitize.sh BUILD        ASan+UBSan with the libFuzzer targets, the one build
#                                              that scripts/sanitize.sh and scripts/fuzz.sh share
#   scripts/configure-sanitize.sh BUILD tsan   ThreadSanitizer (scripts/tsan.sh)
# Both at -O1 with line tables only, as the sanitizers' docs advise: reports keep their file:line
# stacks, and the build costs about an eighth less than -O2 -g (a cold CI run builds two of these).
# The tests' own code builds at -O0 in both (tests/CMakeLists.txt): half the compile, same runs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
case ${2:-asan} in
  asan) sanitizer=(-DWASINN_FUZZ=ON) ;;
  tsan) sanitizer=(-DWASINN_TSAN=ON) ;;
  *) echo "usage: scripts/configure-sanitize.sh BUILD [tsan]" >&2; exit 2 ;;
esac
[[ -f $BUILD/CMakeCache.txt ]] && exit 0
mkdir -p "$BUILD"
flags="-O1 -gline-tables-only -DNDEBUG"
CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$flags" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" \
  "${sanitizer[@]}" -DWASINN_BUILD_TESTS=ON -DWASINN_BUILD_BENCH=OFF >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log" >&2; exit 1; }
