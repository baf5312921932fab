#!/usr/bin/env bash
# Triton's Performance Analyzer for `wasinn serve --oip-*` (docs/oip-server.md): unpacks the
# perf_analyzer binary of PyPI tritonclient 2.51.0's wheel (2.53+ wheels need glibc 2.38; Debian
# 12 has 2.36), libcudart.so.12 from nvidia-cuda-runtime-cu12 (it links it even without a GPU)
# and Debian's libb64-0d into DIR, and writes DIR/perf_analyzer, a wrapper that sets
# LD_LIBRARY_PATH. The downloads are kept in ~/.cache/wasinn/dl/perf-analyzer.
#   scripts/perf-analyzer.sh [DIR]        default: build/perf-analyzer
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/build/perf-analyzer}
DL=$HOME/.cache/wasinn/dl/perf-analyzer
mkdir -p "$DL" "$OUT"
py=$ROOT/.deps/venv-triton-0.7.0/bin/python
[[ -x $py ]] || py=python3
ls "$DL"/tritonclient-2.51.0-*.whl >/dev/null 2>&1 ||
  "$py" -m pip download -q --no-deps --only-binary=:all: -d "$DL" tritonclient==2.51.0
ls "$DL"/nvidia_cuda_runtime_cu12-*.whl >/dev/null 2>&1 ||
  "$py" -m pip download -q --no-deps --only-binary=:all: -d "$DL" 'nvidia-cuda-runtime-cu12<13'
ls "$DL"/libb64-0d_*.deb >/dev/null 2>&1 || (cd "$DL" && apt-get download -q libb64-0d >/dev/null)
rm -rf "$OUT/unpacked" && mkdir -p "$OUT/unpacked" "$OUT/lib"
python3 -m zipfile -e "$(ls "$DL"/tritonclient-2.51.0-*.whl | head -1)" "$OUT/unpacked/tc"
python3 -m zipfile -e "$(ls "$DL"/nvidia_cuda_runtime_cu12-*.whl | head -1)" "$OUT/unpacked/cuda"
dpkg-deb -x "$(ls "$DL"/libb64-0d_*.deb | head -1)" "$OUT/unpacked/b64"
bin=$(find "$OUT/unpacked/tc" -name perf_analyzer -type f | head -1)
install -m 755 "$bin" "$OUT/perf_analyzer.bin"
cp -a "$(find "$OUT/unpacked/cuda" -name 'libcudart.so.12' | head -1)" "$OUT/lib/"
cp -a "$OUT"/unpacked/b64/usr/lib/x86_64-linux-gnu/libb64.so.0d* "$OUT/lib/"
rm -rf "$OUT/unpacked"
cat >"$OUT/perf_analyzer" <<'WRAP'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/perf_analyzer.bin" "$@"
WRAP
chmod +x "$OUT/perf_analyzer"
"$OUT/perf_analyzer" --version
echo "perf_analyzer: $OUT/perf_analyzer"
