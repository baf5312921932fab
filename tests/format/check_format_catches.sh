#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check_format.sh is seen to catch what it is for, in a scratch repository with the real
# configuration: a C++ file and a Rust file written off the form fail it, formatted they pass.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$ROOT/.clang-format" "$ROOT/rustfmt.toml" "$tmp/"
cd "$tmp" && git init -q .
printf 'int  add( int a,int b ){return a+b;}\n' > a.cpp
printf 'fn add( a:i32,b:i32 )->i32{a+b}\n' > a.rs
git add -A
out=$(bash "$ROOT/tests/format/check_format.sh" "$tmp") && { echo "check_format passed unformatted files:"; echo "$out"; exit 1; }
for want in "2 not formatted" "  a.cpp" "  a.rs"; do
  grep -qF -- "$want" <<<"$out" || { echo "missing: $want"; echo "$out"; exit 1; }
done
clang-format-14 -i a.cpp
PATH=$HOME/.cargo/bin:$PATH rustfmt --config-path rustfmt.toml a.rs
bash "$ROOT/tests/format/check_format.sh" "$tmp" >/dev/null || { echo "check_format failed formatted files"; exit 1; }
echo "check_format caught both and passed them formatted"
