# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# jco (npm @bytecodealliance/jco): the wasm-tools component functions and WASI preview1 adapters
# that scripts/componentize.mjs uses to turn the C guests of guest/components into components.
# Optional: without node and npm the component guests are skipped (WASINN_HAVE_COMPONENT_GUESTS).
# Sourced by scripts/fetch-deps.sh, which provides say, $DEPS and $DL.
JCO_VERSION=1.35.0

install_jco() {
  local prefix=$DEPS/jco-$JCO_VERSION stamp=$DEPS/jco-$JCO_VERSION/.version
  [[ -f $stamp && $(cat "$stamp") == "$JCO_VERSION" ]] && return
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "jco: node or npm is missing; the component guests (guest/components) will be skipped"
    return 0
  fi
  say "installing @bytecodealliance/jco@$JCO_VERSION -> $prefix"
  rm -rf "$prefix" && mkdir -p "$prefix"
  # --ignore-scripts: jco's install scripts would download more; the package works without them.
  npm install -q --no-audit --no-fund --ignore-scripts --cache "$DL/npm" --prefix "$prefix" \
    "@bytecodealliance/jco@$JCO_VERSION" >/dev/null
  local lib=$prefix/node_modules/@bytecodealliance/jco
  if [[ ! -f $lib/lib/wasi_snapshot_preview1.command.wasm ]] ||
     ! node "$lib/dist/jco.js" --version >/dev/null 2>&1; then
    say "jco: the install in $prefix does not run"
    return 1
  fi
  echo "$JCO_VERSION" >"$stamp"
  say "jco $JCO_VERSION -> $prefix"
}
