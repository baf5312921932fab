# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# espeak-ng for the piper plugin (text to IPA phonemes), built from source with its own data.
# Debian 12's libespeak-ng (1.51) frees a translator it is still reading when a letter of another
# script makes it switch language twice (a guest's one character, U+0DD5, is enough: a
# heap-use-after-free found by fuzz_piper_input); upstream fixed that in 1.52 ("Add tertiary
# translator"). No Debian 12 package has the fix and Debian's sources are not served here, so the
# source comes from crates.io: the crate espeak-rs-sys carries upstream espeak-ng's tree as of
# 2024-12-16 (1.52.0.1: the 1.52.0 release plus upstream's later fixes, checked file by file).
# Built here: a static, position-independent libespeak-ng.a (+ libucd.a) that the plugin links
# with its symbols hidden; the same objects as libespeak-ng.so.1 for the fixtures' reference
# (ctypes); and espeak-ng-data compiled by this very build (the data of 1.51 does not match 1.52's
# code: stress and Chinese differ). No audio output, no async queue thread, no MBROLA or sonic.
# espeak-ng is GPL-3.0-or-later (the crate has no licence text: Debian's GPL-3 is installed).
# Sourced by scripts/fetch-deps.sh, which provides say, verified_fetch, $DEPS, $CACHE and $DL.
ESPEAK_NG_VERSION=1.52.0.1
ESPEAK_NG_CRATE_VERSION=0.2.0 # espeak-rs-sys
ESPEAK_NG_CRATE_SHA256=2d45d148019084e930df6cc3964a58c4c211342451ec5d3c328d8a6cc6b3464d

install_espeak_ng() {
  local prefix=$DEPS/espeak-ng stamp=$DEPS/espeak-ng/.version
  local key="espeak-ng $ESPEAK_NG_VERSION espeak-rs-sys $ESPEAK_NG_CRATE_VERSION static-pic no-async no-audio no-ctest data"
  [[ -f $stamp && $(cat "$stamp") == "$key" ]] && return
  local crate=espeak-rs-sys-$ESPEAK_NG_CRATE_VERSION.crate
  verified_fetch "https://static.crates.io/crates/espeak-rs-sys/$crate" "$crate" "$ESPEAK_NG_CRATE_SHA256"
  local work=$CACHE/build/espeak-ng-$ESPEAK_NG_VERSION
  local src=$work/espeak-rs-sys-$ESPEAK_NG_CRATE_VERSION/espeak-ng
  if [[ ! -f $src/CMakeLists.txt ]]; then
    rm -rf "$work" && mkdir -p "$work"
    tar -xzf "$DL/$crate" -C "$work"
  fi
  say "configuring espeak-ng $ESPEAK_NG_VERSION (log in $work/configure.log)"
  # A new tree each time (the build takes seconds): no cache entry of another configuration stays.
  # SONIC_LIB/SONIC_INC set: otherwise its CMake clones sonic from GitHub even with sonic off.
  # BUILD_TESTING off: CTest would look for valgrind, which the setup does not install.
  rm -rf "$work/build"
  cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DUSE_ASYNC=OFF \
    -DUSE_MBROLA=OFF -DUSE_LIBSONIC=OFF -DSONIC_LIB=unused -DSONIC_INC=unused -DUSE_LIBPCAUDIO=OFF \
    -DUSE_KLATT=OFF -DUSE_SPEECHPLAYER=OFF -DENABLE_TESTS=OFF -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
    >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
  if [[ ${WASINN_CONFIGURE_ONLY:-0} == 1 ]]; then say "espeak-ng $ESPEAK_NG_VERSION: configured (--configure-only: not built)"; return 0; fi
  say "building espeak-ng $ESPEAK_NG_VERSION and its data (about 20 s; log in $work/build.log)"
  # The default target: the library, the espeak-ng program and, with it, every language's data.
  cmake --build "$work/build" -j "${WASINN_JOBS:-2}" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log" >&2; exit 1; }
  rm -rf "$prefix"
  mkdir -p "$prefix/lib" "$prefix/include/espeak-ng" "$prefix/share/espeak-ng"
  cp "$work/build/src/libespeak-ng/libespeak-ng.a" "$work/build/src/ucd-tools/libucd.a" "$prefix/lib/"
  cp "$src"/src/include/espeak-ng/{speak_lib.h,espeak_ng.h,encoding.h} "$prefix/include/espeak-ng/"
  cc -shared -o "$prefix/lib/libespeak-ng.so.1" -Wl,-soname,libespeak-ng.so.1 \
    -Wl,--whole-archive "$prefix/lib/libespeak-ng.a" -Wl,--no-whole-archive "$prefix/lib/libucd.a" -lm -lpthread
  cp -r "$work/build/espeak-ng-data" "$prefix/share/espeak-ng-data"
  cp /usr/share/common-licenses/GPL-3 "$prefix/share/espeak-ng/COPYING"
  echo "$ESPEAK_NG_VERSION" >"$prefix/share/espeak-ng/version"
  echo "$key" >"$stamp"
  say "espeak-ng $ESPEAK_NG_VERSION -> $prefix ($(find "$prefix/share/espeak-ng-data" -name '*_dict' | wc -l) languages' data)"
}
