#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Each layer's link check (wasinn_layer_check, src/CMakeLists.txt) is seen to catch a call the
# wrong way: its link command, from the build, is run again with one more object that calls a
# real function of a layer it may not use, and must fail on that symbol (and pass without it).
#   check_links_catch.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$BUILD"

# LAYER FORBIDDEN: a layer it may not call (where its objects are: a static archive or an object
# library's directory). A new layer check gets a line here.
forbidden=(
  "wasinn_base wasinn_core"
  "wasinn_core wasinn_plugins"
  "wasinn_abi wasinn_engine"
  "wasinn_plugins wasinn_isolation"
  "wasinn_isolation wasinn_plugins"
  "wasinn_root wasinn_engine"
  "wasinn_serve wasinn_engine"
  "wasinn_engine wasinn_serve_http"
  "wasinn_serve_http wasinn_serve_pipeline"
  "wasinn_serve_pipeline wasinn_serve_http"
  "wasinn_capi wasinn_serve_pipeline"
  "wasinn_oip_codec wasinn_core"
  "wasinn_oip_server wasinn_engine"
  "wasinn_cli_parts wasinn_oip_server"
)
objects_of() {  # the archive or the object files of a layer target
  local archive
  archive=$(find . -name "lib$1.a" -print -quit)
  if [[ -n $archive ]]; then echo "$archive"; else find . -path "*/CMakeFiles/$1.dir/*" -name '*.o'; fi
}

checks=$(ninja -t targets all | sed -n 's|^layer_check/lib\(.*\)_layer_check\.so:.*|\1|p' | sort -u)
[[ -n $checks ]] || { echo "no layer checks in $BUILD (a sanitizer tree has none)"; exit 1; }
caught=0
for layer in $checks; do
  line=$(printf '%s\n' "${forbidden[@]}" | grep "^$layer " || true)
  [[ -n $line ]] || { echo "$layer has a link check but no forbidden layer here: add one"; exit 1; }
  other=${line#* }
  # A function the forbidden layer defines (text, global, in namespace wasinn).
  mapfile -t objs < <(objects_of "$other")
  [[ ${#objs[@]} -gt 0 ]] || { echo "no objects of $other: build the tree first"; exit 1; }
  symbol=$(nm -g --defined-only "${objs[@]}" 2>/dev/null | awk '$2 == "T" && $3 ~ /^_ZN6wasinn/ && !found {print $3; found = 1}')
  [[ -n $symbol ]] || { echo "no function of $other found"; exit 1; }
  printf 'extern void forbidden(void) __asm__("%s");\nvoid wasinn_planted_call(void) { forbidden(); }\n' \
    "$symbol" > "$tmp/planted_$layer.c"
  cc -fPIC -c "$tmp/planted_$layer.c" -o "$tmp/planted_$layer.o"
  command=$(ninja -t commands "layer_check/lib${layer}_layer_check.so" | tail -1)
  out="-o layer_check/lib${layer}_layer_check.so"
  [[ $command == *"$out "* ]] || { echo "unexpected link command for $layer: $command"; exit 1; }
  bash -c "${command/"$out"/-o $tmp/$layer.so}" >"$tmp/$layer.log" 2>&1 ||
    { echo "$layer's link check fails as built:"; cat "$tmp/$layer.log"; exit 1; }
  if bash -c "${command/"$out"/-o $tmp/$layer.so $tmp/planted_$layer.o}" >"$tmp/$layer.log" 2>&1; then
    echo "$layer's link check passed a call into $other ($symbol)"; exit 1
  fi
  grep -qF "undefined reference to \`$(c++filt "$symbol" | cut -c1-40)" "$tmp/$layer.log" ||
    { echo "$layer's link failed, but not on the planted call:"; cat "$tmp/$layer.log"; exit 1; }
  caught=$((caught + 1))
done
echo "each of the $caught link checks caught a call the wrong way"
