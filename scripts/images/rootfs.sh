# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by scripts/images.sh after podman-env.sh. No registry is reachable here, so every image
# starts FROM a Debian 12 root file system made by mmdebstrap from the host's own apt sources,
# with the packages the image needs already installed, and imported as a local image.
#   ensure_rootfs NAME PKG...   prints the image reference localhost/wasinn-rootfs:NAME-HASH
# HASH covers the package list and this file, so a changed list makes a new base and an
# unchanged one is reused (a refresh of Debian's updates: WASINN_IMAGES_REFRESH=1).
ensure_rootfs() {
  local name=$1; shift
  local pkgs; pkgs=$(printf '%s\n' "$@" | sort -u | paste -sd, -)
  local hash; hash=$( { echo "$pkgs"; cat "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-12)
  local ref=localhost/wasinn-rootfs:$name-$hash
  if [[ ${WASINN_IMAGES_REFRESH:-0} != 1 ]] && podman image exists "$ref"; then
    echo "$ref"; return
  fi
  local tar; tar=$(mktemp --suffix=.tar -p "$IMAGES_STATE")
  echo "images: making the $name base file system with mmdebstrap (about a minute)" >&2
  # The host's apt sources as one-line entries (bookworm, its updates and security), so the
  # image gets the same package versions the host resolves; docs, man pages and locales left out.
  mmdebstrap --quiet --variant=apt --format=tar --include="$pkgs" \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    bookworm "$tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" >&2 || { rm -f "$tar"; return 1; }
  podman import --quiet --change 'CMD ["/bin/bash"]' "$tar" "$ref" >/dev/null || { rm -f "$tar"; return 1; }
  rm -f "$tar"
  echo "$ref"
}
