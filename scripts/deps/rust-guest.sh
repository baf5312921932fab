# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Rust toolchain for the compatibility guests (guest/rust): Debian's rustc 1.63 and cargo 0.66
# with the wasm32-wasi standard library, unpacked from the .debs into $DEPS/rust-wasm rather
# than installed, so it cannot clash with a rustup toolchain. Also fetches the guests' pinned
# crates (guest/rust/Cargo.lock) from crates.io into ~/.cache/wasinn/cargo.
# Sourced by scripts/fetch-deps.sh, which provides say, $ROOT, $DEPS, $CACHE and $DL.
RUST_GUEST_DEB_VERSION=1.63.0+dfsg1-2
RUST_GUEST_CARGO_DEB_VERSION=0.66.0+ds1-1

# Pinned toolchain packages, then the libraries cargo needs that a build machine usually lacks
# (unpinned: Debian replaces them with security updates).
rust_guest_debs() {
  echo "rustc=$RUST_GUEST_DEB_VERSION libstd-rust-1.63=$RUST_GUEST_DEB_VERSION"
  echo "libstd-rust-dev=$RUST_GUEST_DEB_VERSION libstd-rust-dev-wasm32=$RUST_GUEST_DEB_VERSION"
  echo "cargo=$RUST_GUEST_CARGO_DEB_VERSION"
  echo "libgit2-1.5 libhttp-parser2.9 libmbedcrypto7 libmbedtls14 libmbedx509-1"
}

install_rust_guest() {
  local prefix=$DEPS/rust-wasm stamp=$DEPS/rust-wasm/.version
  local want="$RUST_GUEST_DEB_VERSION/$RUST_GUEST_CARGO_DEB_VERSION"
  if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    local debs=$DL/rust-guest-debs/$RUST_GUEST_DEB_VERSION
    mkdir -p "$debs"
    if ! ls "$debs"/libstd-rust-dev-wasm32_*.deb "$debs"/libgit2-*.deb >/dev/null 2>&1; then
      say "downloading Debian's rustc $RUST_GUEST_DEB_VERSION, cargo and wasm32 std (.debs)"
      # shellcheck disable=SC2046
      if ! (cd "$debs" && apt-get download -q $(rust_guest_debs) >/dev/null 2>&1); then
        local sudo=; [[ $(id -u) -ne 0 ]] && sudo=sudo
        $sudo apt-get update -qq
        # shellcheck disable=SC2046
        (cd "$debs" && apt-get download -q $(rust_guest_debs) >/dev/null)
      fi
    fi
    rm -rf "$prefix" && mkdir -p "$prefix/bin"
    local d
    for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$prefix"; done
    rust_guest_wrapper >"$prefix/bin/cargo-wasm32"
    chmod +x "$prefix/bin/cargo-wasm32"
    if ! "$prefix/bin/cargo-wasm32" --version >/dev/null ||
       [[ ! -d $prefix/usr/lib/rustlib/wasm32-wasi/lib ]]; then
      say "rust-guest: the unpacked toolchain in $prefix does not run"
      return 1
    fi
    echo "$want" >"$stamp"
    say "rust-guest: rustc $RUST_GUEST_DEB_VERSION (wasm32-wasi) -> $prefix"
  fi
  # Fetch the guests' crates now so that building them needs no network.
  bash "$ROOT/guest/rust/build.sh" --fetch-only "$prefix/bin/cargo-wasm32"
}

# cargo-wasm32 [cargo ARGS]: runs the unpacked cargo with its libraries, the unpacked rustc,
# Debian's wasm-ld as the linker (the unpacked rust-lld link is broken) and the crate cache
# under ~/.cache/wasinn/cargo. guest/rust/build.sh drives it.
rust_guest_wrapper() {
  cat <<'WRAPPER'
#!/usr/bin/env bash
set -euo pipefail
prefix=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export RUSTC=$prefix/usr/bin/rustc RUSTDOC=$prefix/usr/bin/rustdoc
export CARGO_HOME=${WASINN_CARGO_HOME:-${WASINN_CACHE:-$HOME/.cache/wasinn}/cargo}
export CARGO_TARGET_WASM32_WASI_LINKER=${WASM_LD:-wasm-ld-14}
unset RUSTUP_TOOLCHAIN RUSTFLAGS CARGO_BUILD_TARGET
exec "$prefix/usr/bin/cargo" "$@"
WRAPPER
}
