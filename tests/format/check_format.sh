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
mapfile -t cxx < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
mapfile -t rust < <(git ls-files '*.rs' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
# One call per formatter, not one per file (25 s -> 3 s): each names the files it would change.
# A formatter that fails without naming a file (a parse error) fails the check with its output.
bad=()
if [[ ${#cxx[@]} -gt 0 ]]; then
  out=$("$CLANG_FORMAT" --style=file --dry-run -Werror "${cxx[@]}" 2>&1) && rc=0 || rc=$?
  mapfile -t found < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" | sort -u)
  [[ $rc -ne 0 && ${#found[@]} -eq 0 ]] && { echo "$out"; echo "check_format: $CLANG_FORMAT failed"; exit 1; }
  bad+=("${found[@]}")
fi
if [[ ${#rust[@]} -gt 0 ]]; then
  out=$(rustfmt --config-path "$ROOT/rustfmt.toml" --check -l "${rust[@]}" 2>&1) && rc=0 || rc=$?
  mapfile -t found < <(grep -E '\.rs$' <<<"$out" | sed "s|^$ROOT/||" | sort -u)
  [[ $rc -ne 0 && ${#found[@]} -eq 0 ]] && { echo "$out"; echo "check_format: rustfmt failed"; exit 1; }
  bad+=("${found[@]}")
fi
echo "check_format: ${#cxx[@]} C/C++ and ${#rust[@]} Rust sources; ${#bad[@]} not formatted"
if [[ ${#bad[@]} -gt 0 ]]; then
  printf '  %s\n' "${bad[@]}"
  echo "fix: $CLANG_FORMAT -i FILE (C/C++), rustfmt --config-path rustfmt.toml FILE (Rust)"
  exit 1
fi
