# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by scripts/images.sh: the guest-compile image wasinn:VERSION-compile (docs/deployment.md,
# "The compile image"). Its Debian base carries the toolchains; the build context carries the
# project's guest headers, WIT, componentize.mjs with jco, the wrappers of images/compile/ and the
# Rust guests' vendored crates, all made on the host (nothing is downloaded inside `podman build`).
#   compile_packages        the Debian packages of the image's base, one a line
#   stage_compile DIR       fills the build context DIR (rsync: unchanged files keep their mtimes)
# WASINN_IMAGES_COMPILE_RUST=0 leaves the Rust route out (about 660 MB of the image's 1.41 GB).

# C and C++ guests for wasm32-wasi with Debian's clang 14 (../shared/docs/guest-toolchains.md);
# `clang` and `lld` give the plain names clang, clang++ and wasm-ld. nodejs is Debian's 18, which
# runs jco 1.35.0. rustc, cargo and the wasm32 std are the 1.63 route of scripts/deps/rust-guest.sh
# (the guests of guest/rust), installed rather than unpacked since the image has no other Rust.
compile_packages() {
  printf '%s\n' clang lld wasi-libc libclang-rt-14-dev-wasm32 \
    libc++-14-dev-wasm32 libc++abi-14-dev-wasm32 \
    nodejs
  [[ ${WASINN_IMAGES_COMPILE_RUST:-1} == 0 ]] || printf '%s\n' rustc cargo libstd-rust-dev-wasm32
}

# stage_compile DIR: DIR/jco (jco's node_modules, its own layer: large and rarely changed),
# DIR/cargo-vendor (guest/rust's crates) and DIR/wasinn (everything else that goes to /opt/wasinn).
stage_compile() {
  local dir=${1:?stage_compile needs a directory}
  local root; root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  local deps=${WASINN_DEPS_DIR:-$root/.deps}
  local jco=$deps/jco-1.35.0
  if [[ ! -f $jco/.version || $(cat "$jco/.version") != 1.35.0 ]]; then
    echo "stage_compile: jco 1.35.0 is not in $jco (bash scripts/fetch-deps.sh jco)" >&2; return 1
  fi
  # The Rust guests' crates, vendored by guest/rust/build.sh (the one step that goes online) for
  # the current Cargo.lock; made here if missing and the unpacked toolchain is there.
  local cache=${WASINN_CACHE:-$HOME/.cache/wasinn} vendor=
  if [[ ${WASINN_IMAGES_COMPILE_RUST:-1} != 0 ]]; then
    vendor=$cache/cargo/vendor/$(sha256sum "$root/guest/rust/Cargo.lock" | cut -c1-16)
    if [[ ! -f $vendor/.complete && -x $deps/rust-wasm/bin/cargo-wasm32 ]]; then
      bash "$root/guest/rust/build.sh" --fetch-only "$deps/rust-wasm/bin/cargo-wasm32" >&2
    fi
    if [[ ! -f $vendor/.complete ]]; then
      echo "stage_compile: guest/rust's crates are not vendored in $vendor (bash scripts/fetch-deps.sh rust-guest," \
           "or WASINN_IMAGES_COMPILE_RUST=0 for an image without Rust)" >&2
      return 1
    fi
  fi
  mkdir -p "$dir"/{jco,cargo-vendor,wasinn/guest,wasinn/scripts}
  # Only Containerfile.compile's three folders and LICENSES (stage_licenses) live in DIR.
  local entry
  for entry in "$dir"/* "$dir"/.[!.]*; do
    [[ -e $entry ]] || continue
    case ${entry##*/} in jco|cargo-vendor|wasinn|LICENSES) ;; *) rm -rf "$entry" ;; esac
  done
  # jco without its JavaScript componentizers (componentize-js, componentize-qjs's native binding,
  # wizer: 130 MB, only for `jco componentize` of JS sources); the wasm-tools functions and
  # preview1 adapters that componentize.mjs uses, and the rest of the jco CLI, stay.
  rsync -a --delete --delete-excluded \
    --exclude=/node_modules/@bytecodealliance/componentize-js/ \
    --exclude=/node_modules/@bytecodealliance/componentize-js-0-19-3/ \
    --exclude=/node_modules/@bytecodealliance/wizer/ \
    --exclude=/node_modules/@bytecodealliance/wizer-linux-x64/ \
    --exclude=/node_modules/@andreiltd/ \
    "$jco/" "$dir/jco/"
  if [[ -n $vendor ]]; then
    rsync -a --delete --exclude=.complete "$vendor/" "$dir/cargo-vendor/"
  else
    find "$dir/cargo-vendor" -mindepth 1 -delete
  fi
  local w=$dir/wasinn
  rsync -a --delete "$root/guest/include/" "$w/guest/include/"
  rsync -a --delete "$root/guest/examples/" "$w/guest/examples/"
  # The component guests' sources and worlds (command_start.c, cabi_realloc.c, worlds*.wit are
  # what wasinn-componentize links and embeds); their CMake rules and the test mocks stay behind.
  rsync -a --delete --exclude=CMakeLists.txt --exclude=mock/ "$root/guest/components/" "$w/guest/components/"
  rsync -a --delete "$root/wit/" "$w/wit/"
  rsync -a --delete "$root/scripts/componentize.mjs" "$w/scripts/"
  rsync -a --delete "$root/images/compile/bin/" "$w/bin/"
  rsync -a --delete "$root/images/compile/cargo/" "$w/cargo/"
}
