# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by scripts/test.sh: runs its stages and reports them. A stage passes (exit 0), is
# skipped (exit 77, automake's convention: it could not run here, and its output's last line
# with "skipped" says why) or fails (anything else). Skipped is never counted as passed.
#   stage NAME COMMAND...   run one stage, its output shown and kept for the close
#   stages_close            the closing report: failed tests named, skipped stages listed, one
#                           "N passed, N failed" line over every ctest run; returns 1 if any
#                           stage failed
# Needs ROOT (for scripts/ctest_failures.py).
failed=() skipped=()
summaries=$(mktemp)
failures=$(mktemp)
trap 'rm -f "$summaries" "$failures"' EXIT
stage() {
  local name=$1; shift
  printf '\n==> %s\n' "$name"
  local start=$SECONDS
  local log; log=$(mktemp)
  local rc=0
  "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
  # ctest's "N% tests passed, F tests failed out of T" lines are kept for the closing count.
  grep -a 'tests failed out of' "$log" >>"$summaries" || true
  # A failed test's name and the end of its output are repeated at the close, where a CI page
  # that shows only the tail of the log still shows them.
  local named; named=$(python3 "$ROOT/scripts/ctest_failures.py" "$name" <"$log" || true)
  if [[ $rc == 0 ]]; then
    printf '==> %s: passed (%d s)\n' "$name" $((SECONDS - start))
  elif [[ $rc == 77 ]]; then
    # The stage's own last line says why (e.g. "images: skipped: podman cannot run containers: ...").
    local why; why=$(grep -a -i 'skipped' "$log" | tail -n 1)
    printf '==> %s: SKIPPED (%d s): %s\n' "$name" $((SECONDS - start)) "${why:-no reason given}"
    skipped+=("$name (${why:-no reason given})")
  else
    printf '==> %s: FAILED (%d s)\n' "$name" $((SECONDS - start))
    failed+=("$name")
    # A stage that failed outside ctest (a build, the images' checks) shows its last lines.
    [[ -n $named ]] || named=$(printf '\n--- %s: its last 25 lines:\n' "$name"; tail -n 25 "$log" | sed 's/^/    /')
  fi
  [[ -z $named ]] || printf '%s\n' "$named" >>"$failures"
  rm -f "$log"
}

stages_close() {
  # One closing line over every ctest run (main and sanitizer builds).
  read -r tests_failed tests_total < <(awk '{for (i = 3; i + 3 <= NF; i++) if ($i == "failed" && $(i+1) == "out") {f += $(i-2); t += $(i+3)}}
                                            END {print f + 0, t + 0}' "$summaries")
  if [[ ${#skipped[@]} -gt 0 ]]; then
    printf '\nSKIPPED stages (not run here, so not checked):\n'
    printf '  %s\n' "${skipped[@]}"
  fi
  if [[ ${#failed[@]} -gt 0 ]]; then
    cat "$failures"
    printf '\nFAILED stages: %s\n' "${failed[*]}"
  else
    printf '\n%s took %d s in all\n' "${0##*/}" "$SECONDS"
    if [[ ${#skipped[@]} -gt 0 ]]; then
      printf '\nEvery stage that ran passed; %d skipped (above).\n' ${#skipped[@]}
    else
      printf '\nAll stages passed.\n'
    fi
  fi
  printf 'tests: %d passed, %d failed\n' $((tests_total - tests_failed)) "$tests_failed"
  [[ ${#failed[@]} -eq 0 ]]
}
