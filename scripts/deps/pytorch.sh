# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# PyTorch backend: libtorch comes from Debian (scripts/deps/pytorch.apt), so there is nothing to
# download. This only checks that the installed version is the one the plugin and the fixtures
# are made for. Sourced by scripts/fetch-deps.sh, which provides say.
TORCH_DEBIAN_VERSION_PREFIX=1.13.1

install_pytorch() {
  local v
  v=$(dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null || true)
  if [[ -z $v ]]; then
    echo "libtorch-dev is not installed: run scripts/setup.sh (it installs scripts/deps/*.apt)" >&2
    exit 1
  fi
  if [[ $v != "$TORCH_DEBIAN_VERSION_PREFIX"* ]]; then
    echo "libtorch-dev $v found, the pytorch backend expects $TORCH_DEBIAN_VERSION_PREFIX" >&2
    exit 1
  fi
  say "pytorch: Debian libtorch-dev $v"
}
