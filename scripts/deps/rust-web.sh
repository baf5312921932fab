# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The modern Rust route for guests that need a current Rust (guest/rust-web: spin-sdk, wasmedge_wasi_socket): Debian 12's
# rustc-web 1.96 with its standard library's source, std rebuilt for wasm32-wasip1/-wasip2 with
# -Zbuild-std (RUSTC_BOOTSTRAP=1), unpacked from the .debs into $DEPS/rust-web rather than
# installed (no clash with rustup's toolchain or the rust-guest route). rustup's toolchains here
# have no wasm32 standard library and cannot download one (docs/setup.md).
# The unpacked tree is the toolchain's own sysroot, private to it; two fixes go into its
# lib/rustlib/<target>/lib/self-contained/ beside Debian's wasi-libc (2022):
#   - crt1-command.o: a `_start` that runs the C constructors, then main, then exit (Debian's
#     never runs the constructors, so on wasip2 no preopened directory is ever found);
#   - libc.a: a copy with stubs (scripts/deps/rust-web/wasi_stubs.c) for the symbols Rust 1.96's
#     std links and that wasi-libc lacks (pthread_create, chmod, realpath, sockets...).
# Also fetches the crates of every guest built this way (guest/rust-web/build.sh --fetch-only), std's
# own crates included, so the build needs no network.
# Sourced by scripts/fetch-deps.sh, which provides say, $ROOT, $DEPS, $CACHE and $DL.
RUST_WEB_DEB_VERSION=1.96.0+dfsg1-1~deb12u2
RUST_WEB_LLD_DEB_VERSION=1:22.1.8-1~deb12u1

# Pinned toolchain packages (rustc, its std and source, cargo, rust-lld's lld-22 and the LLVM
# both link), then cargo's libraries that a build machine usually lacks (unpinned: Debian replaces
# them with security updates). The libraries present on any Debian 12 are in rust-web.apt.
rust_web_debs() {
  local v=$RUST_WEB_DEB_VERSION
  echo "rustc-web=$v libstd-rust-web-1.96=$v libstd-rust-web-dev=$v rust-web-src=$v cargo-web=$v"
  echo "rust-web-llvm=$v lld-22=$RUST_WEB_LLD_DEB_VERSION libllvm22=$RUST_WEB_LLD_DEB_VERSION"
  echo "libgit2-1.5 libhttp-parser2.9 libmbedcrypto7 libmbedtls14 libmbedx509-1"
}

install_rust_web() {
  local prefix=$DEPS/rust-web stamp=$DEPS/rust-web/.version
  local fixes=$ROOT/scripts/deps/rust-web
  local want; want="$RUST_WEB_DEB_VERSION/$RUST_WEB_LLD_DEB_VERSION/$(cat "$fixes"/*.c | sha256sum | cut -c1-12)"
  if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    local debs=$DL/rust-web-debs/$RUST_WEB_DEB_VERSION
    mkdir -p "$debs"
    if ! ls "$debs"/rustc-web_*.deb "$debs"/rust-web-src_*.deb "$debs"/libgit2-*.deb >/dev/null 2>&1; then
      say "downloading Debian's rustc-web $RUST_WEB_DEB_VERSION, its std source, cargo and lld-22 (.debs)"
      # shellcheck disable=SC2046
      if ! (cd "$debs" && apt-get download -q $(rust_web_debs) >/dev/null 2>&1); then
        local sudo=; [[ $(id -u) -ne 0 ]] && sudo=sudo
        $sudo apt-get update -qq
        # shellcheck disable=SC2046
        (cd "$debs" && apt-get download -q $(rust_web_debs) >/dev/null)
      fi
    fi
    say "unpacking rustc-web $RUST_WEB_DEB_VERSION -> $prefix"
    rm -rf "$prefix" && mkdir -p "$prefix/bin"
    local d
    for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$prefix"; done
    rust_web_sysroot_fixes "$prefix" "$fixes" || return 1
    rust_web_wrappers "$prefix"
    if ! "$prefix/bin/cargo-wasm" --version >/dev/null ||
       [[ ! -d $prefix/usr/lib/rustlib/src/rust/library/std ]]; then
      say "rust-web: the unpacked toolchain in $prefix does not run"
      return 1
    fi
    echo "$want" >"$stamp"
    say "rust-web: rustc $RUST_WEB_DEB_VERSION (wasm32-wasip1, wasm32-wasip2 by -Zbuild-std) -> $prefix"
  else
    # Written on every run, so a tree unpacked before a wrapper was added gets it too.
    rust_web_wrappers "$prefix"
  fi
  # Fetch the guests' crates (and std's) now so that building them needs no network.
  bash "$ROOT/guest/rust-web/build.sh" --fetch-only "$prefix/bin/cargo-wasm"
}

# rust_web_sysroot_fixes PREFIX FIXES: Debian's wasi-libc archives for each wasm32 target, with
# the two fixes (above) compiled by clang-14.
rust_web_sysroot_fixes() {
  local prefix=$1 fixes=$2 tmp
  tmp=$(mktemp -d)
  if ! clang-14 --target=wasm32-wasi -O2 -c "$fixes/crt1_command.c" -o "$tmp/crt1-command.o" ||
     ! clang-14 --target=wasm32-wasi -O2 -c "$fixes/wasi_stubs.c" -o "$tmp/wasi_stubs.o"; then
    say "rust-web: clang-14 cannot compile for wasm32-wasi (core.apt: clang-14, wasi-libc)"
    rm -rf "$tmp"
    return 1
  fi
  local t dir
  for t in wasm32-wasip1 wasm32-wasip2; do
    dir=$prefix/usr/lib/rustlib/$t/lib/self-contained
    mkdir -p "$dir"
    cp /usr/lib/wasm32-wasi/*.a /usr/lib/wasm32-wasi/crt1-reactor.o "$dir/"
    cp "$tmp/crt1-command.o" "$dir/crt1-command.o"
    llvm-ar-14 rs "$dir/libc.a" "$tmp/wasi_stubs.o"
  done
  rm -rf "$tmp"
}

# PREFIX/bin/cargo-wasm (guests) and PREFIX/bin/cargo-host (the engine: x86_64, Debian's own std).
rust_web_wrappers() {
  local prefix=$1
  rust_web_wrapper >"$prefix/bin/cargo-wasm.tmp"
  rust_web_host_wrapper >"$prefix/bin/cargo-host.tmp"
  chmod +x "$prefix/bin/cargo-wasm.tmp" "$prefix/bin/cargo-host.tmp"
  mv "$prefix/bin/cargo-wasm.tmp" "$prefix/bin/cargo-wasm"
  mv "$prefix/bin/cargo-host.tmp" "$prefix/bin/cargo-host"
}

# cargo-host [cargo ARGS]: the unpacked cargo and rustc for this machine's own code (Wasmtime 49
# needs Rust 1.96, newer than rustup's stable here: scripts/build-engine.sh); `cargo-host
# --rustc ARGS` runs that rustc. CARGO_HOME is the caller's.
rust_web_host_wrapper() {
  cat <<'WRAPPER'
#!/usr/bin/env bash
set -euo pipefail
prefix=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$prefix/usr/bin:$PATH
export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export RUSTC=$prefix/usr/bin/rustc RUSTDOC=$prefix/usr/bin/rustdoc
unset RUSTUP_TOOLCHAIN RUSTC_WRAPPER RUSTC_BOOTSTRAP CARGO_UNSTABLE_BUILD_STD CARGO_BUILD_TARGET
if [[ ${1:-} == --rustc ]]; then
  shift
  exec "$RUSTC" "$@"
fi
exec "$prefix/usr/bin/cargo" "$@"
WRAPPER
}

# cargo-wasm [cargo ARGS]: the unpacked cargo and rustc with their libraries, std rebuilt from
# source for the wasm target (RUSTC_BOOTSTRAP=1 allows -Zbuild-std on a stable rustc), lld-22's
# wasm-ld found on the PATH by wasm-component-ld (wasip2) and rustc (wasip1), crates under
# ~/.cache/wasinn/cargo-web. guest/rust-web/build.sh drives it.
rust_web_wrapper() {
  cat <<'WRAPPER'
#!/usr/bin/env bash
set -euo pipefail
prefix=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$prefix/usr/lib/llvm-22/bin:$prefix/usr/bin:$PATH
export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export RUSTC=$prefix/usr/bin/rustc RUSTDOC=$prefix/usr/bin/rustdoc
export RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_HOME=${WASINN_CARGO_WEB_HOME:-${WASINN_CACHE:-$HOME/.cache/wasinn}/cargo-web}
unset RUSTUP_TOOLCHAIN RUSTFLAGS CARGO_BUILD_TARGET CARGO_ENCODED_RUSTFLAGS RUSTC_WRAPPER
exec "$prefix/usr/bin/cargo" "$@"
WRAPPER
}
