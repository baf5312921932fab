#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds targets of a configured tree with the progress a log can carry: ninja's "[n/N] ..."
# lines are thinned to one every WASINN_PROGRESS_SECONDS (default 30) plus the last one, while
# everything else (warnings, errors, cargo's output) passes through whole. On a terminal ninja
# redraws one line, so nothing is thinned there.
#   scripts/build.sh BUILD [TARGET...]     (no target: the tree's default, everything)
set -euo pipefail
BUILD=${1:?usage: scripts/build.sh BUILD [TARGET...]}
shift
targets=()
[[ $# -gt 0 ]] && targets=(--target "$@")
if [[ -t 1 ]]; then
  exec cmake --build "$BUILD" "${targets[@]}"
fi
# thin: ninja's status lines, one every WASINN_PROGRESS_SECONDS and the last; other lines whole. A
# read loop rather than awk, whose input through a pipe is block-buffered (mawk's is).
thin() {
  local every=${WASINN_PROGRESS_SECONDS:-30} shown=-1000000 last= line
  while IFS= read -r line; do
    if [[ $line =~ ^\[[0-9]+/[0-9]+\]\  ]]; then
      last=$line
      if ((SECONDS - shown >= every)); then
        printf '%s\n' "$line"
        shown=$SECONDS last=
      fi
    else
      printf '%s\n' "$line"
    fi
  done
  [[ -z $last ]] || printf '%s\n' "$last"
}
start=$SECONDS
rc=0
cmake --build "$BUILD" "${targets[@]}" 2>&1 | thin || rc=${PIPESTATUS[0]}
printf 'build: %s%s: %s in %d s\n' "$BUILD" "${1:+ ($*)}" "$([[ $rc == 0 ]] && echo done || echo "FAILED (exit $rc)")" \
  $((SECONDS - start))
exit "$rc"
