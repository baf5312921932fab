# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# OuteTTS's speaker profiles (Apache-2.0), from the outetts wheel on PyPI: the llamacpp plugin's
# text to speech (backends/llamacpp/tts.cpp) speaks with en_female_1 when a guest names no
# "tts-speaker-file", as WasmEdge's GGML plugin does; the build embeds that file. Only the JSON
# files are taken out of the wheel; no OuteTTS code is installed or run.
# Sourced by scripts/fetch-deps.sh, which provides say, fetch, verified_fetch, $DEPS and $DL.
OUTETTS_VERSION=0.2.3 # the last release with the v1 (OuteTTS 0.2) default speakers
OUTETTS_WHEEL_SHA256=95dfaf69e56f9ba757a1b69c4f76bf4ab9455e976c9be8bb2822375214dfdeff
OUTETTS_WHEEL_URL=https://files.pythonhosted.org/packages/5f/dc/84a82b975498ceb7186875950a825b745bfdae2aeeebf3d5572ad68dc9c6/outetts-$OUTETTS_VERSION-py3-none-any.whl

install_outetts() {
  local prefix=$DEPS/outetts stamp=$DEPS/outetts/.version key="outetts $OUTETTS_VERSION speakers"
  [[ -f $stamp && $(cat "$stamp") == "$key" ]] && return
  local wheel=outetts-$OUTETTS_VERSION-py3-none-any.whl
  verified_fetch "$OUTETTS_WHEEL_URL" "$wheel" "$OUTETTS_WHEEL_SHA256"
  local stage=$prefix.new
  rm -rf "$stage" && mkdir -p "$stage/speakers"
  # A wheel is a zip; Python's zipfile is always here, unzip may not be.
  python3 - "$DL/$wheel" "$stage" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith("outetts/version/v1/default_speakers/") and name.endswith(".json"):
            with open(f"{sys.argv[2]}/speakers/{name.rsplit('/', 1)[1]}", "wb") as out:
                out.write(z.read(name))
        elif name.endswith(".dist-info/LICENSE"):
            with open(f"{sys.argv[2]}/LICENSE", "wb") as out:
                out.write(z.read(name))
PY
  [[ -s $stage/speakers/en_female_1.json ]] || { echo "$wheel has no en_female_1.json" >&2; exit 1; }
  echo "$key" >"$stage/.version"
  rm -rf "$prefix" && mv "$stage" "$prefix"
  say "OuteTTS $OUTETTS_VERSION speaker profiles -> $prefix/speakers"
}
