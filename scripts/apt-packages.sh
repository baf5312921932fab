#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs the Debian packages listed in the given .apt files (one name a line, # comments) that
# are not installed yet; says "all N present" otherwise. Used by setup.sh and images.sh.
#   bash scripts/apt-packages.sh FILE.apt...
set -euo pipefail
mapfile -t pkgs < <(cat "$@" | sed 's/#.*//' | awk 'NF')
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing: ${missing[*]}"
  SUDO=; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "all ${#pkgs[@]} present"
fi
