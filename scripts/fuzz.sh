#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds wasinn's libFuzzer targets (tests/fuzz) with clang-14, ASan and UBSan in the build dir
# scripts/sanitize.sh also uses (scripts/configure-sanitize.sh), then runs each target for
# SECONDS with a corpus kept under ~/.cache/wasinn/fuzz.
#   scripts/fuzz.sh SECONDS [TARGET...|all]
# No target: the ABI targets (the witx ones also in their two-thread mode, TARGET@2:
# WASINN_FUZZ_THREADS=2; fuzz_sockets: WasmEdge's socket ABI over loopback sockets),
# fuzz_load_onnxruntime (the test suite's short run) and
# fuzz_remote_codecs (the remote backend's response decoders), fuzz_whisper_audio (the whisper
# plugin's audio input: WAV, FLAC, MP3, Ogg Vorbis and Opus), fuzz_llama_image (the llama.cpp plugin's images and audio clips), fuzz_llama_tts (its text to
# speech, text to WAV), fuzz_llama_schema (its JSON schemas to grammars, sampled under a budget),
# fuzz_piper_input (the
# piper plugin's text and JSON input, spoken to a WAV), fuzz_load_piper (its run config) and
# fuzz_openai_request (the OpenAI endpoint's request parser, natively), fuzz_multipart_form (its
# audio routes' multipart form, natively). `all` adds
# the model-load targets of the other backends, whose frameworks have known crashes on
# malformed models (docs/reliability.md). Prints executions and crashes per target, keeps each
# crash input, and exits 1 if any target crashed, leaked, ran out of memory or hung.
# Environment: WASINN_FUZZ_BUILD_DIR (default $WASINN_SANITIZE_BUILD_DIR,
# else build-sanitize), WASINN_FUZZ_DIR (corpora and crashes,
# default ~/.cache/wasinn/fuzz), WASINN_FIXTURES, WASINN_FUZZ_FORK=N (libFuzzer fork mode with N
# jobs: keeps going after a crash and counts them all; for long runs of crashing backends),
# WASINN_FUZZ_SKIP_BUILD=1 (run what the build dir holds, e.g. several fuzz.sh runs at once).
# WASINN_FUZZ_JOBS=N (targets run at once, default the number of cores).
# A framework crash listed in tests/fuzz/known_framework_crashes.tsv (one wasinn contains, e.g. by
# load isolation) is counted as known, not failed; a target with such a list runs in fork mode so
# that one does not end its run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${WASINN_FUZZ_BUILD_DIR:-${WASINN_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}}
WORK=${WASINN_FUZZ_DIR:-$HOME/.cache/wasinn/fuzz}
FIXTURES=${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}
export WASINN_FIXTURES=$FIXTURES

ABI_TARGETS=(fuzz_witx_fake fuzz_legacy_fake fuzz_wit_fake fuzz_witx_real fuzz_legacy_real fuzz_wit_real fuzz_sockets)
DEFAULT_TARGETS=("${ABI_TARGETS[@]}" fuzz_witx_fake@2 fuzz_witx_real@2 fuzz_load_onnxruntime fuzz_remote_codecs
                 fuzz_whisper_audio fuzz_llama_image fuzz_llama_tts fuzz_llama_schema fuzz_piper_input
                 fuzz_load_piper fuzz_openai_request fuzz_multipart_form)
OTHER_LOAD_TARGETS=(fuzz_load_openvino fuzz_load_pytorch fuzz_load_tensorflowlite fuzz_load_tensorflow
                    fuzz_load_llamacpp fuzz_load_whisper)

usage() { echo "usage: scripts/fuzz.sh SECONDS [TARGET...|all]" >&2; exit 2; }
[[ $# -ge 1 && $1 =~ ^[0-9]+$ && $1 -gt 0 ]] || usage
seconds=$1
shift
if [[ $# -eq 0 ]]; then
  targets=("${DEFAULT_TARGETS[@]}")
elif [[ $# -eq 1 && $1 == all ]]; then
  targets=("${DEFAULT_TARGETS[@]}" "${OTHER_LOAD_TARGETS[@]}")
else
  targets=("$@")
fi
for t in "${targets[@]}"; do
  [[ " ${DEFAULT_TARGETS[*]} ${OTHER_LOAD_TARGETS[*]} " == *" $t "* ]] || { echo "unknown target $t" >&2; usage; }
done
[[ -f $FIXTURES/digits/model.onnx ]] || { echo "fuzz: no fixtures in $FIXTURES: run scripts/setup.sh" >&2; exit 2; }

if [[ -n ${WASINN_FUZZ_SKIP_BUILD:-} ]]; then
  echo "==> Using the fuzz targets already built in $BUILD"
else
echo "==> Building fuzz targets -> $BUILD"
bash "$ROOT/scripts/configure-sanitize.sh" "$BUILD"
binaries=()
for t in "${targets[@]}"; do [[ " ${binaries[*]} " == *" ${t%@2} "* ]] || binaries+=("${t%@2}"); done
cmake --build "$BUILD" --target "${binaries[@]}" -- -j2 >"$BUILD/fuzz-build.log" 2>&1 ||
  { tail -40 "$BUILD/fuzz-build.log" >&2; echo "fuzz: build failed (log: $BUILD/fuzz-build.log)" >&2; exit 1; }
fi

# Seeds of a model-load target: real fixtures of that format (only small ones: libFuzzer's
# max_len follows the largest seed).
load_seeds() {
  local target=$1 dir=$2 f=$FIXTURES
  case $target in
    fuzz_load_onnxruntime)
      cp -f "$f/digits/model.onnx" "$dir/digits.onnx"; cp -f "$f/tiny/model.onnx" "$dir/tiny.onnx"
      cp -f "$f/types/identity_all.onnx" "$f/types/two_inputs.onnx" "$f/corrupt/truncated.onnx" "$dir/" ;;
    fuzz_load_openvino)  # u32 LE length of the .xml, the .xml, the .bin (fuzz_load.cpp)
      for pair in digits/openvino/model tiny/openvino/dynamic types/openvino/identity_all; do
        python3 - "$f/$pair.xml" "$f/$pair.bin" "$dir/$(echo "$pair" | tr / _).irpair" <<'EOF'
import struct, sys
xml = open(sys.argv[1], "rb").read()
open(sys.argv[3], "wb").write(struct.pack("<I", len(xml)) + xml + open(sys.argv[2], "rb").read())
EOF
      done
      { printf '\xff\xff\xff\xff'; cat "$f/tiny/model.onnx"; } >"$dir/tiny_onnx.irpair" ;;
    fuzz_load_pytorch)
      cp -f "$f/digits/model.pt" "$f"/types/*.pt "$dir/" ;;
    fuzz_load_tensorflowlite)
      cp -f "$f/tflite/digits_f32.tflite" "$f/tflite/digits_int8.tflite" "$f/tflite/types_int.tflite" \
        "$f/tflite_mnist/MNISTnet_uint8_quant.tflite" "$dir/" ;;
    fuzz_load_tensorflow)
      cp -f "$f/tensorflow/digits_frozen.pb" "$f/tensorflow/random_pair.pb" "$dir/" ;;
    fuzz_load_llamacpp)
      cp -f "$f/llama/truncated.gguf" "$dir/"
      "$ROOT/.deps/venv/bin/python" "$ROOT/tests/fuzz/make_gguf_seed.py" "$dir/small.gguf" ;;
    fuzz_load_whisper)
      cp -f "$f/whisper/truncated.bin" "$dir/"; head -c 65536 "$f/whisper/tiny-en.bin" >"$dir/head.bin" ;;
    fuzz_llama_image)  # the first byte picks the path (fuzz_llama_image.cpp): 0 image bytes, 1 prompt, 2 path, 3 audio
      for img in image image2 not-an-image; do { printf '\x00'; cat "$f/llava/$img.png"; } >"$dir/bytes-$img"; done
      { printf '\x01USER: <img src="data:image/png;base64,'; base64 -w0 "$f/llava/image2.png"
        printf '">what is it?\nASSISTANT:'; } >"$dir/prompt-inline"
      printf '\x01USER: <image><image> two markers\n' >"$dir/prompt-markers"
      printf '\x02%s' "$f/llava/image2.png" >"$dir/path-image2"
      # 3: an audio clip on the audio projector, a quarter second of WAV, FLAC and MP3 as above
      sox "$f/whisper/speech.wav" "$dir/clip.wav" trim 0 0.25
      sox "$f/whisper/speech.wav" "$dir/clip.flac" trim 0 0.25
      for clip in clip.wav clip.flac; do { printf '\x03'; cat "$dir/$clip"; } >"$dir/audio-$clip"; rm "$dir/$clip"; done
      { printf '\x03'; head -c 2000 "$f/whisper/speech.mp3"; } >"$dir/audio-clip.mp3" ;;
    fuzz_llama_tts)  # text to speak: numbers, punctuation, markers, bytes beyond ASCII
      printf 'Hello, world 42.' >"$dir/hello"
      printf 'In 2026, 3.14 and 1000000 (2147483648) -- caf\xc3\xa9_\\<|im_end|>\n' >"$dir/numbers" ;;
    fuzz_llama_schema)  # response_format schemas: plain ones, and the kinds that once held a worker
      printf '{"type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "integer"}}}' >"$dir/object"
      printf '{"type": "string", "pattern": "^((a{0,1000}){0,1000})$"}' >"$dir/nested-repetition"
      printf '{"enum": ["red", "green", "blue"]}' >"$dir/enum"
      printf '{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}' >"$dir/ref-loop"
      printf '{"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 5}' >"$dir/array" ;;
    fuzz_whisper_audio)  # a quarter second of each WAV fixture: small seeds keep max_len small
      for w in speech stereo rate-8k pcm-8bit; do sox "$f/whisper/$w.wav" "$dir/$w.wav" trim 0 0.25; done
      sox "$f/whisper/speech.wav" "$dir/speech.flac" trim 0 0.25  # and the other codecs it decodes
      head -c 2000 "$f/whisper/speech.mp3" >"$dir/speech.mp3"
      sox "$f/whisper/speech.wav" "$dir/speech.ogg" trim 0 0.25  # Ogg Vorbis; stereo, and Opus (48 kHz):
      "$ROOT/.deps/venv/bin/python" -c 'import soundfile as sf, sys
d, r = sf.read(sys.argv[1], dtype="float32", frames=4000); sf.write(sys.argv[2], d, r, format="OGG", subtype="VORBIS")
d, r = sf.read(sys.argv[3], dtype="float32", frames=12000); sf.write(sys.argv[4], d, r, format="OGG", subtype="OPUS")' \
        "$f/whisper/stereo.wav" "$dir/stereo.ogg" "$f/whisper/speech-opus.wav" "$dir/speech.opus" ;;
    fuzz_load_piper)  # WasmEdge's run configs (the load refuses their host paths: the parser is fuzzed)
      printf '{"model": "%s/piper/tiny.onnx", "json_input": true, "noise_scale": 0.5}' "$f" >"$dir/run.json"
      printf '{"model": "v.onnx", "output_type": "raw", "speaker_id": 2, "sentence_silence": 0.2}' >"$dir/keys.json" ;;
    fuzz_openai_request)  # request bodies the serve.openai tests send (tests/fuzz/seeds/openai_request)
      cp -f "$ROOT"/tests/fuzz/seeds/openai_request/*.json "$dir/" ;;
    fuzz_piper_input)  # byte 0 picks the graph: even plain text, odd JSON input
      printf '\x00Hello, world. How are you? I am fine; thanks: 3.5 apples' >"$dir/text"
      printf '\x01{"text": "Welcome!", "noise_scale": 0.3, "output_type": "raw"}' >"$dir/json" ;;
  esac
}

# Sanitizer settings per target. Frameworks with a C++ API (OpenVINO, LibTorch) share std
# containers with the instrumented plugin, which gives false container-overflow reports.
asan_options() {
  # intercept_tls_get_addr=0: see sanitize.sh (clang-14's tracer crash at exit).
  local opts="abort_on_error=1:symbolize=1:detect_stack_use_after_return=0:intercept_tls_get_addr=0"
  case $1 in
    fuzz_load_openvino|fuzz_load_pytorch) opts+=":detect_container_overflow=0" ;;
  esac
  echo "$opts"
}

# The known-crash regexes of a target binary, one a line; fails when it has none.
known_patterns() {
  awk -F'\t' -v t="$1" '$1 == t { print $2; n++ } END { exit n ? 0 : 1 }' \
    "$ROOT/tests/fuzz/known_framework_crashes.tsv"
}

# Re-runs each crash input this run saved; one whose report matches a known pattern moves to
# DIR/known. Prints how many moved.
set_known_aside() {
  local bin=$1 dir=$2 moved=0 f report
  known_patterns "$bin" >/dev/null || { echo 0; return; }
  mkdir -p "$dir/known"
  while IFS= read -r f; do
    [[ $(basename "$f") == crash-* ]] || continue
    report=$(ASAN_OPTIONS=$(asan_options "$bin") timeout 120 "$BUILD/bin/$bin" "$f" 2>&1 || true)
    if known_patterns "$bin" | python3 -c '
import re, sys
report = open(sys.argv[1]).read()
sys.exit(0 if any(re.search(p, report) for p in sys.stdin.read().splitlines()) else 1)' <(printf '%s' "$report"); then
      mv "$f" "$dir/known/"
      moved=$((moved + 1))
    fi
  done < <(find "$dir/crashes" -type f -newer "$dir/.run_start")
  echo "$moved"
}

# One target: its seeds, its run, its row (printed when it ends); exits 1 when it found something.
fuzz_one() {
  local t=$1 status=0
  dir=$WORK/$t
  mkdir -p "$dir/corpus" "$dir/seeds" "$dir/crashes"
  rm -f "$dir/seeds"/*
  bin=${t%@2}  # TARGET@2: the same binary, two threads per input on one session
  threads=1
  [[ $t == *@2 ]] && threads=2
  if [[ $t == fuzz_load_* || $t == fuzz_whisper_audio || $t == fuzz_llama_image || $t == fuzz_llama_tts ||
        $t == fuzz_llama_schema || $t == fuzz_piper_input || $t == fuzz_openai_request ]]; then
    load_seeds "$t" "$dir/seeds"
  else
    WASINN_FUZZ_SEEDS_OUT="$dir/seeds" "$BUILD/bin/$bin" >/dev/null
  fi
  # Inputs that once found a host bug (tests/fuzz/regressions/*/NAME.<target>) run every time.
  find "$ROOT/tests/fuzz/regressions" -name "*.$bin" -exec cp -f {} "$dir/seeds/" \;
  touch "$dir/.run_start"
  args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=30 -rss_limit_mb=4096
        -artifact_prefix="$dir/crashes/")
  local fork=${WASINN_FUZZ_FORK:-}
  [[ -z $fork ]] && known_patterns "$bin" >/dev/null && fork=1
  [[ -n $fork ]] && args+=(-fork="$fork" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  log=$dir/last_run.log
  set +e
  # Framework allocations made once per process (ONNX Runtime's CreateEnv, ...) are suppressed by
  # the sanitizer run's list: libFuzzer's leak check after an input reports all unreachable memory.
  LSAN_OPTIONS=suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0 \
  ASAN_OPTIONS=$(asan_options "$bin") UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 TBB_ENABLE_SANITIZERS=1 \
    WASINN_FUZZ_THREADS=$threads "$BUILD/bin/$bin" "${args[@]}" "$dir/corpus" "$dir/seeds" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -ao 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  # Fork mode prints no final stats: take the last progress line's count.
  [[ -z $execs ]] && execs=$(grep -ao '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
  # Crash inputs whose report matches a known framework crash move to known/, out of the count.
  local known; known=$(set_known_aside "$bin" "$dir")
  # Fork mode exits non-zero after crashes it ignored: only unexplained inputs fail the target.
  [[ -n $fork && $known -gt 0 && $rc -ne 0 ]] &&
    [[ -z $(find "$dir/crashes" -type f -newer "$dir/.run_start") ]] && rc=0
  # Kinds of the inputs saved by this run: crash-, leak-, oom-, timeout- (libFuzzer's prefixes).
  kinds=$(find "$dir/crashes" -type f -newer "$dir/.run_start" -printf '%f\n' | sed 's/-.*//' | sort | uniq -c |
          awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
  new=$(find "$dir/crashes" -type f -newer "$dir/.run_start" | wc -l)
  notes=""
  if [[ $rc -ne 0 || $new -gt 0 ]]; then
    status=1
    [[ $new -eq 0 ]] && new=1
    notes="FAILED (exit $rc; ${kinds:-no input saved}): $(grep -a -m1 -o 'ERROR: [A-Za-z]*: [a-z-]*\|runtime error: .*\|fuzz invariant: .*\|GGML_ASSERT.*' "$log" || echo 'see log')"
    notes+="; inputs in $dir/crashes, log $log"
  fi
  [[ $known -gt 0 ]] && notes="$known known framework crash(es) set aside in $dir/known${notes:+; $notes}"
  printf '%-26s %12s %8s %s\n' "$t" "${execs:-?}" "$new" "$notes"
  return $status
}

# Targets run side by side, WASINN_FUZZ_JOBS at a time (default: the cores), so the suite's short run
# takes half the wall time on 2 cores; rows come in the order targets end.
jobs_max=${WASINN_FUZZ_JOBS:-$(nproc)}
failed=0
printf '\n%-26s %12s %8s %s\n' target executions crashes notes
pids=()
for t in "${targets[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n || true; done
  fuzz_one "$t" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

if [[ $failed -ne 0 ]]; then
  echo
  echo "fuzz: crashes found. Reproduce one with: ASAN_OPTIONS=... $BUILD/bin/<target> <crash file>"
  exit 1
fi
echo
echo "fuzz: no crashes (corpora in $WORK)"
