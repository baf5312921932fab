#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check_layers.py is seen to catch what it is for, in a scratch tree with the real table: for
# every layer of the table, an include it may not make; the two loopholes an include check by
# text alone leaves (<engine/host_impl.h> and "../engine/host_impl.h" in the core); another
# layer's private *_impl.h; another directory's file by a bare name; a Rust crate depending on a
# crate of a layer it may not use (by path and as a workspace dependency); and a stale table copy
# in ARCHITECTURE.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/docs" "$tmp/include/wasinn"
cp "$ROOT/src/layers.txt" "$tmp/src/"
cp "$ROOT/docs/ARCHITECTURE.md" "$tmp/docs/"
# One header in each layer's directory, and the public headers the plants name.
for dir in base core abi plugins isolation root engine capi oip serve serve/http serve/pipeline serve/oip cli wasmtime_library \
           ../backends/shared/ggml_common ../backends/shared/vulkan_common ../backends/shared/audio_common \
           ../backends/shared/plugin_common \
           ../backends/remote ../backends/onnxruntime ../backends/tensorflow; do
  mkdir -p "$tmp/src/$dir" && : > "$tmp/src/$dir/x.h"
done
: > "$tmp/src/engine/host_impl.h"
: > "$tmp/include/wasinn/backend_plugin.h"
echo '#include "core/x.h"' > "$tmp/src/engine/allowed.cpp"
printf '#include <vector>\n#include <wasinn/backend_plugin.h>\n' > "$tmp/backends/onnxruntime/allowed.cpp"
python3 "$ROOT/tests/layers/check_layers.py" "$tmp" >/dev/null || {
  echo "a clean scratch tree failed:"; python3 "$ROOT/tests/layers/check_layers.py" "$tmp"; exit 1; }

# LAYER-DIRECTORY INCLUDE: a crossing per layer of the table (backends/onnxruntime stands for backends/*).
plants=(
  "src/base core/x.h"
  "src/core engine/host_impl.h"
  "src/abi engine/x.h"
  "src/plugins isolation/x.h"
  "src/isolation plugins/x.h"
  "src/root engine/x.h"
  "src/engine cli/x.h"
  "src/capi core/x.h"
  "src/oip core/x.h"
  "src/serve engine/x.h"
  "src/serve/http cli/x.h"
  "src/serve/pipeline serve/oip/x.h"
  "src/serve/oip engine/x.h"
  "src/cli abi/x.h"
  "src/wasmtime_library cli/x.h"
  "backends/shared/ggml_common core/x.h"
  "backends/shared/vulkan_common ggml_common/x.h"
  "backends/shared/audio_common wasinn/plugin_sdk.hpp"
  "backends/shared/plugin_common ggml_common/x.h"
  "backends/remote core/x.h"
  "backends/onnxruntime tensorflow/x.h"
)
want=()
for plant in "${plants[@]}"; do
  read -r dir include <<<"$plant"
  echo "#include \"$include\"" > "$tmp/$dir/crossing.cpp"
  layer=${dir#src/}
  want+=("$dir/crossing.cpp:1: $layer may not include $include")
done
# Every layer the table names has its plant (a new layer gets one here). A here-string, not a
# pipe: `grep -q` quits at its first match, and printf's SIGPIPE then failed the pipe (pipefail).
planted=$(printf '%s\n' "${plants[@]}")
while read -r layer; do
  case "$layer" in "backends/*") layer=backends/onnxruntime ;; esac
  grep -q "^\(src/\)\?$layer " <<<"$planted" || { echo "no planted crossing for layer $layer"; exit 1; }
done < <(sed -e 's/#.*//' -e '/^\s*$/d' -e 's/:.*//' "$ROOT/src/layers.txt")

# The loopholes: a crossing by <...> and by "../", and a "../" out of the layer even where allowed.
printf '#include <engine/host_impl.h>\n#include "../engine/host_impl.h"\n#include "core/../engine/x.h"\n' \
  > "$tmp/src/core/loopholes.cpp"
echo '#include "../x.h"' > "$tmp/src/serve/http/up.cpp"
want+=("src/core/loopholes.cpp:1: core may not include engine/host_impl.h"
       "src/core/loopholes.cpp:2: \"../engine/host_impl.h\" leaves the layer core"
       "src/core/loopholes.cpp:3: \"core/../engine/x.h\" leaves the layer core"
       "src/serve/http/up.cpp:1: \"../x.h\" leaves the layer serve/http")
# Another layer's private header, where that layer is allowed (serve/http may include engine).
echo '#include "engine/host_impl.h"' > "$tmp/src/serve/http/private.cpp"
want+=("src/serve/http/private.cpp:1: \"engine/host_impl.h\" is private to engine")
# Rust: the engine's crate on serving's (as a workspace dependency), serve/pipeline's on
# serve/http's (by path, for its tests); serve/http's on the engine's is allowed.
printf '[workspace.dependencies]\nwasinn-serve-http = { path = "serve/http" }\n' > "$tmp/src/Cargo.toml"
mkdir -p "$tmp/src/engine/wasmtime"
printf '[dependencies]\nwasinn-serve-http.workspace = true\n' > "$tmp/src/engine/wasmtime/Cargo.toml"
printf '[dependencies]\nwasinn-engine = { path = "../../engine/wasmtime" }\n' > "$tmp/src/serve/http/Cargo.toml"
printf '[dev-dependencies]\nwasinn-serve-http = { path = "../http" }\n' > "$tmp/src/serve/pipeline/Cargo.toml"
want+=("src/engine/wasmtime/Cargo.toml: engine may not depend on the crate wasinn-serve-http (src/serve/http;"
       "src/serve/pipeline/Cargo.toml: serve/pipeline may not depend on the crate wasinn-serve-http (src/serve/http;")
echo '#include "x.h"' > "$tmp/src/engine/bare_ok.cpp"   # beside it: allowed
echo '#include "json_codec.h"' > "$tmp/src/engine/bare.cpp"
echo 'core: wasinn/everything' >> "$tmp/src/layers.txt"
want+=("src/engine/bare.cpp:1: \"json_codec.h\" is not beside it" "its copy of src/layers.txt differs")

out=$(python3 "$ROOT/tests/layers/check_layers.py" "$tmp") && { echo "check_layers passed a broken tree:"; echo "$out"; exit 1; }
for w in "${want[@]}"; do
  grep -qF "$w" <<<"$out" || { echo "missing: $w"; echo "$out"; exit 1; }
done
[[ $(grep -c . <<<"$out") -eq $((${#want[@]} + 1)) ]] || { echo "more problems than planted:"; echo "$out"; exit 1; }
echo "check_layers caught all ${#want[@]}"
