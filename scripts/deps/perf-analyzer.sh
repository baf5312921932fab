# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Triton's Performance Analyzer, the ecosystem's own load tool for `wasinn serve --oip-*`
# (docs/oip-server.md; ctest oip.perf_analyzer): the perf_analyzer binary of PyPI tritonclient
# 2.51.0's wheel (2.53+ wheels need glibc 2.38; Debian 12 has 2.36), libcudart.so.12 from
# nvidia-cuda-runtime-cu12 (it links it even without a GPU) and Debian's libb64-0d, unpacked into
# $DEPS/perf-analyzer-2.51.0 with a wrapper, perf_analyzer, that sets LD_LIBRARY_PATH.
# Sourced by scripts/fetch-deps.sh, which provides say, $DEPS and $DL.
PERF_ANALYZER_VERSION=2.51.0

install_perf_analyzer() {
  local out=$DEPS/perf-analyzer-$PERF_ANALYZER_VERSION dl=$DL/perf-analyzer
  [[ -f $out/.version && $(cat "$out/.version") == "$PERF_ANALYZER_VERSION" ]] && return
  say "installing perf_analyzer (tritonclient $PERF_ANALYZER_VERSION's wheel) -> $out"
  mkdir -p "$dl"
  ls "$dl"/tritonclient-$PERF_ANALYZER_VERSION-*.whl >/dev/null 2>&1 ||
    python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux1_x86_64 \
      --python-version 3.11 -d "$dl" "tritonclient==$PERF_ANALYZER_VERSION"
  ls "$dl"/nvidia_cuda_runtime_cu12-*.whl >/dev/null 2>&1 ||
    python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
      --python-version 3.11 -d "$dl" 'nvidia-cuda-runtime-cu12<13'
  ls "$dl"/libb64-0d_*.deb >/dev/null 2>&1 || (cd "$dl" && apt-get download -q libb64-0d >/dev/null)
  local tmp; tmp=$(mktemp -d)
  rm -rf "$out" && mkdir -p "$out/lib"
  python3 -m zipfile -e "$(ls "$dl"/tritonclient-$PERF_ANALYZER_VERSION-*.whl | head -1)" "$tmp/tc"
  python3 -m zipfile -e "$(ls "$dl"/nvidia_cuda_runtime_cu12-*.whl | head -1)" "$tmp/cuda"
  dpkg-deb -x "$(ls "$dl"/libb64-0d_*.deb | head -1)" "$tmp/b64"
  install -m 755 "$(find "$tmp/tc" -name perf_analyzer -type f | head -1)" "$out/perf_analyzer.bin"
  cp -a "$(find "$tmp/cuda" -name 'libcudart.so.12' | head -1)" "$out/lib/"
  cp -a "$tmp"/b64/usr/lib/x86_64-linux-gnu/libb64.so.0d* "$out/lib/"
  rm -rf "$tmp"
  cat >"$out/perf_analyzer" <<'WRAP'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/perf_analyzer.bin" "$@"
WRAP
  chmod +x "$out/perf_analyzer"
  "$out/perf_analyzer" --version >/dev/null 2>&1 || "$out/perf_analyzer" --help >/dev/null 2>&1 ||
    { say "perf_analyzer in $out does not run"; return 1; }
  echo "$PERF_ANALYZER_VERSION" >"$out/.version"
}
