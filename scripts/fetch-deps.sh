#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Fetches wasinn's native dependencies from package registries into .deps/ (one prefix per
# dependency), with downloads cached under ~/.cache/wasinn/dl so a second run fetches nothing.
# Each dependency is one file scripts/deps/<name>.sh defining install_<name>, with its pinned
# version at the top; Debian packages it needs are listed in scripts/deps/<name>.apt.
#   fetch-deps.sh [NAME...]   (default: every scripts/deps/*.sh)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${WASINN_CACHE:-$HOME/.cache/wasinn}
DL=$CACHE/dl
# A fresh clone links .deps to a prefix kept in the cache, so slow builds (llama.cpp) and
# unpacked wheels survive clones; each dependency's stamp file says which version it holds.
if [[ -z ${WASINN_DEPS:-} && ! -e $ROOT/.deps ]]; then
  mkdir -p "$CACHE/deps"
  ln -s "$CACHE/deps" "$ROOT/.deps"
fi
DEPS=${WASINN_DEPS:-$ROOT/.deps}
mkdir -p "$DEPS" "$DL"
export ROOT DEPS CACHE DL

say() { printf '[fetch-deps] %s\n' "$*"; }

# fetch URL FILE: download once into the cache; a partial download never counts as done.
fetch() {
  local url=$1 out=$DL/$2
  if [[ ! -s $out ]]; then
    say "downloading $2"
    curl -sSfL --retry 3 -o "$out.part" "$url"
    mv "$out.part" "$out"
  fi
}

# verified_fetch URL FILE SHA256: fetch, then stop unless the file has the pinned hash.
verified_fetch() {
  fetch "$1" "$2"
  echo "$3  $DL/$2" | sha256sum -c --quiet - || { echo "checksum mismatch for $DL/$2" >&2; exit 1; }
}


# A Python environment for fixture generation: Debian's torch/sklearn/onnx plus any PyPI
# packages the exporters need (scripts/deps/*.pip), installed from cached wheels.
python_env() {
  local venv=$DEPS/venv
  [[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv --system-site-packages "$venv"
  local reqs; reqs=$(cat "$ROOT"/scripts/deps/*.pip 2>/dev/null | grep -v '^#' | sort -u || true)
  [[ -z $reqs ]] && return
  local stamp=$venv/.reqs
  [[ -f $stamp && $(cat "$stamp") == "$reqs" ]] && return
  say "installing Python packages into $venv: $(echo $reqs)"
  # shellcheck disable=SC2086
  "$venv/bin/pip" download -q -d "$DL/wheels" $reqs
  # shellcheck disable=SC2086
  "$venv/bin/pip" install -q --no-index --find-links "$DL/wheels" $reqs
  echo "$reqs" >"$stamp"
}

for f in "$ROOT"/scripts/deps/*.sh; do
  # shellcheck source=/dev/null
  source "$f"
done
names=("$@")
with_python=0
if [[ ${#names[@]} -eq 0 ]]; then
  with_python=1
  for f in "$ROOT"/scripts/deps/*.sh; do names+=("$(basename "$f" .sh)"); done
fi
for n in "${names[@]}"; do
  if [[ $n == python ]]; then with_python=1; continue; fi
  "install_${n//-/_}"
done
# The fixture venv only when everything, or "python", was asked for.
[[ $with_python == 1 ]] && python_env
exit 0
