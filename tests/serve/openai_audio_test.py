#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Speech to text through `wasinn serve --openai NAME=whisper-model.bin`: POST /v1/audio/transcriptions
and /v1/audio/translations driven by PyPI's `openai` client, each answer equal to whisper-cli's (the
same whisper.cpp build, scripts/deps/whisper.sh) on the same file and options, on the random-weight
fixture model and audio of scripts/fixtures/export_whisper.py. Greedy, no temperature fallback, two
threads on both sides (NN_OPTIONS; whisper-cli -t 2 -bs 1 -bo 1 -nf): a random model's transcript is
the same run after run only so.

    openai_audio_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                         --whisper-cli BIN/whisper-cli [--backend-dir DIR]

Cases (ctest runs each as serve.openai-audio.CASE):
  formats    speech.wav in every response_format: json and text (the segments' text), srt (whisper-cli
             -osrt's file), vtt (-ovtt's), verbose_json (segments' times and texts as -oj's, words as
             -ml 1 -sow's segments, the duration); prompt, temperature and language as whisper-cli's
             --prompt, --temperature and -l; speech.flac, speech.mp3, float-44k.wav (44.1 kHz stereo
             float) and rate-8k.wav as whisper-cli decodes each; speech.ogg (Vorbis) and speech.opus
             (Opus, 48 kHz) as whisper-cli transcribes the same audio decoded by another library
             (speech-ogg.wav, speech-opus.wav: PyPI soundfile's; whisper-cli decodes no Opus, and
             its Vorbis is stb_vorbis), whose samples whisper_ogg_test holds equal to the plugin's
  stream     stream=True: transcript.text.delta events, one per whisper segment, whose concatenation
             is the non-streamed text and whisper-cli's, then one transcript.text.done with that
             text, on speech.wav (json and text), long.wav (two 30 s windows) and speech.opus; a
             client that leaves after the first delta of a 400 s WAV is logged cut:client-left, and
             the server answers the same after it
  translate  audio.translations.create (json, text, srt) as whisper-cli -tr (the fixture model is
             English-only: whisper ignores translate on it, as whisper-cli does)
  errors     each a 400 that says what, the server answering after it: a truncated WAV, a WAV whose
             data chunk claims more bytes than it has, garbage bytes, an empty file, an AIFF file, a
             truncated Ogg file, an Ogg Vorbis file whose last granule position lies (ten seconds
             past its audio), an Ogg Opus file whose OpusHead says no channels, no file part, a bad
             response_format, an unknown field, stream with srt, stream on translations, language on
             translations, timestamp_granularities without verbose_json, a body that is not
             multipart; a 1 GB file part a 413 before it is read; a truncated Ogg file streamed through
             the client is its BadRequestError
             before any event; a chat model (llama/tiny.gguf, when the llamacpp plugin is built)
             named in model is a 400 saying it is not a whisper model; an unknown model a 404

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import Failure, Skipped, case_main, check  # noqa: E402
from serve_test import Server, log, wait_line  # noqa: E402

NAME = "whisper"
NN_OPTIONS = json.dumps({"threads": 2, "beam-size": 1, "best-of": 1, "temperature-inc": 0})
GREEDY_CLI = ["-t", "2", "-bs", "1", "-bo", "1", "-nf"]


class Ctx:
    def __init__(self, args):
        self.args = args
        self.model = self.fixture("whisper/tiny-en.bin")
        for path in (args.whisper_cli, args.wasinn, self.model):
            if not os.path.exists(path):
                raise Skipped(f"{path} is missing")
        try:
            import openai  # noqa: F401
        except ImportError as e:
            raise Skipped("PyPI's openai is not installed (scripts/deps/openai.pip)") from e
        self.component = os.path.join(args.guests, "http_openai.component.wasm")
        self.tmp = tempfile.mkdtemp(prefix="openai-audio-")

    def fixture(self, rel):
        return os.path.join(self.args.fixtures, rel)

    def wasinn(self, extra_models=(), nn_options=NN_OPTIONS):
        args = ["--env", f"NN_OPTIONS={nn_options}"]
        if self.args.backend_dir:
            args += ["--backend-dir", self.args.backend_dir]
        for name, path in extra_models:
            args += ["--openai", f"{name}={path}"]
        # Server puts its last argument last: the whisper model's --openai.
        return Server([self.args.wasinn, "serve"], args + ["--openai"], f"{NAME}={self.model}", name="wasinn serve")

    def whisper_cli(self, audio, extra=(), tag="run"):
        """whisper-cli's files on AUDIO: {"json": doc, "srt": text, "vtt": text}."""
        prefix = os.path.join(self.tmp, f"{os.path.basename(audio)}-{tag}")
        argv = [self.args.whisper_cli, "-m", self.model, "-f", audio, "-np", "-oj", "-osrt", "-ovtt", "-of",
                prefix] + GREEDY_CLI + list(extra)
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        check(p.returncode == 0, f"whisper-cli failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
        out = {}
        for ext in ("json", "srt", "vtt"):
            with open(f"{prefix}.{ext}", encoding="utf-8", errors="replace") as f:
                out[ext] = f.read()
        out["json"] = json.loads(out["json"])
        return out


def client(server):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0, timeout=120)


def cli_text(native):
    return "".join(s["text"] for s in native["json"]["transcription"]).strip()


def cli_segments(native):
    return [(s["offsets"]["from"] / 1000, s["offsets"]["to"] / 1000, s["text"]) for s in native["json"]["transcription"]]


def same(label, ours, theirs):
    check(ours == theirs, f"{label}: wasinn's answer differs from whisper-cli's:\n--- wasinn\n{ours!r}\n"
                          f"--- whisper-cli\n{theirs!r}")
    log(f"{label}: equal to whisper-cli ({len(str(ours))} chars)")


def transcribe(c, path, **kw):
    with open(path, "rb") as f:
        return c.audio.transcriptions.create(model=NAME, file=(os.path.basename(path), f.read()), **kw)


def case_formats(ctx):
    speech = ctx.fixture("whisper/speech.wav")
    native = ctx.whisper_cli(speech)
    check(native["json"]["transcription"], "whisper-cli heard nothing in speech.wav")
    words = ctx.whisper_cli(speech, ["-ml", "1", "-sow"], tag="words")
    with ctx.wasinn() as server:
        c = client(server)
        same("json", transcribe(c, speech).text, cli_text(native))
        same("text", transcribe(c, speech, response_format="text").strip(), cli_text(native))
        same("srt", transcribe(c, speech, response_format="srt"), native["srt"])
        same("vtt", transcribe(c, speech, response_format="vtt"), native["vtt"])
        v = transcribe(c, speech, response_format="verbose_json", timestamp_granularities=["word", "segment"])
        same("verbose_json text", v.text, cli_text(native))
        same("verbose_json segments", [(s.start, s.end, s.text) for s in v.segments], cli_segments(native))
        same("verbose_json words", [(w.start, w.end, w.word) for w in v.words],
             [(a, b, t.strip()) for a, b, t in cli_segments(words) if t.strip()])
        seconds = (os.path.getsize(speech) - 44) / 32000
        check(abs(v.duration - seconds) < 0.01 and v.language == "en" and v.task == "transcribe",
              f"verbose_json: duration {v.duration} (the file is {seconds:.3f} s), language {v.language}, "
              f"task {v.task}")
        opts = ctx.whisper_cli(speech, ["--prompt", "a quick fox", "--temperature", "0.4", "-l", "en"], tag="opts")
        same("prompt, temperature, language",
             transcribe(c, speech, prompt="a quick fox", temperature=0.4, language="en", response_format="srt"),
             opts["srt"])
        for name in ("speech.flac", "speech.mp3", "float-44k.wav", "rate-8k.wav"):
            path = ctx.fixture(f"whisper/{name}")
            theirs = ctx.whisper_cli(path)
            same(f"{name} srt", transcribe(c, path, response_format="srt"), theirs["srt"])
        # Ogg: whisper-cli on the same audio as another library decodes it.
        for name, wav in (("speech.ogg", "speech-ogg.wav"), ("speech.opus", "speech-opus.wav")):
            theirs = ctx.whisper_cli(ctx.fixture(f"whisper/{wav}"))
            check(theirs["json"]["transcription"], f"whisper-cli heard nothing in {wav}")
            path = ctx.fixture(f"whisper/{name}")
            same(f"{name} srt (whisper-cli on {wav})", transcribe(c, path, response_format="srt"), theirs["srt"])
            same(f"{name} json", transcribe(c, path).text, cli_text(theirs))
        check(server.proc.poll() is None, "the server exited")


def stream_events(c, path, **kw):
    """The events of a streamed transcription of PATH, each with the seconds it came after the request."""
    with open(path, "rb") as f:
        audio = f.read()
    start = time.monotonic()
    out = []
    for e in c.audio.transcriptions.create(model=NAME, file=(os.path.basename(path), audio), stream=True, **kw):
        out.append((e, time.monotonic() - start))
    return out


def case_stream(ctx):
    cases = [("speech.wav", "speech.wav", ("json", "text")), ("long.wav", "long.wav", ("json",)),
             ("speech.opus", "speech-opus.wav", ("json",))]
    with ctx.wasinn() as server:
        c = client(server)
        for name, reference, formats in cases:
            path = ctx.fixture(f"whisper/{name}")
            native = ctx.whisper_cli(ctx.fixture(f"whisper/{reference}"))
            text = cli_text(native)
            spoken = [s["text"] for s in native["json"]["transcription"] if s["text"].strip()]
            check(len(spoken) >= 1, f"whisper-cli heard nothing in {reference}")
            same(f"{name} whole", transcribe(c, path).text, text)
            for fmt in formats:
                events = stream_events(c, path, response_format=fmt)
                kinds = [e.type for e, _ in events]
                check(len(events) >= 2 and kinds[-1] == "transcript.text.done" and
                      all(k == "transcript.text.delta" for k in kinds[:-1]),
                      f"{name} ({fmt}): the events are {kinds}")
                deltas = [e.delta for e, _ in events[:-1]]
                # One delta per segment whisper-cli gives (each a segment's text, the outer
                # whitespace of the transcript held back).
                check(len(deltas) == len(spoken), f"{name} ({fmt}): {len(deltas)} deltas, whisper-cli has "
                                                  f"{len(spoken)} segments with text")
                same(f"{name} stream ({fmt}) deltas", "".join(deltas), text)
                same(f"{name} stream ({fmt}) done", events[-1][0].text, text)
                log(f"{name} ({fmt}): {len(deltas)} deltas, the first after {events[0][1]:.1f} s, "
                    f"done after {events[-1][1]:.1f} s")
        # A client that leaves after the first delta of long.wav ten times over (400 s: whisper
        # decodes 13 more 30 s windows after the first, seconds of work): the guest's next write
        # fails, it drops the context, which cancels whisper.cpp, and the server logs the answer
        # cut:client-left.
        with wave.open(ctx.fixture("whisper/long.wav"), "rb") as w:
            params, frames = w.getparams(), w.readframes(w.getnframes())
        longer = os.path.join(ctx.tmp, "longer.wav")
        with wave.open(longer, "wb") as w:
            w.setparams(params)
            w.writeframes(frames * 10)
        with open(longer, "rb") as f:
            stream = c.audio.transcriptions.create(model=NAME, file=("longer.wav", f.read()), stream=True)
        start = time.monotonic()
        first = next(iter(stream))
        check(first.type == "transcript.text.delta", f"the first event: {first}")
        stream.close()
        line = wait_line(server, r"POST /v1/audio/transcriptions 200 .*cut:client-left", timeout=60)
        check(line, f"the stream left midway is not logged cut:client-left\n{server.tail()}")
        log(f"left midway, {time.monotonic() - start:.1f} s after the first delta: {line}")
        same("after it, speech.wav", transcribe(c, ctx.fixture("whisper/speech.wav")).text,
             cli_text(ctx.whisper_cli(ctx.fixture("whisper/speech.wav"))))
        check(server.proc.poll() is None, "the server exited")


def case_translate(ctx):
    speech = ctx.fixture("whisper/speech.wav")
    native = ctx.whisper_cli(speech, ["-tr"], tag="translate")
    with ctx.wasinn() as server:
        c = client(server)
        with open(speech, "rb") as f:
            audio = f.read()
        t = c.audio.translations.create(model=NAME, file=("speech.wav", audio))
        same("translation json", t.text, cli_text(native))
        t = c.audio.translations.create(model=NAME, file=("speech.wav", audio), response_format="text")
        same("translation text", t.strip(), cli_text(native))
        t = c.audio.translations.create(model=NAME, file=("speech.wav", audio), response_format="srt")
        same("translation srt", t, native["srt"])


def form(fields, boundary="wasinnAudioTest"):
    """A multipart/form-data body of FIELDS, [(name, value bytes, filename or None)]."""
    out = b""
    for name, value, filename in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'.encode()
        if filename is not None:
            out += f'; filename="{filename}"\r\nContent-Type: application/octet-stream'.encode()
        out += b"\r\n\r\n" + value + b"\r\n"
    return out + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def ogg_pages(data):
    """The offsets of DATA's Ogg pages."""
    out, at = [], 0
    while at + 27 <= len(data) and data[at:at + 4] == b"OggS":
        out.append(at)
        n = data[at + 26]
        at += 27 + n + sum(data[at + 27:at + 27 + n])
    return out


def ogg_crc(data):
    """Ogg's page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, from 0."""
    c = 0
    for b in data:
        c ^= b << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if c & 0x80000000 else (c << 1) & 0xFFFFFFFF
    return c


def ogg_edit(data, page, offset, new):
    """DATA with NEW written OFFSET bytes into the page at PAGE, its checksum made right again."""
    n = data[page + 26]
    size = 27 + n + sum(data[page + 27:page + 27 + n])
    out = bytearray(data)
    out[page + offset:page + offset + len(new)] = new
    out[page + 22:page + 26] = b"\0\0\0\0"
    out[page + 22:page + 26] = struct.pack("<I", ogg_crc(bytes(out[page:page + size])))
    return bytes(out)


def huge_part(server, size):
    """(status, body) of a transcription whose file part is `size` bytes: the headers and the part's
    start are sent, the rest never is (the server is to refuse it unread)."""
    import http.client
    boundary = "wasinn-huge-part"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.wav\"\r\n"
            "Content-Type: audio/wav\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.putrequest("POST", "/v1/audio/transcriptions")
        conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
        conn.putheader("Content-Length", str(len(head) + size + len(tail)))
        conn.endheaders()
        try:
            conn.send(head + bytes(1 << 20))
        except OSError:  # the server answered and closed first
            pass
        r = conn.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        conn.close()


def post(server, path, body, content_type):
    req = urllib.request.Request(server.url(path), data=body, headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def case_errors(ctx):
    with open(ctx.fixture("whisper/speech.wav"), "rb") as f:
        wav = f.read()
    # The data chunk (at 36 in sox's 44-byte header) claims 1 MB more than the file holds.
    lying = bytearray(wav)
    check(lying[36:40] == b"data", "speech.wav's data chunk is not at byte 36")
    lying[40:44] = struct.pack("<I", struct.unpack("<I", wav[40:44])[0] + 1000000)
    with open(ctx.fixture("whisper/speech.ogg"), "rb") as f:
        ogg = f.read()
    with open(ctx.fixture("whisper/speech.opus"), "rb") as f:
        opus = f.read()
    # The last page's granule position (the audio's end, in samples) ten seconds on.
    last = ogg_pages(ogg)[-1]
    lying_ogg = ogg_edit(ogg, last, 6, struct.pack("<q", struct.unpack_from("<q", ogg, last + 6)[0] + 160000))
    # OpusHead's channel count (byte 9 of the first page's body) 0.
    head = ogg_pages(opus)[0]
    no_channels = ogg_edit(opus, head, 27 + opus[head + 26] + 9, b"\0")
    chat = ctx.fixture("llama/tiny.gguf")
    have_chat = ctx.args.backend_dir is None or os.path.exists(
        os.path.join(ctx.args.backend_dir, "libwasinn_backend_llamacpp.so"))
    extra = [("chat", chat)] if have_chat and os.path.exists(chat) else []
    with ctx.wasinn() as server:
        good = form([("file", wav, "speech.wav"), ("model", NAME.encode(), None)])
        status, first = post(server, "/v1/audio/transcriptions", *good)
        check(status == 200, f"a good request: {status} {first}")
        file_cases = [
            ("a truncated WAV", wav[: len(wav) // 2], "truncated"),
            ("a WAV whose header lies", bytes(lying), "'data' chunk claims"),
            ("garbage bytes", bytes(range(256)) * 12, "not a WAV, FLAC, MP3 or Ogg"),
            ("an empty file", b"", "file part is empty"),
            ("an AIFF file", b"FORM\0\0\0\x04AIFF", "AIFF, which this backend does not decode"),
            ("a truncated Ogg file", ogg[: len(ogg) // 2], "the Ogg file is truncated"),
            ("an Ogg file whose last granule position lies", lying_ogg, "truncated or its header lies"),
            ("an Ogg Opus file whose OpusHead lies", no_channels, "malformed Opus header"),
        ]
        cases = [(what, "/v1/audio/transcriptions", *form([("file", data, "a.bin"), ("model", NAME.encode(), None)]), says)
                 for what, data, says in file_cases]
        cases += [
            ("no file part", "/v1/audio/transcriptions", *form([("model", NAME.encode(), None)]), "no file part"),
            ("a bad response_format", "/v1/audio/transcriptions",
             *form([("file", wav, "a.wav"), ("response_format", b"mp3", None)]), "response_format must be"),
            ("an unknown field", "/v1/audio/transcriptions", *form([("file", wav, "a.wav"), ("speed", b"2", None)]),
             "Unrecognized request argument supplied: speed"),
            ("stream with srt", "/v1/audio/transcriptions",
             *form([("file", wav, "a.wav"), ("stream", b"true", None), ("response_format", b"srt", None)]),
             "stream takes response_format json or text"),
            ("stream on translations", "/v1/audio/translations",
             *form([("file", wav, "a.wav"), ("stream", b"true", None)]), "not supported on /v1/audio/translations"),
            ("language on translations", "/v1/audio/translations",
             *form([("file", wav, "a.wav"), ("language", b"de", None)]), "language is not accepted"),
            ("word timestamps without verbose_json", "/v1/audio/transcriptions",
             *form([("file", wav, "a.wav"), ("timestamp_granularities[]", b"word", None)]), "needs response_format"),
            ("a JSON body", "/v1/audio/transcriptions", b'{"file": "x"}', "application/json", "multipart/form-data"),
            ("a form cut off", "/v1/audio/transcriptions", good[0][: len(good[0]) // 2], good[1], "cut off"),
        ]
        for what, path, body, content_type, says in cases:
            status, text = post(server, path, body, content_type)
            check(status == 400, f"{what}: {status}, not 400: {text}")
            message = json.loads(text)["error"]["message"]
            check(says in message, f"{what}: the message does not say '{says}': {message}")
            log(f"{what}: 400 {message}")
            status, again = post(server, "/v1/audio/transcriptions", *good)
            check(status == 200 and again == first, f"after {what}: {status} {again}")
        # A 1 GB file part: refused (413) from its Content-Length, before the server reads it.
        status, text = huge_part(server, 1 << 30)
        check(status == 413, f"a 1 GB multipart part: {status}, not 413: {text}")
        log(f"a 1 GB multipart part: 413 {text}")
        status, again = post(server, "/v1/audio/transcriptions", *good)
        check(status == 200 and again == first, f"after the 1 GB part: {status} {again}")
        status, text = post(server, "/v1/audio/transcriptions",
                             *form([("file", wav, "a.wav"), ("model", b"nothing", None)]))
        check(status == 404 and "nothing" in text, f"an unknown model: {status} {text}")
        # The client's own error type for one of them, and for a bad file streamed: the 400 comes
        # before any event.
        import openai
        c = client(server)
        try:
            c.audio.transcriptions.create(model=NAME, file=("a.bin", bytes(range(256)) * 12))
            raise Failure("no 400 for garbage bytes through the client")
        except openai.BadRequestError as e:
            check("WAV, FLAC, MP3 or Ogg" in str(e), f"the client's error: {e}")
        try:
            list(c.audio.transcriptions.create(model=NAME, file=("a.ogg", ogg[: len(ogg) // 2]), stream=True))
            raise Failure("no 400 for a truncated Ogg file streamed through the client")
        except openai.BadRequestError as e:
            check("truncated" in str(e), f"the client's error: {e}")
        check(server.proc.poll() is None, "the server exited")
    if not extra:
        log("the llamacpp plugin or llama/tiny.gguf is missing: the chat-model case is left out")
        return
    # NN_OPTIONS is checked against every model: the chat model's llama.cpp takes threads alone.
    with ctx.wasinn(extra, nn_options=json.dumps({"threads": 2})) as server:
        status, text = post(server, "/v1/audio/transcriptions", *form([("file", wav, "a.wav"), ("model", b"chat", None)]))
        check(status == 400 and "not a whisper model" in text, f"a chat model: {status} {text}")
        log(f"a chat model: 400 {json.loads(text)['error']['message']}")
        status, text = post(server, "/v1/chat/completions", json.dumps(
            {"model": "chat", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}).encode(),
            "application/json")
        check(status == 200, f"the chat model after it: {status} {text}")


CASES = {"formats": case_formats, "stream": case_stream, "translate": case_translate, "errors": case_errors}


def main():
    return case_main(__doc__, CASES, Ctx, required=("--whisper-cli",), optional=("--backend-dir",))


if __name__ == "__main__":
    sys.exit(main())
