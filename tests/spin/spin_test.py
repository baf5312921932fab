#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Spin apps on `wasinn serve` (issue 43): the Spin guests of guest/rust-web/spin, built with spin-sdk
5.2.0 from crates.io, served with the tiny GGUF fixture preloaded as `tiny` on the real llama.cpp
plugin. fermyon:spin/llm's answers are compared with native llama.cpp's (--reference: the C++
tests' llama_native.cpp). Standard library only; the server harness is serve_test.py's.

    spin_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --reference REF [options]

Cases (ctest runs each as spin.CASE, see CMakeLists.txt here):
  infer       spin_llm's infer_with_options at temperature 0 answers native llama.cpp's greedy
              text (as UTF-8: see utf8()), for 24 tokens and for 4, also two requests at once, and
              its usage counts the native prompt and generated tokens; infer without params
              answers too
  errors      a model name no preload has, and a preload that is no text model (ONNX), are Spin's
              model-not-supported; a top-p the plugin refuses is invalid-input; the server goes
              on answering after them
  embeddings  generate-embeddings of two texts: each equals native llama.cpp's embedding (the
              plugin's definition: the last token's hidden state, L2-normalised), and the usage
              counts both prompts' tokens
  refused     a Spin app importing fermyon:spin/key-value is refused at start, before serving,
              with the import named and fermyon:spin/llm said to be the one served

Exit status: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from case_checks import Skipped, check, run_cases  # noqa: E402
from serve_test import Server, log, request, run_threads  # noqa: E402

PROMPT = "The quick brown fox jumps over the lazy dog. Once upon a time"
N_PREDICT = 24
N_CTX = 512  # the plugin's default ctx-size: the server's contexts have it


class Context:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        self.env.pop("WASINN_BACKEND_PATH", None)  # the build's own plugins are under test
        self.fixtures = os.environ.get("WASINN_FIXTURES") or args.fixtures
        self.tmp = tempfile.mkdtemp(prefix="wasinn-spin-test-")
        # The plugin's default: one llama.cpp thread per hardware thread.
        self.threads = os.cpu_count() or 1

    def guest(self, name):
        path = os.path.join(self.args.guests, f"{name}.wasm")
        if not os.path.exists(path):
            raise Skipped(f"{path} is missing: the Spin guests need scripts/fetch-deps.sh rust-web")
        return path

    def gguf(self):
        if self.args.backend_dir and not os.path.exists(os.path.join(self.args.backend_dir, "llamacpp.json")):
            raise Skipped(f"the llamacpp backend is not built ({self.args.backend_dir}/llamacpp.json)")
        path = os.path.join(self.fixtures, "llama", "tiny.gguf")
        check(os.path.exists(path), f"fixture {path} is missing: run .deps/venv/bin/python scripts/make_fixtures.py")
        return path

    def server(self, guest, args=()):
        return Server([self.args.wasinn, "serve", "--workers", "2"], list(args), self.guest(guest), env=self.env,
                      name=guest)

    def preload(self):
        return ["--nn-preload", f"tiny:GGML:AUTO:{self.gguf()}"]

    def reference(self, mode, text, *args):
        """Native llama.cpp (wasinn_llama_reference, JSON): (the greedy text's bytes, or the
        embedding's f32 bytes; {"n_prompt": N, "n_generated": M})."""
        if mode == "generate":
            n_predict, n_ctx, threads = args
            argv = ["--prompt", text, "--n", n_predict, "--ctx", n_ctx, "--threads", threads]
        else:
            n_ctx, threads = args
            argv = ["--embedding", text, "--ctx", n_ctx, "--threads", threads]
        r = subprocess.run([self.args.reference, self.gguf(), *map(str, argv)], capture_output=True)
        check(r.returncode == 0, f"llama_reference {mode} failed: {r.stderr.decode(errors='replace')}")
        out = json.loads(r.stdout)
        if mode == "generate":
            return bytes.fromhex(out["text_hex"]), {"n_prompt": out["n_prompt"], "n_generated": out["n_tokens"]}
        return struct.pack(f"<{len(out['embedding'])}f", *out["embedding"]), {"n_prompt": out["n_prompt"]}


def utf8(text):
    """Native bytes as Spin's WIT string carries them: UTF-8, a token that ends inside a character
    replaced by U+FFFD (Rust's from_utf8_lossy and Python's "replace" follow the same rule)."""
    return text.decode("utf-8", "replace").encode()


def header(r, name):
    check(name in r.headers, f"no {name} header: {r!r}")
    return int(r.headers[name])


def case_infer(ctx):
    want, counts = ctx.reference("generate", PROMPT, N_PREDICT, N_CTX, ctx.threads)
    want = utf8(want)
    check(counts["n_generated"] == N_PREDICT, f"the native run made {counts['n_generated']} tokens, not {N_PREDICT}")
    with ctx.server("spin_llm", ctx.preload()) as server:
        path = f"/infer?model=tiny&max-tokens={N_PREDICT}&temperature=0&repeat-penalty=1"
        r = request(server, "POST", path, PROMPT.encode(), timeout=240)
        check(r.status == 200, f"POST {path}: {r!r}\n{server.tail()}")
        check(r.body == want, f"the Spin app's answer differs from native llama.cpp's greedy text:\n"
                              f"served: {r.body!r}\nnative: {want!r}")
        check(header(r, "x-prompt-tokens") == counts["n_prompt"],
              f"prompt-token-count {r.headers['x-prompt-tokens']}, native {counts['n_prompt']}")
        check(header(r, "x-generated-tokens") == N_PREDICT,
              f"generated-token-count {r.headers['x-generated-tokens']}, want {N_PREDICT}")
        log(f"infer: {len(r.body)} bytes, {N_PREDICT} tokens, equal to native llama.cpp's greedy text")
        # Asked again, twice at once (two workers, two contexts on the one preloaded model): the same
        # answer each time (nothing of a request is kept, nothing is shared but the model).
        for again in run_threads(2, lambda i: request(server, "POST", path, PROMPT.encode(), timeout=240)):
            check(again.status == 200 and again.body == want, f"a concurrent request: {again!r}")
        # max-tokens bounds the answer: 4 tokens are the first 4 of the 24.
        short, short_counts = ctx.reference("generate", PROMPT, 4, N_CTX, ctx.threads)
        short = utf8(short)
        r = request(server, "POST", "/infer?model=tiny&max-tokens=4&temperature=0&repeat-penalty=1",
                    PROMPT.encode(), timeout=240)
        check(r.status == 200 and r.body == short, f"max-tokens 4: {r!r}, native {short!r}")
        check(header(r, "x-generated-tokens") == short_counts["n_generated"], f"max-tokens 4's usage: {r!r}")
        # spin_sdk::llm::infer (no infer-params): Spin's defaults, 100 tokens at most, sampled.
        r = request(server, "POST", "/infer?model=tiny&defaults", PROMPT.encode(), timeout=240)
        check(r.status == 200 and 0 < header(r, "x-generated-tokens") <= 100, f"infer without params: {r!r}")
        check(header(r, "x-prompt-tokens") == counts["n_prompt"], f"infer without params' usage: {r!r}")
        log(f"infer without params: {r.headers['x-generated-tokens']} tokens in {r.elapsed:.1f} s")


def case_errors(ctx):
    # A preload that is no text model (the digits ONNX classifier), where ONNX Runtime is built.
    onnx = os.path.join(ctx.fixtures, "digits", "model.onnx")
    with_onnx = os.path.exists(onnx) and os.path.exists(os.path.join(ctx.args.backend_dir or "", "onnxruntime.json"))
    extra = ["--nn-preload", f"digits:onnx:cpu:{onnx}"] if with_onnx else []
    with ctx.server("spin_llm", ctx.preload() + extra) as server:
        r = request(server, "POST", "/infer?model=no-such-model&max-tokens=4&temperature=0", b"hi")
        check(r.status == 404 and r.body == b"model-not-supported", f"an unknown model name: {r!r}")
        if with_onnx:
            for route in ("infer", "embed"):
                r = request(server, "POST", f"/{route}?model=digits&max-tokens=4", b"hi")
                check(r.status == 404 and r.body == b"model-not-supported", f"{route} on an ONNX model: {r!r}")
        r = request(server, "POST", "/embed?model=no-such-model", b"hi")
        check(r.status == 404 and r.body == b"model-not-supported", f"an unknown embedding model: {r!r}")
        r = request(server, "POST", "/infer?model=tiny&max-tokens=4&top-p=2", b"hi")
        check(r.status == 400 and r.body.startswith(b"invalid-input:") and b"top-p" in r.body,
              f"a top-p of 2: {r!r}")
        r = request(server, "POST", "/infer?model=tiny&max-tokens=2&temperature=0&repeat-penalty=1", b"hi",
                    timeout=240)
        check(r.status == 200 and header(r, "x-generated-tokens") <= 2, f"after the errors: {r!r}\n{server.tail()}")
        log(f"errors: model-not-supported, invalid-input, then an answer: {r.body!r}")


def f32s(data):
    return list(struct.unpack(f"<{len(data) // 4}f", data))


def case_embeddings(ctx):
    texts = ["In a hole in the ground there lived a hobbit.", PROMPT]
    refs = [ctx.reference("embed", t, N_CTX, ctx.threads) for t in texts]
    with ctx.server("spin_llm", ctx.preload()) as server:
        r = request(server, "POST", "/embed?model=tiny", "\n".join(texts).encode(), timeout=240)
        check(r.status == 200, f"POST /embed: {r!r}\n{server.tail()}")
        lines = r.body.decode().split("\n")
        check(len(lines) == len(texts), f"{len(lines)} embeddings for {len(texts)} texts")
        worst = 0.0
        for text, line, (ref_bytes, _) in zip(texts, lines, refs):
            got = [float(x) for x in line.split(",")]
            ref = f32s(ref_bytes)
            check(len(got) == len(ref), f"{text!r}: {len(got)} values, native {len(ref)}")
            diff = max(abs(a - b) for a, b in zip(got, ref))
            worst = max(worst, diff)
            check(diff <= 1e-4, f"{text!r}: differs from native llama.cpp's embedding by up to {diff}")
        n_prompt = sum(counts["n_prompt"] for _, counts in refs)
        check(header(r, "x-prompt-tokens") == n_prompt, f"prompt-token-count {r.headers['x-prompt-tokens']}, "
                                                        f"native {n_prompt}")
        log(f"embeddings: {len(texts)} of {len(lines[0].split(','))} values, within {worst:.2e} of native llama.cpp's")


def case_refused(ctx):
    argv = [ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", *ctx.preload(), ctx.guest("spin_key_value")]
    start = time.monotonic()
    r = subprocess.run(argv, capture_output=True, env=ctx.env, timeout=50)
    err = r.stderr.decode(errors="replace")
    check(r.returncode != 0, f"wasinn serve took an app importing fermyon:spin/key-value (exit 0)\n{err}")
    check("Serving HTTP" not in err, f"it served before refusing:\n{err}")
    check("fermyon:spin/key-value@2.0.0" in err and "fermyon:spin/llm@2.0.0" in err,
          f"the refusal names neither the import nor what is served:\n{err}")
    log(f"refused in {time.monotonic() - start:.1f} s with exit {r.returncode}: {err.strip().splitlines()[-1]}")


CASES = {"infer": case_infer, "errors": case_errors, "embeddings": case_embeddings, "refused": case_refused}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--case", required=True, choices=sorted(CASES) + ["all"])
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True, help="the build's guests directory (spin_*.wasm)")
    p.add_argument("--reference", required=True, help="llama_reference (native llama.cpp)")
    p.add_argument("--fixtures", default=os.path.expanduser("~/.cache/wasinn/fixtures"),
                   help="fixtures (WASINN_FIXTURES overrides)")
    p.add_argument("--backend-dir", help="the build's backend plugins (skips without llamacpp.json)")
    args = p.parse_args()
    ctx = Context(args)
    names = sorted(CASES) if args.case == "all" else [args.case]
    status = run_cases(CASES, names, ctx)
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
