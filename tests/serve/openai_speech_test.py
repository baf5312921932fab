#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Text to speech through `wasinn serve --openai NAME=voice.json` (a Piper run config naming the
fixture voice), driven by PyPI's `openai` client (`audio.speech.create`), each answer equal to the
native tool's: piper-tts (PyPI, scripts/deps/piper.pip) run here on the same voice, text and options
(normalize_audio off, as the plugin; the WAV compared byte for byte, as tests/backends/piper do).

    openai_speech_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                          [--backend-dir DIR]

Cases (ctest runs each as serve.openai-speech.CASE), on scripts/fixtures/export_piper.py's voices:
  piper    wav = piper-tts's WAV (a speaker of the 3-speaker voice by its name; the paced voice, whose
           samples per phoneme follow length_scale, at speed 2 and 0.5 = piper-tts at length_scale 0.5
           and 2); pcm = that WAV's samples (x-sample-rate 22050); flac decodes (PyPI soundfile) to
           them; mp3 (the default format) and opus decode to the same duration within the codecs'
           padding; the access log has the route's 200s; a run config's noise_scale and json_input
           are honoured, and its voice, the only one, answers a request without model
  errors   each a 400 that says what, the server answering correctly after it: an unknown voice
           (the 400 lists the voices), an empty, a missing and a too long input (4097 characters;
           4096 are spoken), response_format aac and ogg, speed 0.1 and 5, stream_format sse with wav
           and stream_format chunks,
           instructions, an unknown field, no model with two voices, a chat model (the llama
           fixture, when the llamacpp backend is built) named in `model`
  stream   stream_format sse with pcm: the speech.audio.delta events' base64 audio, one per sentence
           (more than one for a text of three), put together = the whole WAV's samples = piper-tts's
           (the fixture's ref-sentences.wav), then speech.audio.done; stream_format audio with pcm:
           the same bytes, sent chunked; a client that leaves a long text's answer after its first
           bytes is logged cut:client-left; the access log has the 200s
  outetts  --openai tts=tiny.gguf --vocoder tts=wavtokenizer.gguf (OuteTTS on the llama.cpp plugin):
           the WAV = WasmEdge's TTS example's under `wasinn run` (held equal to native llama.cpp by
           llama_tts_test), flac its samples, its voice listed, a foreign voice and speed refused

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import atexit
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import Failure, Skipped, case_main, check  # noqa: E402
from serve_test import Server, log, wait_lines  # noqa: E402

TEXT = "Welcome to the world of speech synthesis!"  # piper-tts's espeak-ng fork phonemizes it as upstream's
RATE = 22050


class Ctx:
    def __init__(self, args):
        self.args = args
        component = os.path.join(args.guests, "http_openai.component.wasm")
        if not os.path.exists(component):
            raise Skipped(f"no {component} (built with the HTTP component guests)")
        backend_dir = args.backend_dir or ""
        if backend_dir and not os.path.exists(os.path.join(backend_dir, "libwasinn_backend_piper.so")):
            raise Skipped("the piper backend is not built (backends/piper/CMakeLists.txt says why)")
        for module, pip in (("openai", "openai.pip"), ("piper", "piper.pip"), ("soundfile", "piper.pip")):
            try:
                __import__(module)
            except ImportError:
                raise Skipped(f"PyPI's {module} is not installed in this Python (scripts/deps/{pip})")
        self.dir = tempfile.mkdtemp(prefix="wasinn-speech-")  # the run configs naming the fixture voices
        atexit.register(shutil.rmtree, self.dir, True)
        self.configs = {}
        for voice in ("tiny", "speakers", "paced"):
            onnx = self.fixture(f"piper/{voice}.onnx")
            path = os.path.join(self.dir, f"{voice}.json")
            with open(path, "w") as f:
                f.write('{"model": "%s"}\n' % onnx)
            self.configs[voice] = path

    def fixture(self, rel):
        path = os.path.join(self.args.fixtures, rel)
        if not os.path.exists(path):
            raise Skipped(f"no {path} (scripts/make_fixtures.py makes it)")
        return path

    def wasinn(self, models):
        """wasinn serve --openai NAME=FILE for each of MODELS, [(name, file)]."""
        args = ["--metrics-addr", "127.0.0.1:0"]
        if self.args.backend_dir:
            args += ["--backend-dir", self.args.backend_dir]
        openai_args = []
        for name, path in models:
            openai_args += ["--openai", f"{name}={path}"]
        return Server([self.args.wasinn, "serve"], args + openai_args[:-1], openai_args[-1], name="wasinn serve")


def client(server):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0, timeout=120)


def piper_tts_wav(ctx, voice, **options):
    """piper-tts's WAV of TEXT on VOICE with OPTIONS (speaker_id, length_scale), normalize_audio off."""
    from piper import PiperVoice
    from piper.config import SynthesisConfig
    v = PiperVoice.load(ctx.fixture(f"piper/{voice}.onnx"))
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        v.synthesize_wav(TEXT, w, syn_config=SynthesisConfig(normalize_audio=False, **options))
    return buf.getvalue()


def speak(c, model, **kw):
    """The answer's bytes and headers."""
    kw.setdefault("voice", "wasinn-tiny-random")
    r = c.audio.speech.with_raw_response.create(model=model, input=kw.pop("input", TEXT), **kw)
    return r.content, {k.lower(): v for k, v in r.headers.items()}


def decode(data):
    import soundfile
    samples, rate = soundfile.read(io.BytesIO(data), dtype="int16")
    return samples, rate


def case_piper(ctx):
    want_speaker = piper_tts_wav(ctx, "speakers", speaker_id=2)
    want_tiny = piper_tts_wav(ctx, "tiny")
    want_fast = piper_tts_wav(ctx, "paced", length_scale=0.5)
    want_slow = piper_tts_wav(ctx, "paced", length_scale=2.0)
    check(len(want_slow) > 3 * len(want_fast), "the paced voice's length does not follow length_scale")
    with ctx.wasinn([("tiny", ctx.configs["tiny"]), ("speakers", ctx.configs["speakers"]),
                     ("paced", ctx.configs["paced"])]) as server:
        c = client(server)
        # The voices each model takes, as piper-tts's voice files name them (speaker_id_map, dataset).
        with urllib.request.urlopen(server.url("/v1/audio/voices"), timeout=30) as r:
            listed = {m["model"]: m["voices"] for m in json.loads(r.read())["data"]}
        want_voices = {}
        for name in ("tiny", "speakers", "paced"):
            with open(ctx.fixture(f"piper/{name}.onnx.json")) as f:
                voice_json = json.load(f)
            ids = voice_json.get("speaker_id_map") or {}
            want_voices[name] = sorted(ids, key=ids.get) if ids else [voice_json["dataset"]]
        check(listed == want_voices, f"GET /v1/audio/voices: {listed} != the voice files' {want_voices}")
        got, headers = speak(c, "speakers", voice="speaker2", response_format="wav")
        check(got == want_speaker, f"speaker2's WAV ({len(got)} bytes) != piper-tts's speaker_id 2 ({len(want_speaker)})")
        check(headers.get("content-type") == "audio/wav", f"wav's content-type {headers.get('content-type')}")
        other, _ = speak(c, "speakers", voice="speaker0", response_format="wav")
        check(other != got, "speaker0 speaks as speaker2: the voice does not matter")
        got, _ = speak(c, "tiny", voice="wasinn-tiny-random", response_format="wav")
        check(got == want_tiny, "the single-speaker voice by its name != piper-tts's WAV")
        for speed, want in ((2.0, want_fast), (0.5, want_slow)):
            got, _ = speak(c, "paced", voice="wasinn-paced-random", response_format="wav", speed=speed)
            check(got == want, f"speed {speed}: {len(got)} bytes != piper-tts's length_scale {1 / speed} ({len(want)})")
        got, _ = speak(c, "tiny", voice="wasinn-tiny-random", response_format="wav", speed=1.0)
        check(got == want_tiny, "speed 1 (the default) changes the audio")
        samples = want_tiny[44:]
        pcm, headers = speak(c, "tiny", response_format="pcm")
        check(pcm == samples, "pcm != the WAV's samples")
        check(headers.get("x-sample-rate") == str(RATE), f"pcm's x-sample-rate {headers.get('x-sample-rate')}")
        check(headers.get("content-type") == "audio/pcm", f"pcm's content-type {headers.get('content-type')}")
        flac, headers = speak(c, "tiny", response_format="flac")
        decoded, rate = decode(flac)
        check(flac[:4] == b"fLaC" and rate == RATE and decoded.tobytes() == samples,
              f"flac ({len(flac)} bytes, {rate} Hz) does not decode to the WAV's samples")
        n = len(samples) // 2
        mp3, headers = speak(c, "tiny")  # OpenAI's default format
        check(headers.get("content-type") == "audio/mpeg", f"the default format's content-type is "
              f"{headers.get('content-type')}, not mp3's")
        decoded, rate = decode(mp3)
        check(rate == RATE and abs(len(decoded) - n) <= 2 * 1152,
              f"mp3 decodes to {len(decoded)} samples at {rate} Hz, not {n} at {RATE} (within 2 MP3 frames)")
        opus, headers = speak(c, "tiny", response_format="opus")
        check(opus[:4] == b"OggS" and headers.get("content-type", "").startswith("audio/ogg"),
              f"opus: {opus[:4]!r}, {headers.get('content-type')}")
        decoded, rate = decode(opus)
        want_opus = n * 24000 / RATE  # Opus has no 22050 Hz: resampled to 24 kHz
        check(rate == 24000 and abs(len(decoded) - want_opus) <= 0.03 * 24000,
              f"opus decodes to {len(decoded)} samples at {rate} Hz, not {want_opus:.0f} at 24000 (within 30 ms)")
        lines = wait_lines(server, r"POST /v1/audio/speech 200 ", at_least=10)
        check(len(lines) >= 10, f"{len(lines)} access-log lines of the route's 200s, not 10")
    # A run config's synthesis keys are the voice's defaults, json_input is honoured, and the only
    # voice answers a request without model.
    want_noise = piper_tts_wav(ctx, "tiny", noise_scale=0.3)
    noisy = os.path.join(ctx.dir, "noisy.json")
    with open(noisy, "w") as f:
        f.write('{"model": "%s", "noise_scale": 0.3, "json_input": true}\n' % ctx.fixture("piper/tiny.onnx"))
    with ctx.wasinn([("noisy", noisy)]) as server:
        r = client(server).audio.speech.with_raw_response.create(model=None, voice="wasinn-tiny-random", input=TEXT,
                                                                 response_format="wav")
        check(r.content == want_noise, "the run config's noise_scale 0.3 != piper-tts's WAV at noise_scale 0.3")
    # The voice's .onnx itself (its .onnx.json beside it), named by its file: the same voice.
    with ctx.wasinn([("tiny", ctx.fixture("piper/tiny.onnx"))]) as server:
        got, _ = speak(client(server), "tiny", response_format="wav")
        check(got == want_tiny, "--openai tiny=tiny.onnx speaks otherwise than its run config")
    lone = os.path.join(ctx.dir, "lone.onnx")
    shutil.copyfile(ctx.fixture("piper/tiny.onnx"), lone)
    p = subprocess.run([ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", "--openai", lone], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 2 and "lone.onnx.json" in p.stderr, f"a .onnx without its config: {p.returncode} {p.stderr}")
    log(f"piper: speaker2, the single voice and speed 2 / 0.5 = piper-tts byte for byte; pcm, flac = its samples; "
        f"mp3 {len(mp3)} B, opus {len(opus)} B decode to its duration")


def bad_request(fn, *needles, code=None, param=None):
    """FN raises the client's BadRequestError whose message holds each of NEEDLES (and CODE, PARAM)."""
    import openai
    try:
        fn()
    except openai.BadRequestError as e:
        body = e.body if isinstance(e.body, dict) else {}
        message = str(body.get("message", e))
        for n in needles:
            check(n in message, f"the 400 does not say {n!r}: {message}")
        if code:
            check(body.get("code") == code, f"the 400's code is {body.get('code')!r}, not {code!r}: {message}")
        if param:
            check(body.get("param") == param, f"the 400's param is {body.get('param')!r}, not {param!r}: {message}")
        return message
    raise Failure(f"no 400 for {needles}")


def case_errors(ctx):
    models = [("speakers", ctx.configs["speakers"]), ("tiny", ctx.configs["tiny"])]
    chat_model = os.path.join(ctx.args.fixtures, "llama/tiny.gguf")
    backends = ctx.args.backend_dir or ""
    has_llama = os.path.exists(chat_model) and (
        not backends or os.path.exists(os.path.join(backends, "libwasinn_backend_llamacpp.so")))
    if has_llama:
        models.append(("chat", chat_model))
    else:
        log("no llama fixture or llamacpp backend: the chat model case is left out")
    want = piper_tts_wav(ctx, "speakers", speaker_id=1)
    with ctx.wasinn(models) as server:
        c = client(server)

        def still_answers():
            got, _ = speak(c, "speakers", voice="speaker1", response_format="wav")
            check(got == want, "the server answers otherwise after the error")

        def say(**kw):
            kw.setdefault("model", "speakers")
            kw.setdefault("voice", "speaker0")
            return c.audio.speech.create(**kw)

        cases = [
            ("an unknown voice", lambda: say(voice="alloy", input=TEXT),
             ('voice "alloy" is not one of', "speaker0, speaker1, speaker2"), "invalid_value", "voice"),
            ("an empty input", lambda: say(input=""), ("input must be the text",), None, "input"),
            ("a missing input", lambda: say(extra_body={"input": None}, input=TEXT),
             ("input must be the text",), None, "input"),
            ("a too long input", lambda: say(input="é" * 4097),
             ("4097 characters", "4096"), "string_above_max_length", "input"),
            ("response_format aac", lambda: say(input=TEXT, response_format="aac"),
             ("aac", "mp3, opus, flac, wav or pcm"), "unsupported_value", "response_format"),
            ("response_format ogg", lambda: say(input=TEXT, extra_body={"response_format": "ogg"}),
             ('"ogg" is not served',), None, "response_format"),
            ("speed 0.1", lambda: say(input=TEXT, speed=0.1), ("speed must be a number from 0.25 to 4.0",), None,
             "speed"),
            ("speed 5", lambda: say(input=TEXT, speed=5), ("from 0.25 to 4.0, got 5",), None, "speed"),
            ("stream_format sse with wav", lambda: say(input=TEXT, stream_format="sse", response_format="wav"),
             ('stream_format "sse" streams raw PCM', "response_format must be pcm, not wav"), "unsupported_value",
             "response_format"),
            ("stream_format chunks", lambda: say(input=TEXT, extra_body={"stream_format": "chunks"}),
             ('stream_format "chunks" is not one of audio, sse',), "invalid_value", "stream_format"),
            ("instructions", lambda: say(input=TEXT, instructions="whisper"), ("instructions are not supported",),
             "unsupported_parameter", "instructions"),
            ("an unknown field", lambda: say(input=TEXT, extra_body={"volume": 2}),
             ("Unrecognized request argument supplied: volume",), None, "volume"),
            ("no model, two voices", lambda: say(input=TEXT, model=None),
             ("you must provide a model parameter", "speakers", "tiny"), "missing_required_parameter", "model"),
        ]
        if has_llama:
            cases.append(("a chat model", lambda: say(model="chat", input=TEXT),
                          ("The model `chat` is not a speech model", "Piper"), "invalid_model", "model"))
        for what, fn, needles, code, param in cases:
            message = bad_request(fn, *needles, code=code, param=param)
            log(f"{what}: 400 {message}")
            still_answers()
        # The limit is a limit: 4096 characters are spoken.
        got, _ = speak(c, "tiny", input=("Hello, world. " * 300)[:4096], response_format="pcm")
        check(len(got) > 0, "4096 characters got no audio")
        check(server.proc.poll() is None, "the server exited")


def case_outetts(ctx):
    """OuteTTS through `--openai tts=tiny.gguf --vocoder tts=wavtokenizer.gguf` (the llama.cpp
    plugin's text to speech), greedy (NN_OPTIONS temp 0): its WAV is byte for byte the one WasmEdge's
    TTS example (compat_wasmedge_ggml_tts.wasm, the same plugin) writes under `wasinn run` with the
    same settings, which tests/backends/llamacpp/llama_tts_test.cpp holds equal to native llama.cpp
    and the OuteTTS arithmetic; flac decodes to its samples; /v1/audio/voices lists its speaker."""
    import soundfile
    model, vocoder = ctx.fixture("outetts/tiny.gguf"), ctx.fixture("outetts/wavtokenizer.gguf")
    guest = os.path.join(ctx.args.guests, "compat_wasmedge_ggml_tts.wasm")
    if not os.path.exists(guest):
        raise Skipped(f"no {guest} (the Rust guests: scripts/fetch-deps.sh rust-guest)")
    settings = {"temp": 0, "n-predict": 48, "ctx-size": 2048, "batch-size": 2048, "ubatch-size": 512, "threads": 1}
    text = "Hello, world 42."
    work = tempfile.mkdtemp(prefix="wasinn-outetts-", dir=ctx.dir)
    argv = [ctx.args.wasinn, "run", "--dir", f"{work}::.", "--nn-preload", f"default:GGML:AUTO:{model}",
            "--backend-config", 'llamacpp={"allow-preload-paths":true}', "--env", f"model_vocoder={vocoder}",
            "--env", f"tts_output_file={os.path.join(work, 'output.wav')}"]
    if ctx.args.backend_dir:
        argv += ["--backend-dir", ctx.args.backend_dir]
    for key, value in settings.items():
        argv += ["--env", f"{key.replace('-', '_')}={value}"]
    p = subprocess.run(argv + [guest, "default", text], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"the WasmEdge TTS example failed ({p.returncode}): {p.stdout[-1500:]}{p.stderr[-1500:]}")
    with open(os.path.join(work, "output-buffer.wav"), "rb") as f:
        want = f.read()
    args = ["--env", "NN_OPTIONS=" + json.dumps(settings), "--vocoder", f"tts={vocoder}"]
    if ctx.args.backend_dir:
        args += ["--backend-dir", ctx.args.backend_dir]
    with Server([ctx.args.wasinn, "serve"], args + ["--openai"], f"tts={model}", name="wasinn serve") as server:
        c = client(server)
        got, headers = speak(c, "tts", input=text, response_format="wav", voice="en_female_1")
        check(got == want, f"the endpoint's WAV ({len(got)} bytes) != the TTS example's ({len(want)} bytes)")
        check(headers.get("x-sample-rate") == "24000", f"x-sample-rate {headers.get('x-sample-rate')}")
        flac, _ = speak(c, "tts", input=text, response_format="flac", voice="en_female_1")
        samples, rate = soundfile.read(io.BytesIO(flac), dtype="int16")
        with wave.open(io.BytesIO(want)) as w:
            pcm = w.readframes(w.getnframes())
        check(rate == 24000 and samples.tobytes() == pcm, "flac does not decode to the WAV's samples")
        with urllib.request.urlopen(server.url("/v1/audio/voices"), timeout=30) as r:
            listed = json.loads(r.read())["data"]
        check(listed == [{"model": "tts", "voices": ["en_female_1"]}], f"GET /v1/audio/voices: {listed}")
        bad_request(lambda: speak(c, "tts", input=text, voice="alloy"), "en_female_1", param="voice")
        bad_request(lambda: speak(c, "tts", input=text, speed=2.0, voice="en_female_1"), "own pace", param="speed")
        got, _ = speak(c, "tts", input=text, response_format="wav", voice="en_female_1")
        check(got == want, "after the refusals the WAV changed")
    log(f"outetts: the endpoint's WAV = the WasmEdge TTS example's ({len(want)} bytes); flac = its samples; "
        "the voice listed; a foreign voice and a speed refused")


def case_stream(ctx):
    import base64
    with open(ctx.fixture("piper/reference.json")) as f:
        text = json.load(f)["cases"]["sentences"]["text"]  # three sentences
    with open(ctx.fixture("piper/ref-sentences.wav"), "rb") as f:
        want = f.read()[44:]  # piper-tts's samples
    with ctx.wasinn([("tiny", ctx.configs["tiny"])]) as server:
        c = client(server)
        wav, _ = speak(c, "tiny", input=text, response_format="wav")
        check(wav[44:] == want, "the whole WAV != piper-tts's")
        body = json.dumps({"model": "tiny", "input": text, "voice": "wasinn-tiny-random", "response_format": "pcm",
                           "stream_format": "sse"}).encode()
        req = urllib.request.Request(server.url("/v1/audio/speech"), data=body,
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            content_type = r.headers.get("content-type")
            raw = r.read().decode()
        check(content_type == "text/event-stream", f"sse's content-type {content_type}")
        events = [json.loads(e[len("data: "):]) for e in raw.split("\n\n") if e.strip()]
        deltas = [e for e in events if e.get("type") == "speech.audio.delta"]
        got = b"".join(base64.b64decode(e["audio"]) for e in deltas)
        check(got == want, f"the deltas' {len(got)} bytes != piper-tts's {len(want)} samples' bytes")
        check(len(deltas) > 1, f"{len(deltas)} delta for three sentences")
        check(events[-1].get("type") == "speech.audio.done" and "usage" in events[-1],
              f"the last event is {events[-1]}, not speech.audio.done with usage")
        pcm, headers = speak(c, "tiny", input=text, response_format="pcm")
        check(pcm == want, f"stream_format audio's pcm ({len(pcm)} bytes) != piper-tts's samples")
        check(headers.get("transfer-encoding") == "chunked" and headers.get("x-sample-rate") == str(RATE),
              f"stream_format audio's pcm headers: {headers}")
        # A client that leaves after the first bytes of a long text: the synthesis stops (a few
        # sentences' bytes went out, not the whole) and the access log says cut:client-left.
        import http.client
        conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        conn.request("POST", "/v1/audio/speech", json.dumps({"model": "tiny", "input": ("Hello there. " * 300)[:4000],
                                                             "response_format": "pcm"}),
                     {"content-type": "application/json"})
        r = conn.getresponse()
        check(r.status == 200 and len(r.read(1000)) == 1000, f"the long text's answer: {r.status}")
        conn.sock.close()
        conn.close()
        lines = wait_lines(server, r"POST /v1/audio/speech 200 .*cut:client-left", at_least=1)
        check(len(lines) == 1, "no access-log line says cut:client-left for the client that left")
        lines = wait_lines(server, r"POST /v1/audio/speech 200 ", at_least=4)
        check(len(lines) >= 4, f"{len(lines)} access-log lines of the route's 200s, not 4")
    log(f"stream: {len(deltas)} deltas = piper-tts's {len(want)} bytes; stream_format audio's pcm the same, chunked")


CASES = {"piper": case_piper, "errors": case_errors, "stream": case_stream, "outetts": case_outetts}


def main():
    return case_main(__doc__, CASES, Ctx, optional=("--backend-dir",))


if __name__ == "__main__":
    sys.exit(main())
