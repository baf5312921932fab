#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Measures the container images for docs/deployment.md: each image's size on disk, by layer, and
# compressed (podman save as a docker archive through zstd -3, as images.sh --save writes it), and the cold start of `wasinn run`
# inside the cpu image against the same build on the host, in one run (medians of N runs; the
# machine is shared, so compare the ratio, not the milliseconds). Builds the images first.
#   bash scripts/bench-images.sh [--only LIST] [RUNS]   (RUNS default 10; LIST as images.sh's; prints markdown)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_BUILD_DIR:-$ROOT/build}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
only=cpu,nvidia,compile
if [[ ${1:-} == --only ]]; then only=${2:?--only needs a list}; shift 2; fi
RUNS=${1:-10}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "usage: bash scripts/bench-images.sh [--only LIST] [RUNS]" >&2; exit 2; }
[[ ,$only, == *,cpu,* ]] || only=cpu,$only  # the cold start runs in the cpu image
bash "$ROOT/scripts/images.sh" --only "$only" >&2
source "$ROOT/scripts/images/podman-env.sh"
VERSION=$(sed -n 's/^#define WASINN_VERSION_STRING "\(.*\)"/\1/p' "$BUILD/include/wasinn/version.h")

echo "## Image sizes ($(date -u +%Y-%m-%d), wasinn $VERSION)"
echo
echo "| image | on disk | compressed (docker archive, zstd -3) | largest layers |"
echo "|---|---|---|---|"
for name in cpu nvidia compile; do
  ref=localhost/wasinn:$VERSION-$name
  podman image exists "$ref" || continue
  disk=$(podman image inspect --format '{{.Size}}' "$ref")
  packed=$(podman save --format docker-archive "$ref" 2>/dev/null | zstd -q -T0 -3 | wc -c)
  layers=$(image_layers "$ref")  # whole: a pipe closed early by head would fail under pipefail
  layers=$(sed -n '1,3{s/^ *//; s/  */ /; p}' <<<"$layers" | paste -sd ';' | sed 's/;/; /g')
  printf '| %s | %s | %s | %s |\n' "wasinn:$VERSION-$name" "$(numfmt --to=iec-i --suffix=B "$disk")" \
    "$(numfmt --to=iec-i --suffix=B "$packed")" "$layers"
done

# median_ms CMD...: the median wall time of RUNS runs of CMD (output discarded, failures fatal).
median_ms() {
  local times=() i t0
  "$@" >/dev/null 2>&1 || { echo "bench-images: failed: $*" >&2; exit 1; }  # warm-up
  for ((i = 0; i < RUNS; i++)); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    times+=($((($(date +%s%N) - t0) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
CPU=localhost/wasinn:$VERSION-cpu
cache_volume=wasinn-bench-cache
podman volume rm -f "$cache_volume" >/dev/null 2>&1 || true
in_image() {  # ARGS...: the cpu image locked down, guests and model read-only
  podman run --rm --read-only --network=none -v "$FIXTURES/digits:/digits:ro" -v "$BUILD/guests:/guests:ro" "$@"
}
digits=(run --dir /digits /guests/classify_digits.wasm /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8)
host_digits_nocache=(run --module-cache off --dir "$FIXTURES/digits::/digits" "$BUILD/guests/classify_digits.wasm" /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8)
host_digits=(run --dir "$FIXTURES/digits::/digits" "$BUILD/guests/classify_digits.wasm" /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8)
host_cache=$(mktemp -d)
trap 'rm -rf "$host_cache"; podman volume rm -f "$cache_volume" >/dev/null 2>&1 || true' EXIT

echo
echo "## Cold start of \`wasinn run\`: cpu image against the host (median of $RUNS, ms)"
echo
echo "| what | host | in the cpu image | image / host |"
echo "|---|---|---|---|"
row() {  # LABEL HOST-CMD... -- IMAGE-CMD...
  local label=$1; shift
  local host=() image=()
  while [[ $1 != -- ]]; do host+=("$1"); shift; done; shift
  image=("$@")
  local h i; h=$(median_ms "${host[@]}"); i=$(median_ms "${image[@]}")
  printf '| %s | %s | %s | %s |\n' "$label" "$h" "$i" "$(awk -v a="$i" -v b="$h" 'BEGIN {printf "%.2f", a / b}')"
}
row "\`wasinn --version\`" "$BUILD/bin/wasinn" --version -- podman run --rm --network=none "$CPU" --version
row "digits guest (450 inferences, ONNX Runtime), no module cache" \
  "$BUILD/bin/wasinn" "${host_digits_nocache[@]}" -- in_image "$CPU" "${digits[@]}"
row "digits guest, module cache warm (host dir / named volume)" \
  env XDG_CACHE_HOME="$host_cache" "$BUILD/bin/wasinn" "${host_digits[@]}" -- \
  in_image -v "$cache_volume:/home/wasinn/.cache" "$CPU" "${digits[@]}"
# A component: WASI 0.2 adapter and all, so compiling it is a larger part of the start.
component=(run --dir /digits /guests/wit_classify_digits.component.wasm /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8)
row "the digits component guest, no module cache" \
  "$BUILD/bin/wasinn" run --module-cache off --dir "$FIXTURES/digits::/digits" "$BUILD/guests/wit_classify_digits.component.wasm" \
  /digits/model.onnx /digits/test_x.f32 /digits/test_y.u8 -- in_image "$CPU" "${component[@]}"
echo
echo "Host: \`$BUILD/bin/wasinn\` (the same build the image carries); image: \`podman run --rm --read-only --network=none\` with podman $(podman --version | awk '{print $3}') and runc."
