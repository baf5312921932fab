# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ONNX Runtime: headers and library from one npm tarball, so their API versions match.
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, $DEPS and $DL.
ORT_VERSION=1.29.0
ORT_NPM_PACKAGE=com.github.asus4.onnxruntime
ORT_NPM_VERSION=0.4.9 # carries ORT 1.29.0: Linux x64 library and C/C++ headers (API 29)

install_onnxruntime() {
  local prefix=$DEPS/onnxruntime stamp=$DEPS/onnxruntime/.version
  [[ -f $stamp && $(cat "$stamp") == "$ORT_VERSION" ]] && return
  local tgz=$ORT_NPM_PACKAGE-$ORT_NPM_VERSION.tgz
  if [[ ! -s $DL/$tgz ]]; then
    say "downloading $tgz (about 150 MB, once)"
    (cd "$DL" && npm pack -q "$ORT_NPM_PACKAGE@$ORT_NPM_VERSION" >/dev/null 2>&1)
  fi
  rm -rf "$prefix" && mkdir -p "$prefix/lib" "$prefix/include"
  local tmp; tmp=$(mktemp -d)
  local hdr='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
  tar -xzf "$DL/$tgz" -C "$tmp" package/Plugins/Linux/x64 "$hdr"
  cp "$tmp/$hdr"/*.h "$prefix/include/"
  cp "$tmp/package/Plugins/Linux/x64/libonnxruntime.so" "$prefix/lib/libonnxruntime.so.$ORT_VERSION"
  ln -sf "libonnxruntime.so.$ORT_VERSION" "$prefix/lib/libonnxruntime.so.1"
  ln -sf "libonnxruntime.so.1" "$prefix/lib/libonnxruntime.so"
  rm -rf "$tmp"
  grep -q "define ORT_API_VERSION 29" "$prefix/include/onnxruntime_c_api.h" ||
    { echo "unexpected ORT header version" >&2; exit 1; }
  echo "$ORT_VERSION" >"$stamp"
  say "onnxruntime $ORT_VERSION -> $prefix"
}

