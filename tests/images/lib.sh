# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by tests/images/run.sh and the per-image check files: a small TAP-like harness.
#   check NAME CMD...            passes when CMD exits 0; prints its output when it fails
#   check_output NAME REGEX CMD...  passes when CMD exits 0 and its output matches REGEX (grep -E)
#   skip NAME REASON             counts a skipped check
# Output is captured; a failure prints the command and its last 40 lines.
IMAGES_PASSED=0 IMAGES_FAILED=0 IMAGES_SKIPPED=0 IMAGES_FAILED_NAMES=()
_image_check_report() {  # NAME STATUS START OUTPUT CMD...
  local name=$1 status=$2 start=$3 out=$4; shift 4
  if [[ $status == ok ]]; then
    IMAGES_PASSED=$((IMAGES_PASSED + 1))
    printf 'ok    %-58s %3d s\n' "$name" $((SECONDS - start))
  else
    IMAGES_FAILED=$((IMAGES_FAILED + 1)); IMAGES_FAILED_NAMES+=("$name")
    printf 'FAIL  %-58s %3d s\n      $ %s\n' "$name" $((SECONDS - start)) "$*"
    tail -n 40 <<<"$out" | sed 's/^/      | /'
  fi
}
check() {
  local name=$1; shift
  local start=$SECONDS out status=ok
  out=$("$@" 2>&1) || status=fail
  _image_check_report "$name" "$status" "$start" "$out" "$@"
}
check_output() {
  local name=$1 regex=$2; shift 2
  local start=$SECONDS out status=ok
  out=$("$@" 2>&1) || status=fail
  if [[ $status == ok ]] && ! grep -Eq -- "$regex" <<<"$out"; then
    status=fail; out+=$'\n'"(output does not match /$regex/)"
  fi
  _image_check_report "$name" "$status" "$start" "$out" "$@"
}
skip() {
  IMAGES_SKIPPED=$((IMAGES_SKIPPED + 1))
  printf 'skip  %-58s %s\n' "$1" "$2"
}
