#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Audio in chat through `wasinn serve --openai NAME=model.gguf --mmproj NAME=audio-mmproj.gguf`: a
user message's input_audio parts ({"data": base64, "format": "wav" | "mp3"}), driven by PyPI's
`openai` client, each answer equal to llama.cpp's own on the same files and build: llama-server's
/v1/chat/completions (`--jinja --mmproj`, the same request) and llama-mtmd-cli's greedy answer
(`--audio`) on the prompt llama-server's /apply-template renders, as openai_vision_test.py does for
images.

    openai_audio_chat_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                              --llama-server BIN/llama-server --mtmd-cli BIN/llama-mtmd-cli
                              --ggml-cpu LIB/libggml-cpu.so [--backend-dir DIR]

Cases (ctest runs each as serve.openai-audio-chat.CASE), on llama/tiny.gguf with the random-weight
Ultravox projector of scripts/fixtures/export_audio_projector.py and the whisper fixtures' recordings:
  answers  speech.wav, speech.mp3, the same speech at 8 kHz (rate-8k.wav, resampled) and a 35 s
           recording (long.wav, two 30 s windows of the encoder), greedy, 16 tokens: each answer and
           its prompt and completion tokens equal llama-server's, speech.wav's and speech.mp3's
           llama-mtmd-cli's; streamed, the deltas join to it; two recordings answer differently (the
           audio matters)
  errors   each a 400 that says what, the server answering correctly after it: input_audio to a model
           whose projector has no audio encoder (llava's), to a model without projector, an image to
           the audio projector; a format other than wav/mp3, data that is not base64, a data URL,
           bytes that are no audio, an MP3 named wav; a WAV cut short, one whose 'data' chunk claims
           more than the file holds (behind a 5000-byte chunk, past what the guest reads: the plugin's
           check), ADPCM samples, a 1 Hz WAV that would decode to 4000 s; audio over MAX_IMAGE_BYTES;
           the Responses API's input_audio (OpenAI's Responses takes no audio in its messages)

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import base64
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import Skipped, case_main, check  # noqa: E402
from openai_vision_test import (N_PREDICT, NAME, NN_OPTIONS, MtmdServer, bad_request, chat,  # noqa: E402
                                chat_messages, client, data_url, mtmd_answer)
from serve_test import Server, log  # noqa: E402

MODEL, PROJECTOR = "llama/tiny.gguf", "audio/mmproj-ultravox.gguf"
IMAGE_PAIR = ("llama/tiny.gguf", "llava/mmproj-tiny.gguf")  # a projector with a vision encoder only
TEXT = "say it"  # short: llama-server caps tiny.gguf's context at its 128 training tokens
RECORDINGS = ("speech.wav", "speech.mp3", "rate-8k.wav", "long.wav")
# long.wav's two windows (94 tokens) and the template's fill llama-server's context but for 4 tokens
# (it caps tiny.gguf's at its 128 training tokens), so its answer is 4 tokens long on both servers.
ANSWER_TOKENS = {"long.wav": 4}


def audio_messages(raw, fmt, text=TEXT):
    return [{"role": "user", "content": [
        {"type": "text", "text": text},
        {"type": "input_audio", "input_audio": {"data": base64.b64encode(raw).decode(), "format": fmt}}]}]


def fmt_of(name):
    return "mp3" if name.endswith(".mp3") else "wav"


def wav_bytes(samples=b"\0\0" * 1600, rate=16000, tag=1, channels=1, bits=16, before_data=b"", data_size=None):
    """A WAV file: RIFF/WAVE, a 16-byte 'fmt ', the chunks `before_data`, then 'data' (its size
    `data_size` when given, else the samples')."""
    align = channels * bits // 8
    fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + before_data + b"data" + struct.pack(
        "<I", len(samples) if data_size is None else data_size) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


class Ctx:
    def __init__(self, args):
        self.args = args
        for path in (args.llama_server, args.mtmd_cli):
            if not os.access(path, os.X_OK):
                raise Skipped(f"no {path} (scripts/deps/llamacpp.sh builds it)")
        component = os.path.join(args.guests, "http_openai.component.wasm")
        if not os.path.exists(component):
            raise Skipped(f"no {component} (built with the HTTP component guests)")
        try:
            import openai  # noqa: F401
        except ImportError as e:
            raise Skipped(f"{e.name} is not installed in this Python (scripts/deps/openai.pip)")
        self.model, self.projector = self.fixture(MODEL), self.fixture(PROJECTOR)

    def fixture(self, rel):
        path = os.path.join(self.args.fixtures, rel)
        if not os.path.exists(path):
            raise Skipped(f"no {path} (scripts/make_fixtures.py makes it)")
        return path

    def recording(self, name):
        with open(self.fixture(f"whisper/{name}"), "rb") as f:
            return f.read()

    def wasinn(self, models, extra=()):
        """wasinn serve --openai for MODELS, [(name, model, mmproj or None)]."""
        args = ["--env", f"NN_OPTIONS={NN_OPTIONS}"] + list(extra)
        if self.args.backend_dir:
            args += ["--backend-dir", self.args.backend_dir]
        for name, _, mmproj in models:
            if mmproj:
                args += ["--mmproj", f"{name}={mmproj}"]
        openai_args = []
        for name, model, _ in models:
            openai_args += ["--openai", f"{name}={model}"]
        return Server([self.args.wasinn, "serve"], args + openai_args[:-1], openai_args[-1], name="wasinn serve")


def case_answers(ctx):
    raw = {name: ctx.recording(name) for name in RECORDINGS}
    want, prompts = {}, {}
    with MtmdServer(ctx.args.llama_server, ctx.model, ctx.projector) as ls:
        for name in RECORDINGS:
            r = ls.post("/v1/chat/completions", {"messages": audio_messages(raw[name], fmt_of(name)),
                                                 "max_tokens": ANSWER_TOKENS.get(name, N_PREDICT), "temperature": 0})
            want[name] = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"],
                          r["usage"]["completion_tokens"])
        for name in ("speech.wav", "speech.mp3"):
            prompts[name] = ls.post("/apply-template", {"messages": audio_messages(raw[name], fmt_of(name))})["prompt"]
    for name, prompt in prompts.items():
        check("<__media__>" in prompt, f"llama-server's rendered prompt has no media marker: {prompt!r}")
        native = mtmd_answer(ctx, ctx.model, ctx.projector, ctx.fixture(f"whisper/{name}"), prompt, "--audio")
        check(native == want[name][0], f"{name}: llama-mtmd-cli {native!r} != llama-server {want[name][0]!r}")
    check(want["speech.wav"][0] != want["rate-8k.wav"][0],
          f"speech.wav and rate-8k.wav both answer {want['speech.wav'][0]!r}: the audio does not matter")
    check(want["long.wav"][1] > want["speech.wav"][1],
          f"long.wav's {want['long.wav'][1]} prompt tokens are not more than speech.wav's: one window, not two")
    with ctx.wasinn([(NAME, ctx.model, ctx.projector)]) as server:
        c = client(server)
        for name in RECORDINGS:
            r = c.chat.completions.create(model=NAME, messages=audio_messages(raw[name], fmt_of(name)),
                                          max_tokens=ANSWER_TOKENS.get(name, N_PREDICT), temperature=0)
            got = (r.choices[0].message.content, r.usage.prompt_tokens, r.usage.completion_tokens)
            check(got == want[name], f"{name}: wasinn {got} != llama-server {want[name]} (answer, prompt and "
                  "completion tokens)")
        pieces = [ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
            model=NAME, messages=audio_messages(raw["speech.wav"], "wav"), max_tokens=N_PREDICT, temperature=0,
            stream=True) if ch.choices]
        check("".join(pieces) == want["speech.wav"][0], f"streamed {''.join(pieces)!r} != {want['speech.wav'][0]!r}")
        check(server.proc.poll() is None, "the server exited")
    log("answers: " + "; ".join(f"{n} {w[0]!r} ({w[1]} prompt tokens)" for n, w in want.items()) +
        " = llama-server; speech.wav and speech.mp3 = llama-mtmd-cli; streamed alike")


def case_errors(ctx):
    speech, mp3 = ctx.recording("speech.wav"), ctx.recording("speech.mp3")
    image_model, image_projector = (ctx.fixture(p) for p in IMAGE_PAIR)
    with open(ctx.fixture("llava/image.png"), "rb") as f:
        png = f.read()
    limit = 2 * len(speech) + len(speech) // 2  # two recordings fit, three do not
    with ctx.wasinn([(NAME, ctx.model, ctx.projector), ("image", image_model, image_projector),
                     ("text", ctx.model, None)], extra=["--env", f"MAX_IMAGE_BYTES={limit}"]) as server:
        c = client(server)
        good = chat(c, audio_messages(speech, "wav"))

        def still_answers():
            check(chat(c, audio_messages(speech, "wav")) == good, "the server answers otherwise after the error")

        def on(model, messages):
            return lambda: c.chat.completions.create(model=model, messages=messages, max_tokens=4)

        junk = b"junk" + struct.pack("<I", 5000) + bytes(5000)
        cases = [
            ("audio to a projector without an audio encoder", on("image", audio_messages(speech, "wav")),
             ("model `image`'s projector has no audio encoder", "the request's audio 1 is WAV audio",
              "mmproj-tiny.gguf"), "model_without_audio_encoder"),
            ("audio to a model without projector", on("text", audio_messages(speech, "wav")),
             ("has no projector (mmproj), so it takes no images or audio", "--mmproj"), "model_without_projector"),
            ("an image to the audio projector", on(NAME, chat_messages(data_url(png))),
             ("the request's image 1", "no vision encoder", "takes audio only"), "invalid_image"),
            ("format flac", on(NAME, audio_messages(speech, "flac")), ('"wav" or "mp3"',), "invalid_audio_format"),
            ("data that is not base64", on(NAME, [{"role": "user", "content": [
                {"type": "input_audio", "input_audio": {"data": "@@@@", "format": "wav"}}]}]),
             ("not base64",), "invalid_audio"),
            ("a data URL", on(NAME, [{"role": "user", "content": [{"type": "input_audio", "input_audio": {
                "data": "data:audio/wav;base64," + base64.b64encode(speech).decode(), "format": "wav"}}]}]),
             ("data URL",), "invalid_audio"),
            ("bytes that are no audio", on(NAME, audio_messages(b"this is text, not a sound\n" * 8, "wav")),
             ("no audio file this server reads",), "invalid_audio"),
            ("an MP3 named wav", on(NAME, audio_messages(mp3, "wav")), ("an MP3 file, not the WAV",),
             "invalid_audio"),
            ("a WAV cut short", on(NAME, audio_messages(speech[: len(speech) // 2], "wav")),
             ("truncated WAV file", f"says {len(speech)} bytes"), "invalid_audio"),
            ("a 'data' chunk that lies, behind 5000 bytes", on(NAME, audio_messages(
                wav_bytes(before_data=junk, data_size=1 << 30), "wav")),
             ("the request's audio 1", "'data' chunk claims 1073741824 bytes, past the file's end"), "invalid_audio"),
            ("ADPCM samples", on(NAME, audio_messages(wav_bytes(tag=2, bits=4), "wav")),
             ("format tag 2 (ADPCM)", "PCM"), "invalid_audio"),
            ("a 1 Hz WAV of 4000 s", on(NAME, audio_messages(wav_bytes(samples=b"\0\0" * 4000, rate=1), "wav")),
             ("4000 s long", "at most 3600 s"), "invalid_audio"),
            ("audio over MAX_IMAGE_BYTES", on(NAME, [{"role": "user", "content": [
                {"type": "input_audio", "input_audio": {"data": base64.b64encode(speech).decode(), "format": "wav"}}
            ] * 3}]), (f"limit of {limit} bytes", "MAX_IMAGE_BYTES"), "audio_too_large"),
            ("Responses' input_audio", lambda: c.responses.create(model=NAME, input=[
                {"role": "user", "content": [{"type": "input_audio", "input_audio": {
                    "data": base64.b64encode(speech).decode(), "format": "wav"}}]}]),
             ("audio are not supported",), None),
        ]
        for what, fn, needles, code in cases:
            message = bad_request(fn, *needles, code=code)
            log(f"{what}: 400 {message}")
            still_answers()
        # Two recordings fit the limit: a request may hold more than one.
        two = chat(c, [{"role": "user", "content": [{"type": "text", "text": TEXT}] + [
            {"type": "input_audio", "input_audio": {"data": base64.b64encode(speech).decode(), "format": "wav"}}] * 2}])
        check(two[1] > good[1], f"two recordings: prompt tokens {two[1]} not above one's {good[1]}")
        check(server.proc.poll() is None, "the server exited")


CASES = {"answers": case_answers, "errors": case_errors}


def main():
    return case_main(__doc__, CASES, Ctx, required=("--llama-server", "--mtmd-cli", "--ggml-cpu"),
                     optional=("--backend-dir",))


if __name__ == "__main__":
    sys.exit(main())
