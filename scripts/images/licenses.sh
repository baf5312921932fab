# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by scripts/images.sh (and tests/images/): the third-party notices of the images.
#   stage_licenses FLAVOR DIR   FLAVOR cpu | nvidia | compile: fills DIR (copied to
#                               /opt/wasinn/LICENSES) with one folder per non-Debian component
#                               and a README (nvidia: README.nvidia) listing component, version, SPDX licence, folder and
#                               where the text came from. Unchanged files keep their mtimes
#                               (podman's layer cache keys on them).
#   licenses_spdx FLAVOR        the SPDX expression of the OCI label
#                               org.opencontainers.image.licenses (a static table: called on
#                               every build; stage_licenses checks every crate's and npm
#                               package's declared licence against it).
# Texts come read-only from the download cache (~/.cache/wasinn/dl) and the unpacked prefixes
# (.deps); nothing is downloaded. A text that is gone (cache cleaned) is reported in the README
# and on stderr, and tests/images/licenses.sh then fails for it.

_LIC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# wasinn's own code: the repository's LICENSE (Apache-2.0 with the LLVM exception, as Wasmtime's),
# named first in every label and copied to /opt/wasinn/LICENSES/wasinn/.
WASINN_OWN_SPDX="Apache-2.0 WITH LLVM-exception"

# The licences each image's label names (joined with AND): each component's own, every licence
# a linked Rust crate or bundled npm package declares (an OR is satisfied by one branch here),
# the best-known ones inside the frameworks' notices (Eigen's MPL-2.0 in ONNX Runtime and
# TensorFlow, Boost's BSL-1.0 in ONNX Runtime), and the Debian packages' (their copyright files).
_LIC_IDS_CPU=(
  "$WASINN_OWN_SPDX" MIT Apache-2.0 BSD-3-Clause BSD-2-Clause
  ISC Zlib Unicode-3.0 CDLA-Permissive-2.0 MPL-2.0 BSL-1.0 Unlicense GPL-3.0-or-later
  LicenseRef-Debian-packages
)
_LIC_IDS_NVIDIA=("${_LIC_IDS_CPU[@]}" LicenseRef-NVIDIA-CUDA-EULA LicenseRef-NVIDIA-cuDNN-SLA)
_LIC_IDS_COMPILE=(
  "$WASINN_OWN_SPDX" Apache-2.0 MIT ISC BSD-2-Clause BSD-3-Clause
  BlueOak-1.0.0 Unicode-3.0 LicenseRef-Debian-packages
)

licenses_spdx() {
  case ${1:-} in cpu|nvidia|compile) ;; *) echo "licenses_spdx: no image '${1:-}' (cpu, nvidia, compile)" >&2; return 2 ;; esac
  local -n _ids=_LIC_IDS_${1^^}
  local out= id
  for id in "${_ids[@]}"; do out+="${out:+ AND }$id"; done
  echo "$out"
}

stage_licenses() {
  local flavor=${1:?usage: stage_licenses cpu|nvidia|compile DIR} dir=${2:?usage: stage_licenses FLAVOR DIR}
  case $flavor in cpu|nvidia|compile) ;; *) echo "stage_licenses: no image '$flavor'" >&2; return 2 ;; esac
  local cache=${WASINN_CACHE:-$HOME/.cache/wasinn}
  _LIC_DL=$cache/dl
  _LIC_DEPS=${WASINN_DEPS:-$_LIC_ROOT/.deps}
  [[ -d $_LIC_DEPS ]] || _LIC_DEPS=$cache/deps
  _LIC_CACHE=$cache
  # Unchanged inputs (the archives' names, sizes and times, the lock files, the toolchain, these
  # scripts) and an intact DIR: nothing to do, so a rebuild with nothing changed stays quick.
  local key keyfile=$cache/images/licenses-$flavor-$(echo "$dir" | sha256sum | cut -c1-12).key
  key=$(_lic_inputs "$flavor" | sha256sum | cut -c1-32)
  if [[ -s $dir/$(_lic_readme_name "$flavor") && -f $keyfile &&
        $(cat "$keyfile") == "$key $(_lic_listing "$dir")" ]]; then
    echo "licences: $flavor: unchanged ($dir)" >&2
    return 0
  fi
  rm -f "$keyfile"
  _LIC_ROWS=() _LIC_MISSING=0 _LIC_DECLARED=() _LIC_DIR=$dir
  _LIC_OUT=$(mktemp -d)
  chmod 755 "$_LIC_OUT"
  local rc=0
  "_lic_$flavor" || rc=$?
  if [[ $rc == 0 ]]; then
    _lic_readme "$flavor" >"$_LIC_OUT/$(_lic_readme_name "$flavor")"
    _lic_check_declared "$flavor" || rc=$?
  fi
  if [[ $rc == 0 ]]; then
    find "$_LIC_OUT" -type d -exec chmod 755 {} + && find "$_LIC_OUT" -type f -exec chmod 644 {} +
    mkdir -p "$dir"
    # By content, not by time: every run extracts afresh, and only a changed text may get a new
    # mtime (no -t), so an unchanged folder keeps podman's cached layer.
    rsync -rlp --delete --checksum "$_LIC_OUT/" "$dir/"
    echo "licences: $flavor: ${#_LIC_ROWS[@]} components -> $dir$([[ $_LIC_MISSING -gt 0 ]] && echo " ($_LIC_MISSING MISSING: see its README)")" >&2
    # A folder with a missing text is remade next time (the cache may have been refilled).
    [[ $_LIC_MISSING == 0 ]] && mkdir -p "${keyfile%/*}" && echo "$key $(_lic_listing "$dir")" >"$keyfile"
  fi
  rm -rf "$_LIC_OUT"
  return $rc
}

# _lic_listing DIR: a hash of DIR's files, sizes and times (a folder changed since is remade).
_lic_listing() { find "$1" -printf '%P %s %T@\n' | sort | sha256sum | cut -c1-16; }
# _lic_inputs FLAVOR: what the staged folder depends on, as text (hashed into its key).
_lic_inputs() {
  echo "$1"
  cat "$_LIC_ROOT/LICENSE" "$_LIC_ROOT/scripts/images/licenses.sh" "$_LIC_ROOT/scripts/images/licenses.py" \
    "$_LIC_ROOT/src/Cargo.lock" "$_LIC_ROOT"/src/Cargo.toml "$_LIC_ROOT"/src/*/Cargo.toml "$_LIC_ROOT"/src/*/*/Cargo.toml \
    "$_LIC_ROOT"/scripts/deps/{onnxruntime,openvino,tensorflow,tensorflowlite,llamacpp,whisper,espeak-ng,jco}.sh \
    "$_LIC_DEPS"/jco-*/.version "$_LIC_DEPS"/onnxruntime-cuda-*/.version "$_LIC_ROOT/guest/rust/Cargo.lock" 2>/dev/null
  ls "$_LIC_CACHE"/cargo/vendor 2>/dev/null
  grep -h '^project(' "$_LIC_ROOT/CMakeLists.txt"
  (command -v rustc >/dev/null || PATH=$HOME/.cargo/bin:$PATH; rustc --version 2>/dev/null)
  "$_LIC_ROOT/.deps/rust-web/bin/cargo-host" --rustc --version 2>/dev/null
  dpkg-query -W libcli11-dev nlohmann-json3-dev libtoml11-dev 2>/dev/null
  find "$_LIC_DL" -maxdepth 2 \( -name '*.whl' -o -name '*.tgz' -o -name '*.tar.gz' \) -printf '%p %s %T@\n' 2>/dev/null | sort
  true
}
# The nvidia image's folder is copied over the cpu image's: its table is README.nvidia, beside
# the cpu image's README, and its folders are named apart from the cpu image's.
_lic_readme_name() { if [[ $1 == nvidia ]]; then echo README.nvidia; else echo README; fi; }
# _lic_row COMPONENT VERSION SPDX FOLDER FROM: one line of the README's table.
_lic_row() { _LIC_ROWS+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"$'\t'"$5"); }
# _lic_missing COMPONENT VERSION SPDX WHAT: a component whose text is not in the caches.
_lic_missing() {
  _LIC_MISSING=$((_LIC_MISSING + 1))
  echo "stage_licenses: MISSING the licence of $1 $2: $4" >&2
  _lic_row "$1" "$2" "$3" "-" "MISSING: $4"
}
# _lic_first GLOB...: the first existing file among the globs (empty if none).
_lic_first() {
  local f
  for f in "$@"; do [[ -s $f ]] && { echo "$f"; return; }; done
  return 0
}
# _lic_unzip ZIP DEST MEMBER...: members into DEST (flat), all required.
_lic_unzip() {
  local zip=$1 dest=$2 m; shift 2
  mkdir -p "$dest"
  for m in "$@"; do unzip -p "$zip" "$m" >"$dest/$(basename "$m")" && [[ -s $dest/$(basename "$m") ]] || return 1; done
}
# _lic_untar TGZ DEST MEMBER[=NAME]...: members into DEST (flat, optionally renamed), all
# required; one pass over the archive (the ONNX Runtime one is 150 MB).
_lic_untar() {
  local tgz=$1 dest=$2 m name tmp rc=0; shift 2
  tmp=$(mktemp -d)
  local members=(); for m in "$@"; do members+=("${m%%=*}"); done
  tar -xzf "$tgz" -C "$tmp" "${members[@]}" 2>/dev/null || rc=1
  mkdir -p "$dest"
  for m in "$@"; do
    name=${m#*=}; [[ $name == "$m" ]] && name=$(basename "$m")
    if [[ -s $tmp/${m%%=*} ]]; then mv "$tmp/${m%%=*}" "$dest/$name"; else rc=1; fi
  done
  rm -rf "$tmp"
  return $rc
}
# _lic_pin FILE VAR: a variable of one of scripts/deps/*.sh (pins live there only).
_lic_pin() { (source "$1" >/dev/null 2>&1; eval "echo \"\${$2}\""); }
_lic_path() { local p=$1; echo "${p/#$HOME/\~}"; }

_lic_cpu() {
  local out=$_LIC_OUT f v
  _lic_wasinn

  # ONNX Runtime: the npm package carries Microsoft's LICENSE and ThirdPartyNotices.txt.
  local ortfile=$_LIC_ROOT/scripts/deps/onnxruntime.sh
  v=$(_lic_pin "$ortfile" ORT_VERSION)
  f=$_LIC_DL/$(_lic_pin "$ortfile" ORT_NPM_PACKAGE)-$(_lic_pin "$ortfile" ORT_NPM_VERSION).tgz
  if [[ -s $f ]] && _lic_untar "$f" "$out/onnxruntime" package/LICENSE package/ThirdPartyNotices.txt; then
    _lic_row "ONNX Runtime" "$v" "MIT" "onnxruntime/" "$(_lic_path "$f") (npm): package/LICENSE, package/ThirdPartyNotices.txt"
  else
    _lic_missing "ONNX Runtime" "$v" MIT "$(_lic_path "$f") is not in the download cache (scripts/fetch-deps.sh onnxruntime)"
  fi

  # OpenVINO: LICENSE and the third-party-programs files of the wheel's dist-info.
  v=$(_lic_pin "$_LIC_ROOT/scripts/deps/openvino.sh" OPENVINO_VERSION)
  f=$(_lic_first "$_LIC_DL"/openvino-"$v"-*.whl "$_LIC_DL"/wheels/openvino-"$v"-*.whl)
  local members
  if [[ -n $f ]] && members=$(unzip -Z1 "$f" "openvino-$v.dist-info/licenses/*" 2>/dev/null | grep -v '/$') &&
     _lic_unzip "$f" "$out/openvino" $members; then
    _lic_row "OpenVINO (with oneTBB, oneDNN, hwloc)" "$v" "Apache-2.0" "openvino/" \
      "$(_lic_path "$f"): openvino-$v.dist-info/licenses/ (LICENSE, *third-party-programs.txt)"
  else
    _lic_missing "OpenVINO" "$v" Apache-2.0 "the openvino $v wheel is not in $(_lic_path "$_LIC_DL") (scripts/fetch-deps.sh openvino)"
  fi

  # TensorFlow C library: the tensorflow-cpu wheel's LICENSE and THIRD_PARTY_NOTICES.txt.
  v=$(_lic_pin "$_LIC_ROOT/scripts/deps/tensorflow.sh" TF_VERSION)
  f=$(_lic_first "$_LIC_DL"/wheels/tensorflow_cpu-"$v"-*.whl)
  if [[ -n $f ]] && _lic_unzip "$f" "$out/tensorflow" tensorflow/include/LICENSE tensorflow/THIRD_PARTY_NOTICES.txt; then
    _lic_row "TensorFlow C library" "$v" "Apache-2.0" "tensorflow/" \
      "$(_lic_path "$f"): tensorflow/include/LICENSE, tensorflow/THIRD_PARTY_NOTICES.txt"
  else
    _lic_missing "TensorFlow C library" "$v" Apache-2.0 "the tensorflow_cpu $v wheel is not in $(_lic_path "$_LIC_DL/wheels") (scripts/fetch-deps.sh tensorflow)"
  fi

  # LiteRT: the ai-edge-litert wheel ships only its own LICENSE (no third-party notices).
  v=$(_lic_pin "$_LIC_ROOT/scripts/deps/tensorflowlite.sh" LITERT_VERSION)
  f=$(_lic_first "$_LIC_DL"/wheels/ai_edge_litert-"$v"-*.whl)
  if [[ -n $f ]] && _lic_unzip "$f" "$out/litert" "ai_edge_litert-$v.dist-info/licenses/LICENSE"; then
    _lic_row "LiteRT (libLiteRt, its WebGPU accelerator)" "$v" "Apache-2.0" "litert/" \
      "$(_lic_path "$f"): ai_edge_litert-$v.dist-info/licenses/LICENSE (the wheel has no third-party notices)"
  elif [[ -s $_LIC_DEPS/litert/LICENSE ]]; then
    mkdir -p "$out/litert" && cp "$_LIC_DEPS/litert/LICENSE" "$out/litert/"
    _lic_row "LiteRT (libLiteRt, its WebGPU accelerator)" "$v" "Apache-2.0" "litert/" "$(_lic_path "$_LIC_DEPS/litert/LICENSE") (the wheel's, kept by scripts/deps/tensorflowlite.sh; the wheel itself is gone from the cache)"
  else
    _lic_missing "LiteRT" "$v" Apache-2.0 "neither the ai_edge_litert $v wheel nor $(_lic_path "$_LIC_DEPS/litert/LICENSE") is there (scripts/fetch-deps.sh tensorflowlite)"
  fi

  _lic_llamacpp
  _lic_outetts
  _lic_whisper
  _lic_espeak_ng
  _lic_wasmtime || return 1
  _lic_rust_std
  _lic_cxx_headers
  _lic_row "libtorch (PyTorch) and every other Debian package" "Debian 12" "per package" "/usr/share/doc/" \
    "Debian's /usr/share/doc/PACKAGE/copyright in the image (kept by the base image's dpkg filter)"
}

# llama.cpp and ggml, with what libllama-common compiles in: nlohmann/json, cpp-httplib,
# sheredom's subprocess.h; all from the llama-cpp-python sdist that scripts/deps/llamacpp.sh builds.
_lic_llamacpp() {
  local pins=$_LIC_ROOT/scripts/deps/llamacpp.sh v py f
  py=$(_lic_pin "$pins" LLAMACPP_PY_VERSION)
  v="b$(_lic_pin "$pins" LLAMACPP_BUILD_NUMBER)"
  f=$_LIC_DL/llama_cpp_python-$py.tar.gz
  local src=llama_cpp_python-$py/vendor/llama.cpp
  if [[ -s $f ]] && _lic_untar "$f" "$_LIC_OUT/llama.cpp" "$src/LICENSE" "$src/licenses/LICENSE-jsonhpp=LICENSE-nlohmann-json" \
       "$src/vendor/cpp-httplib/LICENSE=LICENSE-cpp-httplib" "$src/vendor/sheredom/subprocess.h=.subprocess.h"; then
    # subprocess.h has its dedication in its head comment only.
    awk '/This is free and unencumbered/ {on = 1} on && /\*\// {exit} on' "$_LIC_OUT/llama.cpp/.subprocess.h" \
      >"$_LIC_OUT/llama.cpp/LICENSE-subprocess.h"
    rm "$_LIC_OUT/llama.cpp/.subprocess.h"
    _lic_row "llama.cpp and ggml (with nlohmann/json, cpp-httplib, subprocess.h)" "$v" "MIT AND Unlicense" "llama.cpp/" \
      "$(_lic_path "$f") (PyPI sdist of llama-cpp-python $py): vendor/llama.cpp/{LICENSE, licenses/LICENSE-jsonhpp, vendor/cpp-httplib/LICENSE, vendor/sheredom/subprocess.h}"
  else
    _lic_missing "llama.cpp and ggml" "$v" MIT "$(_lic_path "$f") is not in the download cache (scripts/fetch-deps.sh llamacpp)"
  fi
}

# whisper.cpp (with its own ggml) and miniaudio, which the whisper plugin compiles in.
_lic_whisper() {
  local pins=$_LIC_ROOT/scripts/deps/whisper.sh v py f
  py=$(_lic_pin "$pins" PYWHISPERCPP_VERSION)
  v=$(_lic_pin "$pins" WHISPERCPP_VERSION)
  f=$_LIC_DL/pywhispercpp-$py.tar.gz
  local src=pywhispercpp-$py/whisper.cpp
  if [[ -s $f ]] && _lic_untar "$f" "$_LIC_OUT/whisper.cpp" "$src/LICENSE" "$src/examples/miniaudio.h=.miniaudio.h"; then
    awk '/This software is available as a choice of the following licenses/ {on = 1} on && /^\*\// {exit} on' \
      "$_LIC_OUT/whisper.cpp/.miniaudio.h" >"$_LIC_OUT/whisper.cpp/LICENSE-miniaudio"
    rm "$_LIC_OUT/whisper.cpp/.miniaudio.h"
    _lic_row "whisper.cpp (with its ggml) and miniaudio" "$v" "MIT AND (Unlicense OR MIT-0)" "whisper.cpp/" \
      "$(_lic_path "$f") (PyPI sdist of pywhispercpp $py): whisper.cpp/LICENSE, the licence at the end of whisper.cpp/examples/miniaudio.h"
  elif [[ -s $_LIC_DEPS/whisper/share/whisper/LICENSE ]]; then
    mkdir -p "$_LIC_OUT/whisper.cpp" && cp "$_LIC_DEPS/whisper/share/whisper/LICENSE" "$_LIC_OUT/whisper.cpp/"
    _lic_missing "miniaudio (in the whisper plugin)" "-" "Unlicense OR MIT-0" "$(_lic_path "$f") is gone from the download cache; whisper.cpp's LICENSE came from $(_lic_path "$_LIC_DEPS/whisper/share/whisper/LICENSE")"
    _lic_row "whisper.cpp (with its ggml)" "$v" "MIT" "whisper.cpp/" "$(_lic_path "$_LIC_DEPS/whisper/share/whisper/LICENSE")"
  else
    _lic_missing "whisper.cpp" "$v" MIT "$(_lic_path "$f") is not in the download cache (scripts/fetch-deps.sh whisper)"
  fi
}

# espeak-ng, linked into the piper plugin (its data beside it): built from the source the crate
# espeak-rs-sys carries, which has no licence text; espeak-ng is GPL-3.0-or-later (its sources'
# headers say so), and scripts/deps/espeak-ng.sh installs the GPL's text with it.
_lic_espeak_ng() {
  local pins=$_LIC_ROOT/scripts/deps/espeak-ng.sh v crate f
  v=$(_lic_pin "$pins" ESPEAK_NG_VERSION)
  crate=$(_lic_pin "$pins" ESPEAK_NG_CRATE_VERSION)
  f=$_LIC_DEPS/espeak-ng/share/espeak-ng/COPYING
  if [[ -s $f ]]; then
    mkdir -p "$_LIC_OUT/espeak-ng" && cp "$f" "$_LIC_OUT/espeak-ng/COPYING"
    _lic_row "espeak-ng (in the piper plugin, with its data)" "$v" "GPL-3.0-or-later" "espeak-ng/" \
      "$(_lic_path "$f") (the GPL's text; the source is the crate espeak-rs-sys $crate, crates.io)"
  else
    _lic_missing "espeak-ng" "$v" GPL-3.0-or-later "$(_lic_path "$f") is missing (scripts/fetch-deps.sh espeak-ng)"
  fi
}

# Wasmtime and every crate linked into libwasinn_wasmtime.so (normal dependencies of its crate,
# src/wasmtime_library, for this target, no build scripts or proc macros: cargo tree over the
# workspace's Cargo.lock), with
# the texts from the crates cargo unpacked, and the Rust standard library linked into it.
_lic_wasmtime() {
  local crate=$_LIC_ROOT/src/wasmtime_library
  local v; v=$(sed -n 's/^wasmtime = { version = "=\([0-9.]*\)".*/\1/p' "$_LIC_ROOT/src/Cargo.toml")
  command -v cargo >/dev/null || PATH=$HOME/.cargo/bin:$PATH
  local home=${WASINN_CARGO_HOME:-$_LIC_CACHE/engine/cargo-home}
  local registry; registry=$(_lic_first "$home"/registry/src/index.crates.io-*)
  if [[ -z $registry || ! -s $registry/wasmtime-$v/LICENSE ]]; then
    _lic_missing "Wasmtime and its crates" "$v" "Apache-2.0 WITH LLVM-exception" \
      "the crates are not unpacked in $(_lic_path "$home")/registry/src (scripts/fetch-deps.sh wasmtime, then build)"
    return 0
  fi
  mkdir -p "$_LIC_OUT/wasmtime"
  cp "$registry/wasmtime-$v/LICENSE" "$_LIC_OUT/wasmtime/LICENSE"
  _lic_row "Wasmtime" "$v" "Apache-2.0 WITH LLVM-exception" "wasmtime/" "$(_lic_path "$registry")/wasmtime-$v/LICENSE (crates.io)"
  local tree; tree=$(mktemp)
  if ! CARGO_HOME=$home cargo tree --locked --offline --manifest-path "$crate/Cargo.toml" \
      -e normal,no-proc-macro --target x86_64-unknown-linux-gnu --prefix none --no-dedupe \
      -f '{p}|{l}' >"$tree" 2>"$tree.err"; then
    echo "stage_licenses: cargo tree of $crate failed:" >&2; cat "$tree.err" >&2
    rm -f "$tree" "$tree.err"; return 1
  fi
  local generic; generic=$(rustc --print sysroot 2>/dev/null || true)/share/doc/rust/licenses
  python3 "$_LIC_ROOT/scripts/images/licenses.py" crates "$tree" "$registry" "$_LIC_OUT/rust-crates" \
    "$generic" "$registry/wasmtime-$v/LICENSE" || { rm -f "$tree" "$tree.err"; return 1; }
  rm -f "$tree" "$tree.err"
  local n; n=$(grep -vc '^#' "$_LIC_OUT/rust-crates/INDEX")
  _lic_row "Rust crates linked into libwasinn_wasmtime.so ($n, listed in rust-crates/INDEX)" "Cargo.lock" \
    "per crate (rust-crates/INDEX)" "rust-crates/" \
    "src/Cargo.lock via cargo tree; texts from $(_lic_path "$registry")"
  _LIC_DECLARED+=("$_LIC_OUT/rust-crates/INDEX")
  grep -q $'\tMISSING' "$_LIC_OUT/rust-crates/INDEX" && _lic_missing "some Rust crates" "-" "-" "see rust-crates/INDEX"
  return 0
}

# The Rust standard library, linked into libwasinn_wasmtime.so: Debian's rustc-web, which builds
# the engine (scripts/build-engine.sh); its notices are Debian's copyright file of libstd-rust-web
# and the Rust source's COPYRIGHT (scripts/deps/rust-web.sh unpacks both).
_lic_rust_std() {
  local sysroot rv
  sysroot=$("$_LIC_ROOT/.deps/rust-web/bin/cargo-host" --rustc --print sysroot 2>/dev/null) &&
    rv=$("$_LIC_ROOT/.deps/rust-web/bin/cargo-host" --rustc --version | awk '{print $2}')
  local debian; debian=$(_lic_first "$sysroot"/share/doc/libstd-rust-web-[0-9]*/copyright)
  if [[ -n $sysroot && -s $debian && -s $sysroot/src/rustc-$rv/COPYRIGHT ]]; then
    mkdir -p "$_LIC_OUT/rust-std"
    cp "$debian" "$_LIC_OUT/rust-std/copyright"
    cp "$sysroot/src/rustc-$rv/COPYRIGHT" "$_LIC_OUT/rust-std/COPYRIGHT"
    _lic_row "Rust standard library (in libwasinn_wasmtime.so)" "$rv" "MIT OR Apache-2.0" "rust-std/" \
      "Debian's libstd-rust-web copyright and rustc-$rv/COPYRIGHT (scripts/deps/rust-web.sh)"
  else
    _lic_missing "Rust standard library" "${rv:-?}" "MIT OR Apache-2.0" \
      "no Debian copyright or COPYRIGHT in the engine's rustc-web toolchain (bash scripts/fetch-deps.sh rust-web)"
  fi
}

# OuteTTS's en_female_1 speaker profile, embedded in the llama.cpp plugin (its text to speech's
# default speaker), from the outetts wheel that scripts/deps/outetts.sh unpacks.
_lic_outetts() {
  local v
  v=$(_lic_pin "$_LIC_ROOT/scripts/deps/outetts.sh" OUTETTS_VERSION)
  if [[ -s $_LIC_DEPS/outetts/LICENSE ]]; then
    mkdir -p "$_LIC_OUT/outetts" && cp "$_LIC_DEPS/outetts/LICENSE" "$_LIC_OUT/outetts/"
    _lic_row "OuteTTS speaker profile en_female_1 (data, in the llamacpp plugin)" "$v" "Apache-2.0" "outetts/" \
      "$(_lic_path "$_LIC_DEPS/outetts/LICENSE") (the outetts $v wheel's, kept by scripts/deps/outetts.sh)"
  else
    _lic_missing "OuteTTS speaker profile" "$v" Apache-2.0 "$(_lic_path "$_LIC_DEPS/outetts/LICENSE") is missing (scripts/fetch-deps.sh outetts)"
  fi
}

# Header-only libraries compiled into wasinn itself: their Debian -dev packages are not in the
# image, so their copyright files are copied from the build machine's.
_lic_cxx_headers() {
  local pkg name spdx v
  while read -r pkg name spdx; do
    v=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
    if [[ -s /usr/share/doc/$pkg/copyright ]]; then
      mkdir -p "$_LIC_OUT/$name" && cp "/usr/share/doc/$pkg/copyright" "$_LIC_OUT/$name/copyright"
      _lic_row "$name (header-only, compiled into wasinn)" "$v" "$spdx" "$name/" "/usr/share/doc/$pkg/copyright of the build machine (Debian)"
    else
      _lic_missing "$name (header-only, compiled into wasinn)" "${v:--}" "$spdx" "the Debian package $pkg is not installed here (scripts/deps/core.apt)"
    fi
  done <<'EOF'
libcli11-dev CLI11 BSD-3-Clause
nlohmann-json3-dev nlohmann-json MIT
libtoml11-dev toml11 MIT
libkissfft-dev KissFFT BSD-3-Clause
EOF
}

_lic_wasinn() {
  local v; v=$(sed -n 's/^project(wasinn VERSION \([0-9.]*\).*/\1/p' "$_LIC_ROOT/CMakeLists.txt")
  mkdir -p "$_LIC_OUT/wasinn"
  if [[ -s $_LIC_ROOT/LICENSE ]]; then
    cp "$_LIC_ROOT/LICENSE" "$_LIC_OUT/wasinn/LICENSE"
    _lic_row "wasinn (this project)" "${v:--}" "$WASINN_OWN_SPDX" "wasinn/" "the repository's LICENSE"
  else
    _lic_missing "wasinn (this project)" "${v:--}" "$WASINN_OWN_SPDX" "$_LIC_ROOT/LICENSE is missing"
  fi
}

# The nvidia image adds ONNX Runtime's CUDA provider and the CUDA 13 wheels' libraries; its
# other additions (ggml's Vulkan module, LiteRT's WebGPU accelerator) are covered by the cpu
# image's llama.cpp/ and litert/ folders, which this image inherits.
_lic_nvidia() {
  local out=$_LIC_OUT ortfile=$_LIC_ROOT/scripts/deps/onnxruntime.sh f v
  v=$(_lic_pin "$ortfile" ORT_VERSION)
  f=$_LIC_DL/$(_lic_pin "$ortfile" ORT_NPM_PACKAGE).linux-x64-gpu-$(_lic_pin "$ortfile" ORT_NPM_VERSION).tgz
  if [[ -s $f ]] && _lic_untar "$f" "$out/onnxruntime-cuda" package/LICENSE; then
    _lic_row "ONNX Runtime CUDA provider" "$v" "MIT" "onnxruntime-cuda/" \
      "$(_lic_path "$f") (npm): package/LICENSE; ONNX Runtime $v's ThirdPartyNotices.txt is in onnxruntime/"
  else
    _lic_missing "ONNX Runtime CUDA provider" "$v" MIT "$(_lic_path "$f") is not in the download cache (scripts/setup.sh --gpu)"
  fi
  # The wheels the CUDA prefix was assembled from (its stamp lists them), else the pins.
  local stamp=$_LIC_DEPS/onnxruntime-cuda-$v/.version specs=()
  if [[ -s $stamp ]]; then
    read -r -a specs < <(sed 's/.* wheels //' "$stamp")
  else
    mapfile -t specs < <(bash -c 'source "$1/scripts/gpu/common.sh" >/dev/null 2>&1; printf "%s\n" "${CUDA_RUNTIME_WHEELS[@]}" "$CUDNN_WHEEL"' _ "$_LIC_ROOT")
  fi
  local spec name ver whl dest ref first= lic
  for spec in "${specs[@]}"; do
    name=${spec%%==*} ver=${spec#*==}
    whl=$(_lic_first "$_LIC_DL"/cuda13-wheels/"${name//-/_}"-"$ver"-*.whl)
    if [[ $name == nvidia-cudnn* ]]; then dest=cudnn ref=LicenseRef-NVIDIA-cuDNN-SLA
    else dest=cuda ref=LicenseRef-NVIDIA-CUDA-EULA; fi
    if [[ -z $whl ]]; then
      _lic_missing "$name" "$ver" "$ref" "its wheel is not in $(_lic_path "$_LIC_DL/cuda13-wheels") (scripts/setup.sh --gpu)"
      continue
    fi
    mkdir -p "$out/$dest"
    unzip -p "$whl" "${name//-/_}-$ver.dist-info/licenses/License.txt" >"$out/$dest/.new"
    # The CUDA wheels share one EULA: one copy, plus any wheel whose text differs.
    if [[ ! -s $out/$dest/License.txt ]]; then lic=License.txt
    elif cmp -s "$out/$dest/.new" "$out/$dest/License.txt"; then lic=License.txt
    else lic=License-$name.txt; fi
    mv "$out/$dest/.new" "$out/$dest/$lic"
    [[ -s $out/$dest/$lic ]] || { _lic_missing "$name" "$ver" "$ref" "no License.txt in $(_lic_path "$whl")"; continue; }
    _lic_row "$name (NVIDIA, PyPI wheel)" "$ver" "$ref" "$dest/" "$(_lic_path "$whl"): dist-info/licenses/License.txt -> $dest/$lic"
  done
  # ggml's CUDA module, when built (scripts/images/stage.sh adds it then): llama.cpp's code
  # (llama.cpp/), compiled by nvcc with CCCL's headers, whose licence comes with it.
  if [[ -d $_LIC_DEPS/llamacpp-cuda/lib ]]; then
    _lic_row "ggml's CUDA module (llama.cpp)" "b$(_lic_pin "$_LIC_ROOT/scripts/deps/llamacpp.sh" LLAMACPP_BUILD_NUMBER)" "MIT" "llama.cpp/" "the cpu image's llama.cpp/"
    whl=$(_lic_first "$_LIC_DL"/cuda13-wheels/nvidia_cuda_cccl-*.whl)
    if [[ -n $whl ]] && _lic_unzip "$whl" "$out/cuda-cccl" nvidia/cu13/cccl/LICENSE; then
      _lic_row "CCCL (CUDA C++ core libraries, compiled into ggml's CUDA module)" "$(basename "$whl" | cut -d- -f2)" \
        "Apache-2.0 WITH LLVM-exception AND Apache-2.0 AND BSD-3-Clause" "cuda-cccl/" "$(_lic_path "$whl"): nvidia/cu13/cccl/LICENSE (libcu++, Thrust, CUB)"
    else
      _lic_missing "CCCL (in ggml's CUDA module)" "-" "Apache-2.0 WITH LLVM-exception" "no nvidia_cuda_cccl wheel in $(_lic_path "$_LIC_DL/cuda13-wheels")"
    fi
  fi
  _lic_row "Vulkan loader and other Debian packages" "Debian 12" "per package" "/usr/share/doc/" \
    "Debian's /usr/share/doc/PACKAGE/copyright in the image; Mesa is not included"
}

# The compile image: jco and the npm packages it runs with, the Rust guests' vendored crates, the
# wasi-nn WIT, the project's guest headers; clang, lld, wasi-libc, node and rustc are Debian's.
_lic_compile() {
  local out=$_LIC_OUT
  _lic_wasinn
  local v; v=$(_lic_pin "$_LIC_ROOT/scripts/deps/jco.sh" JCO_VERSION)
  local prefix=$_LIC_DEPS/jco-$v
  # Wasmtime's LICENSE is the Bytecode Alliance's Apache-2.0 WITH LLVM-exception text: for the
  # jco packages and the WIT, which ship without one.
  local home=${WASINN_CARGO_HOME:-$_LIC_CACHE/engine/cargo-home} llvm
  llvm=$(_lic_first "$home"/registry/src/index.crates.io-*/wasmtime-[0-9]*/LICENSE)
  local generic; generic=$(rustc --print sysroot 2>/dev/null || true)/share/doc/rust/licenses
  if [[ ! -d $prefix/node_modules || -z $llvm ]]; then
    _lic_missing "jco and its npm packages" "$v" "Apache-2.0 WITH LLVM-exception" \
      "$([[ -z $llvm ]] && echo "Wasmtime's crate (for the Apache-2.0 WITH LLVM-exception text) is not unpacked; ")$(_lic_path "$prefix")/node_modules is missing (scripts/fetch-deps.sh jco)"
  else
    # The packages the image carries: stage_compile's pruned copy beside DIR when it is there.
    local modules=$prefix/node_modules
    [[ -d ${_LIC_DIR%/LICENSES}/jco/node_modules ]] && modules=${_LIC_DIR%/LICENSES}/jco/node_modules
    python3 "$_LIC_ROOT/scripts/images/licenses.py" npm "$modules" "$out/jco" "$generic" "$llvm" || return 1
    local n; n=$(grep -vc '^#' "$out/jco/INDEX")
    _lic_row "jco and the npm packages it runs with ($n, listed in jco/INDEX)" "$v" "per package (jco/INDEX)" "jco/" \
      "$(_lic_path "$prefix")/node_modules: each package's licence files and package.json"
    _LIC_DECLARED+=("$out/jco/INDEX")
  fi
  # The Rust guests' crates (guest/rust/Cargo.lock), vendored by guest/rust/build.sh: sources in
  # the image, so their licences too.
  local vendor=$_LIC_CACHE/cargo/vendor/$(sha256sum "$_LIC_ROOT/guest/rust/Cargo.lock" | cut -c1-16)
  if [[ -d $vendor ]]; then
    python3 "$_LIC_ROOT/scripts/images/licenses.py" vendor "$vendor" "$out/rust-guest-crates" "$generic" "${llvm:-/nonexistent}" || return 1
    local n; n=$(grep -vc '^#' "$out/rust-guest-crates/INDEX")
    _lic_row "Rust crates vendored for the Rust guests ($n, listed in rust-guest-crates/INDEX)" "Cargo.lock" \
      "per crate (rust-guest-crates/INDEX)" "rust-guest-crates/" \
      "guest/rust/Cargo.lock; texts from $(_lic_path "$vendor")"
    _LIC_DECLARED+=("$out/rust-guest-crates/INDEX")
  else
    _lic_missing "Rust crates vendored for the Rust guests" "Cargo.lock" "per crate" \
      "$(_lic_path "$vendor") is missing (bash scripts/fetch-deps.sh rust-guest, guest/rust/build.sh --fetch-only)"
  fi
  if [[ -n $llvm ]]; then
    mkdir -p "$out/wasi-nn-wit" && cp "$llvm" "$out/wasi-nn-wit/LICENSE"
    _lic_row "wasi-nn WIT (wit/wasi-nn)" "0.2.0-rc-2024-*" "Apache-2.0 WITH LLVM-exception" "wasi-nn-wit/" \
      "declared in wit/wasi-nn/README.md; the text is Wasmtime's LICENSE ($(_lic_path "$llvm"))"
  else
    _lic_missing "wasi-nn WIT" "0.2.0-rc-2024-*" "Apache-2.0 WITH LLVM-exception" "Wasmtime's crate is not unpacked (for its LICENSE text)"
  fi
  _lic_row "clang, lld, wasi-libc, node, rustc and every other Debian package" "Debian 12" "per package" "/usr/share/doc/" \
    "Debian's /usr/share/doc/PACKAGE/copyright in the image"
}

# Every licence a crate or npm package declares must be covered by the label's table.
_lic_check_declared() {
  local -n _ids=_LIC_IDS_${1^^}
  local index bad
  for index in "${_LIC_DECLARED[@]}"; do
    if ! bad=$(grep -v '^#' "$index" | cut -f3 | python3 "$_LIC_ROOT/scripts/images/licenses.py" covers "${_ids[@]}"); then
      echo "stage_licenses: $1: licences in ${index#"$_LIC_OUT"/} that licenses_spdx $1 does not name:" >&2
      sed 's/^/  /' <<<"$bad" >&2
      echo "  (add them to _LIC_IDS_${1^^} in scripts/images/licenses.sh)" >&2
      return 1
    fi
  done
}

_lic_readme() {
  local flavor=$1 row
  cat <<EOF
Licences of the wasinn $flavor image (/opt/wasinn/LICENSES)
=====================================================================
wasinn's own licence is wasinn/LICENSE; the third parties' follow.

Made by scripts/images/licenses.sh (stage_licenses $flavor) from the cached downloads the build
used; nothing was downloaded for it. One folder per component; a folder with an INDEX lists one
package per line (name, version, SPDX licence, subfolder, where the text comes from).
Debian packages carry their own /usr/share/doc/PACKAGE/copyright in the image.
$([[ $flavor == nvidia ]] && echo "This image is built on the cpu image: README lists the cpu image's components, whose folders
are here too; this file lists what the nvidia image adds (ggml's Vulkan module and LiteRT's
WebGPU accelerator are covered by llama.cpp/ and litert/).
")
Image label org.opencontainers.image.licenses:
  $(licenses_spdx "$flavor")
  $WASINN_OWN_SPDX: wasinn's own code (wasinn/LICENSE, the repository's).
  LicenseRef-Debian-packages: the licences of the Debian packages, in their copyright files.
$([[ $flavor == nvidia ]] && echo "  LicenseRef-NVIDIA-CUDA-EULA: cuda/License.txt; LicenseRef-NVIDIA-cuDNN-SLA: cudnn/License.txt.")
$([[ $flavor != compile ]] && echo "  The frameworks' notices files (ONNX Runtime, TensorFlow, OpenVINO) list more licences than
  the label names; those files are authoritative.")

component	version	SPDX licence	folder	where the text comes from
EOF
  for row in "${_LIC_ROWS[@]}"; do echo "$row"; done
}
