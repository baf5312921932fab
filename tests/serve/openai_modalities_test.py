#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Every modality from one server (issue 83's done-when): ONE `wasinn serve --openai` serving a
vision model with its projector, a whisper model, a Piper voice and a reranker answers a chat about
an image, transcribes a recording, speaks a text and reranks documents, each answer equal to the
tool a user would otherwise run on the same files: llama-server --mmproj and llama-mtmd-cli,
whisper-cli, piper-tts, llama-server --reranking. The four route tests (openai_vision_test.py,
openai_audio_test.py, openai_speech_test.py, openai_rerank_test.py) hold each route to its tool
in depth, each on a server of its own; this one reuses their references and checks that the four
models live together: one NN_OPTIONS for all (each model takes the keys it has), one /v1/models,
one access log and one metrics page.

    openai_modalities_test.py --case one-server --wasinn BUILD/bin/wasinn --guests BUILD/guests
        --fixtures DIR --llama-server BIN/llama-server --mtmd-cli BIN/llama-mtmd-cli
        --ggml-cpu LIB/libggml-cpu.so --whisper-cli BIN/whisper-cli [--backend-dir DIR]

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import json
import os
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import openai_audio_test as audio  # noqa: E402
import openai_rerank_test as rerank  # noqa: E402
import openai_speech_test as speech  # noqa: E402
import openai_vision_test as vision  # noqa: E402
from case_checks import case_main, check  # noqa: E402
from serve_test import Server, log, metrics_url, wait_lines  # noqa: E402

# One thread everywhere: the vision and rerank references' (their modules' THREADS), so whisper-cli
# runs with -t 1 too.
THREADS = 1
NN_OPTIONS = json.dumps({"threads": THREADS, "ctx-size": vision.CTX, "beam-size": 1, "best-of": 1,
                         "temperature-inc": 0})
NAMES = {"chat": vision.NAME, "whisper": audio.NAME, "voice": "voice", "rerank": rerank.NAME}


class Ctx:
    """The four route tests' contexts on the same arguments: each checks (and skips for) its own."""

    def __init__(self, args):
        assert vision.THREADS == rerank.THREADS == THREADS, "the references' thread counts moved"
        self.args = args
        self.vision = vision.Ctx(args)
        self.audio = audio.Ctx(args)
        self.speech = speech.Ctx(args)
        self.rerank = rerank.Ctx(args)


def case_one_server(ctx):
    model, mmproj = (ctx.vision.fixture(p) for p in vision.PAIRS["llava"])
    recording = ctx.audio.fixture("whisper/speech.wav")
    voice = ctx.speech.configs["tiny"]
    reranker = ctx.rerank.fixture("reranker/reranker.gguf")
    image = ctx.vision.image("image.png")
    messages = vision.chat_messages(vision.data_url(image))

    # The tools a user would otherwise run, each on its own.
    with vision.MtmdServer(ctx.args.llama_server, model, mmproj) as ls:
        r = ls.post("/v1/chat/completions", {"messages": messages, "max_tokens": vision.N_PREDICT, "temperature": 0})
        want_chat = (r["choices"][0]["message"]["content"], r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"])
        prompt = ls.post("/apply-template", {"messages": messages})["prompt"]
    native = vision.mtmd_answer(ctx.vision, model, mmproj, ctx.vision.images["image.png"], prompt)
    check(native == want_chat[0], f"llama-mtmd-cli {native!r} != llama-server {want_chat[0]!r}")
    heard = ctx.audio.whisper_cli(recording, ["-t", str(THREADS)])  # the last -t is whisper-cli's
    check(heard["json"]["transcription"], "whisper-cli heard nothing in speech.wav")
    spoken = speech.piper_tts_wav(ctx.speech, "tiny")
    ranked = rerank.llama_server_answers(ctx.rerank, reranker)

    args = ["--env", f"NN_OPTIONS={NN_OPTIONS}", "--metrics-addr", "127.0.0.1:0", "--mmproj", f"{NAMES['chat']}={mmproj}"]
    if ctx.args.backend_dir:
        args += ["--backend-dir", ctx.args.backend_dir]
    for key, path in (("chat", model), ("whisper", ctx.audio.model), ("voice", voice)):
        args += ["--openai", f"{NAMES[key]}={path}"]
    args += ["--openai"]  # Server puts its last argument last: the reranker's model
    with Server([ctx.args.wasinn, "serve"], args, f"{NAMES['rerank']}={reranker}", name="wasinn serve") as server:
        c = vision.client(server)
        listed = sorted(m.id for m in c.models.list().data)
        check(listed == sorted(NAMES.values()), f"/v1/models lists {listed}, not the four {sorted(NAMES.values())}")

        got = vision.chat(c, messages)
        check(got == want_chat, f"the chat about an image: wasinn {got} != llama-server {want_chat} (= llama-mtmd-cli)")
        log(f"image: {got[0]!r} ({got[1]} prompt tokens) = llama-server = llama-mtmd-cli")

        audio.same("transcription (json)", audio.transcribe(c, recording).text, audio.cli_text(heard))
        audio.same("transcription (srt)", audio.transcribe(c, recording, response_format="srt"), heard["srt"])

        wav, headers = speech.speak(c, NAMES["voice"], response_format="wav")
        check(wav == spoken, f"speech: wasinn's WAV ({len(wav)} bytes) != piper-tts's ({len(spoken)} bytes)")
        check(headers.get("content-type") == "audio/wav", f"speech's content-type {headers.get('content-type')}")
        log(f"speech: {len(wav)} bytes = piper-tts's, byte for byte")

        rerank.check_answers(server, NAMES["rerank"], ranked)

        # One server's books: each route's 200 in its access log, and the chat's tokens in its metrics.
        for route in ("/v1/chat/completions", "/v1/audio/transcriptions", "/v1/audio/speech", "/v1/rerank"):
            lines = wait_lines(server, rf"POST {route} 200 ")
            check(lines and not any("cut:" in line for line in lines), f"{route}'s access-log lines: {lines}")
        from openai_test import sample
        text = urllib.request.urlopen(metrics_url(server), timeout=10).read().decode()
        prompt_total = sample(text, "wasinn_nn_prompt_tokens_total", graph=NAMES["chat"])
        check(prompt_total == want_chat[1], f"wasinn_nn_prompt_tokens_total {prompt_total} != the chat's {want_chat[1]}")
        check(server.proc.poll() is None, "the server exited")


CASES = {"one-server": case_one_server}


def main():
    return case_main(__doc__, CASES, Ctx, required=("--llama-server", "--mtmd-cli", "--ggml-cpu", "--whisper-cli"),
                     optional=("--backend-dir",))


if __name__ == "__main__":
    sys.exit(main())
