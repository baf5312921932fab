#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check_layers.py is seen to catch what it is for, in a scratch tree with the real table: the
# core including the engine, another directory's file by a bare name, and a stale table copy in
# ARCHITECTURE.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core" "$tmp/src/engine" "$tmp/src/oip" "$tmp/docs"
cp "$ROOT/src/layers.txt" "$tmp/src/"
cp "$ROOT/docs/ARCHITECTURE.md" "$tmp/docs/"
echo '#include "core/graph.h"' > "$tmp/src/engine/host.cpp"   # allowed
: > "$tmp/src/core/graph.h"
: > "$tmp/src/engine/host.h"
: > "$tmp/src/oip/json_codec.h"
python3 "$ROOT/tests/layers/check_layers.py" "$tmp" >/dev/null || { echo "a clean scratch tree failed"; exit 1; }
echo '#include "engine/host.h"' > "$tmp/src/core/wrong.cpp"
echo '#include "json_codec.h"' > "$tmp/src/engine/bare.cpp"
echo 'core: wasinn/everything' >> "$tmp/src/layers.txt"
out=$(python3 "$ROOT/tests/layers/check_layers.py" "$tmp") && { echo "check_layers passed a broken tree:"; echo "$out"; exit 1; }
for want in "src/core/wrong.cpp:1: core may not include engine/host.h" \
            "src/engine/bare.cpp:1: \"json_codec.h\" is not beside it" \
            "its copy of src/layers.txt differs"; do
  grep -qF "$want" <<<"$out" || { echo "missing: $want"; echo "$out"; exit 1; }
done
echo "check_layers caught all three"
