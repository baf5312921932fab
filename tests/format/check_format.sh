#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Every tracked C and C++ source is as clang-format-14 writes it (.clang-format), and every tracked
# Rust source as rustfmt writes it (rustfmt.toml). Lists the files that are not, and how to fix them.
#   check_format.sh [ROOT]      exit 0: all formatted; 1: some are not; 2: a formatter is missing
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$ROOT"
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
command -v rustfmt >/dev/null || PATH=$HOME/.cargo/bin:$PATH
for tool in "$CLANG_FORMAT" rustfmt git; do
  command -v "$tool" >/dev/null || { echo "check_format: $tool not found (bash scripts/setup.sh installs it)"; exit 2; }
done
mapfile -t cxx < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h' '*.hpp')
mapfile -t rust < <(git ls-files '*.rs')
bad=()
for f in "${cxx[@]}"; do
  [[ -f $f ]] || continue
  "$CLANG_FORMAT" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
done
for f in "${rust[@]}"; do
  [[ -f $f ]] || continue
  rustfmt --config-path "$ROOT/rustfmt.toml" --check "$f" >/dev/null 2>&1 || bad+=("$f")
done
echo "check_format: ${#cxx[@]} C/C++ and ${#rust[@]} Rust sources; ${#bad[@]} not formatted"
if [[ ${#bad[@]} -gt 0 ]]; then
  printf '  %s\n' "${bad[@]}"
  echo "fix: $CLANG_FORMAT -i FILE (C/C++), rustfmt --config-path rustfmt.toml FILE (Rust)"
  exit 1
fi
