#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Inference servers for the remote backend's tests and benchmark, each in its own venv keyed by
# version under ~/.cache/wasinn/deps (about 400 MB each, so built once):
#   venv-triton-<ver>   NVIDIA Triton (the tritonserver bundled in nvidia-pytriton) + tritonclient
#   venv-mlserver-<ver> Seldon MLServer
# Both also get onnxruntime (a real model inside the server's callable) and numpy.
# Called by scripts/setup.sh; never fatal: a server that cannot be installed makes the remote
# integration tests skip with a message naming it.
#   scripts/remote-servers.sh [triton|mlserver]...
set -uo pipefail

PYTRITON_VERSION=0.7.0
MLSERVER_VERSION=1.7.1
ORT_PIP=onnxruntime==1.20.1

CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
DEPS_DIR=$CACHE/deps
PY=${WASINN_SERVER_PYTHON:-/usr/bin/python3}

say() { printf '[remote-servers] %s\n' "$*"; }

# make_venv DIR STAMP PKG...: a venv whose .version stamp says what it holds; rebuilt when not.
make_venv() {
  local dir=$1 stamp=$2; shift 2
  if [[ -f $dir/.version && $(cat "$dir/.version") == "$stamp" ]]; then
    say "$(basename "$dir") present"; return 0
  fi
  say "creating $dir (once; a few hundred MB)"
  rm -rf "$dir"
  "$PY" -m venv "$dir" || return 1
  "$dir/bin/pip" install -q --upgrade pip >/dev/null || return 1
  "$dir/bin/pip" install -q "$@" || { rm -rf "$dir"; return 1; }
  echo "$stamp" >"$dir/.version"
}

want=("$@"); [[ ${#want[@]} -eq 0 ]] && want=(triton mlserver)
rc=0
for w in "${want[@]}"; do
  case $w in
    triton)
      make_venv "$DEPS_DIR/venv-triton-$PYTRITON_VERSION" "$PYTRITON_VERSION" \
        "nvidia-pytriton==$PYTRITON_VERSION" "tritonclient[all]" "$ORT_PIP" numpy ||
        { say "Triton could not be installed: the remote Triton tests will skip"; rc=1; } ;;
    mlserver)
      make_venv "$DEPS_DIR/venv-mlserver-$MLSERVER_VERSION" "$MLSERVER_VERSION" \
        "mlserver==$MLSERVER_VERSION" "$ORT_PIP" numpy ||
        { say "MLServer could not be installed: the remote MLServer tests will skip"; rc=1; } ;;
  esac
done
exit $rc
