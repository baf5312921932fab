#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The clean-machine check: runs the README's first command, `bash scripts/setup.sh`, from a clean
# clone of this repository's HEAD inside a bare Debian 12 root file system made by mmdebstrap
# (as the images' bases are), with every cache empty, and ends with the example's accuracy line
# and the time each step took. Run it whenever setup, a dependency or a build flag changes: a
# package the build uses but the setup does not install fails here, not on a user's machine.
#   bash scripts/check-fresh.sh [--stages] [--test] [--keep] [--dir DIR]
#     --stages  stop after the configure steps (Debian packages, every download, and the native
#               dependencies' CMake configure, where a missing package shows): minutes, not the
#               whole build
#     --test    after setup, run the README's second command (bash scripts/test.sh) too
#     --keep    keep the root file system (about 20 GB after a whole setup) for a look inside
#     --dir DIR where to make it (default /var/tmp/wasinn-fresh; removed first, and at the end
#               unless --keep)
# Needs root (chroot and bind mounts) and mmdebstrap (scripts/images/images.apt, which setup
# installs). What the root file system is given, and why (docs/setup.md, "The clean-machine check"):
#   - Debian's bookworm, bookworm-updates and bookworm-security from the host's apt sources and apt
#     configuration, plus git and ca-certificates (a user has git to clone with);
#   - the host's DNS (/etc/resolv.conf) and its extra CA certificates
#     (/usr/local/share/ca-certificates): the registries are reached through an egress proxy whose
#     certificate apt, pip, npm and cargo must all trust;
#   - pip's and npm's settings and the certificate variables (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE,
#     ...) from the host's environment, and its npmrc files;
#   - read-only, the two toolchains that every machine of this kind has but no reachable registry
#     ships: rustup's Rust (~/.rustup, ~/.cargo/bin; scripts/bench-peers.sh builds Wasmtime's CLI with it:
#     the engine itself is built by Debian's rustc-web, which setup unpacks) and
#     Node.js with npm (Debian's 18 is older than the machine's).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=/var/tmp/wasinn-fresh stages=0 keep=0 with_tests=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --stages) stages=1 ;;
    --test) with_tests=1 ;;
    --keep) keep=1 ;;
    --dir) DIR=${2:?--dir needs a directory}; shift ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-fresh.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ $(id -u) == 0 ]] || { echo "check-fresh.sh: needs root (chroot, bind mounts)" >&2; exit 2; }
command -v mmdebstrap >/dev/null || { echo "check-fresh.sh: mmdebstrap is missing: run bash scripts/setup.sh first (scripts/images/images.apt)" >&2; exit 2; }
RUSTUP_HOME_HOST=${RUSTUP_HOME:-$HOME/.rustup} CARGO_BIN_HOST=${CARGO_HOME:-$HOME/.cargo}/bin
NODE=$(command -v node || true) NODE_MODULES=/usr/lib/node_modules
for need in "$RUSTUP_HOME_HOST" "$CARGO_BIN_HOST/cargo" "$NODE" "$NODE_MODULES/npm"; do
  [[ -e $need ]] || { echo "check-fresh.sh: the machine's $need is missing (rustup's Rust and Node.js come with the machine image)" >&2; exit 2; }
done
if [[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no) ]]; then
  echo "check-fresh.sh: note: uncommitted changes are not checked (a clean clone of HEAD $(git -C "$ROOT" rev-parse --short HEAD) is)" >&2
fi

start=$SECONDS
say() { printf '[check-fresh %4d s] %s\n' $((SECONDS - start)) "$*"; }
RFS=$DIR/rootfs
mounts=()
cleanup() {
  local m i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  if [[ $keep == 0 ]]; then rm -rf "$DIR"; else echo "check-fresh.sh: kept $RFS"; fi
}
trap cleanup EXIT
bind() {  # SRC DEST [ro|rec]  (rec: with the mounts below SRC, kept from reaching back to the host)
  if [[ -d $1 ]]; then mkdir -p "$2"; else mkdir -p "$(dirname "$2")"; : >"$2"; fi
  if [[ ${3:-} == rec ]]; then
    mount --rbind "$1" "$2"; mount --make-rslave "$2"
  else
    mount --bind "$1" "$2"
  fi
  mounts+=("$2")
  [[ ${3:-} != ro ]] || mount -o remount,bind,ro "$2"
}

rm -rf "$DIR"; mkdir -p "$DIR"
say "making a bare Debian 12 root file system with mmdebstrap -> $RFS"
mmdebstrap --quiet --variant=apt --include=git,ca-certificates \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --setup-hook='mkdir -p "$1/etc/apt/apt.conf.d" && cp /etc/apt/apt.conf.d/99artifact-registry "$1/etc/apt/apt.conf.d/" 2>/dev/null || true' \
  bookworm "$RFS" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"
say "root file system made ($(chroot "$RFS" dpkg-query -W | wc -l) Debian packages)"

# Reaching the registries as the host does: DNS, the egress proxy's CA, apt's and npm's settings.
cp /etc/resolv.conf "$RFS/etc/resolv.conf"
cp /etc/hosts "$RFS/etc/hosts"
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$RFS/usr/local/share/ca-certificates/"
  chroot "$RFS" update-ca-certificates >/dev/null
fi
for f in /etc/npmrc /usr/etc/npmrc; do [[ -f $f ]] && mkdir -p "$RFS$(dirname "$f")" && cp "$f" "$RFS$f"; done
[[ -f $HOME/.npmrc ]] && cp "$HOME/.npmrc" "$RFS/root/.npmrc"

# The root a mount point of its own, before anything is mounted inside it: runc makes the
# container's "/" a slave mount, which fails ("mount /, flags: 0x84000: invalid argument") when the
# chroot's "/" is a plain directory, and the images' stage could not run here.
mount --bind "$RFS" "$RFS"; mounts+=("$RFS")
# /sys with its cgroup mounts: runc finds none in a plain bind ("no cgroup mount found in mountinfo").
bind /proc "$RFS/proc"; bind /sys "$RFS/sys" rec; bind /dev "$RFS/dev"; bind /dev/pts "$RFS/dev/pts"
mkdir -p "$RFS/dev/shm"; mount -t tmpfs tmpfs "$RFS/dev/shm"; mounts+=("$RFS/dev/shm")
bind "$RUSTUP_HOME_HOST" "$RFS/root/.rustup" ro
bind "$CARGO_BIN_HOST" "$RFS/root/.cargo/bin" ro
bind "$NODE" "$RFS/usr/bin/node" ro
bind "$NODE_MODULES" "$RFS/usr/lib/node_modules" ro
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$RFS/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$RFS/usr/bin/npx"

say "cloning HEAD ($(git -C "$ROOT" log -1 --format='%h %s' | cut -c1-70)) -> /root/wasinn"
git clone -q --no-local "$ROOT" "$RFS/root/wasinn"

# Only what a login on the machine has: no caches, no variables of this shell but the registries'.
envs=(HOME=/root PATH=/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
      LANG=C.UTF-8 TERM=dumb RUSTUP_AUTO_INSTALL=0 CI=${CI:-})
# Node.js trusts only its own CA list unless NODE_EXTRA_CA_CERTS names more (npm --prefix, as
# scripts/deps/jco.sh uses it, does not read the global npmrc's cafile), so the certificate
# variables the machine sets are passed on as they are (they name the same bundle path in the root).
for v in PIP_CERT PIP_DEFAULT_TIMEOUT PIP_DISABLE_PIP_VERSION_CHECK PIP_INDEX_URL PIP_EXTRA_INDEX_URL \
         NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE REQUESTS_CA_BUNDLE GIT_SSL_CAINFO \
         GRPC_DEFAULT_SSL_ROOTS_FILE_PATH HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  [[ -n ${!v:-} ]] && envs+=("$v=${!v}")
done
in_root() { chroot "$RFS" /usr/bin/env -i "${envs[@]}" bash -c "cd /root/wasinn && $1"; }

if [[ $stages == 1 ]]; then
  say "setup's configure stages: Debian packages, downloads, the native dependencies' configure"
  in_root 'bash scripts/setup.sh --configure-only'
  say "passed: setup's configure stages on a bare Debian 12 ($((SECONDS - start)) s in all)"
  exit 0
fi
say "bash scripts/setup.sh (the README's first command)"
log=$DIR/setup.log
set +e
in_root 'bash scripts/setup.sh' 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
[[ $rc == 0 ]] || { say "FAILED: scripts/setup.sh exited $rc on a bare Debian 12"; exit 1; }
accuracy=$(grep -a '^accuracy:' "$log" | tail -n 1)
[[ -n $accuracy ]] || { say "FAILED: setup passed but the example printed no accuracy line"; exit 1; }
setup_seconds=$((SECONDS - start))
if [[ $with_tests == 1 ]]; then
  say "bash scripts/test.sh (the README's second command)"
  in_root 'bash scripts/test.sh' 2>&1 | tee "$DIR/test.log" || { say "FAILED: scripts/test.sh on a bare Debian 12"; exit 1; }
fi
echo
echo "$accuracy"
say "passed: the README's first command on a bare Debian 12 from a clean clone: setup $setup_seconds s ($((setup_seconds / 60)) min)"
