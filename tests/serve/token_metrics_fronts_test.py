#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Token metrics (docs/metrics.md, "Tokens") on every front but the OpenAI component's
(token_metrics_test.py has that one): real guests on the real llama.cpp plugin with the tiny GGUF,
greedy, scraped from --metrics-addr after their generations, against what the guest got and
native llama.cpp (wasinn_llama_reference: its greedy text, its token counts, its tokenizer).

    token_metrics_fronts_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests
                                 --reference BUILD/bin/wasinn_llama_reference [--fixtures DIR]

Cases (ctest runs each as serve.token-metrics.CASE):
  witx-stream  chat.wasm (witx compute_single / get_output_single / fini_single, as LlamaEdge's
               apps stream) under `wasinn run --metrics-addr`, two turns on stdin, scraped while it
               waits for the next line
  wit          wit_chat (wasi:nn WIT, one compute per answer), the same two turns
  spin         spin_llm (fermyon:spin/llm infer) on `wasinn serve`, two requests
  nn-ext       p3_http's /generate (wasinn:nn-async generate, a stream<string>) on `wasinn serve`,
               two requests
Each checks: prompt tokens == native llama.cpp's count of each prompt (the whole conversation at
each turn), generated tokens == the tokens of native's greedy answer, which is byte for byte what
the guest got (so it got that many; the per-token fronts also print it one token per call), the
time-to-first-token histogram counts one per generation and the per-token one generated - generations.

witx-stream also checks the guest's calls: compute_single was called once per token it printed
and once more at each answer's end (END_OF_SEQUENCE), wasinn_nn_computes_total.

Not here: a witx guest that calls `compute` once per answer. The in-tree ones (run_model,
WasmEdge's examples' one-shot mode) exit right after it, and `wasinn run`'s metrics server stops
with the run, so nothing can scrape them; LlamaEdge's api-server (long-lived, compute for its
non-streamed answers) is not buildable here (docs/compatibility.md). wit and spin cover the
same core path (ExecutionContext::compute) from long-lived fronts.

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import Skipped, check, run_cases  # noqa: E402
from serve_test import Server, log, metrics_url, request  # noqa: E402

N_PREDICT = 16
N_CTX = 512
TURNS = (b"Once upon a time\n", b"Tell me more\n")  # chat.c and wit_chat read one prompt a line
PROMPTS = ("Once upon a time", "The quick brown fox")  # the HTTP fronts' bodies


class Context:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        self.env.pop("WASINN_BACKEND_PATH", None)  # the build's own plugins are under test
        self.fixtures = os.environ.get("WASINN_FIXTURES") or args.fixtures
        self.tmp = tempfile.mkdtemp(prefix="wasinn-token-fronts-")
        self.threads = os.cpu_count() or 1  # the plugin's default: one thread per hardware thread

    def guest(self, file):
        path = os.path.join(self.args.guests, file)
        if not os.path.exists(path):
            raise Skipped(f"{path} is missing (not built in this configuration)")
        return path

    def gguf(self):
        if self.args.backend_dir and not os.path.exists(os.path.join(self.args.backend_dir, "llamacpp.json")):
            raise Skipped(f"the llamacpp backend is not built ({self.args.backend_dir}/llamacpp.json)")
        path = os.path.join(self.fixtures, "llama", "tiny.gguf")
        check(os.path.exists(path), f"fixture {path} is missing: run .deps/venv/bin/python scripts/make_fixtures.py")
        return path

    def reference(self, prompt):
        """Native llama.cpp's greedy answer to PROMPT (bytes): (its bytes, prompt tokens, tokens generated)."""
        r = subprocess.run([self.args.reference, self.gguf(), "--prompt", prompt.decode("utf-8", "surrogateescape"),
                            "--n", str(N_PREDICT), "--ctx", str(N_CTX), "--threads", str(self.threads)],
                           capture_output=True, env=self.env)
        check(r.returncode == 0, f"llama_reference failed: {r.stderr.decode(errors='replace')}")
        out = json.loads(r.stdout)
        return bytes.fromhex(out["text_hex"]), out["n_prompt"], out["n_tokens"]


def scrape(url):
    return urllib.request.urlopen(url, timeout=10).read().decode()


def sample(text, name, **labels):
    """The sum of the series NAME whose labels include LABELS (0 when there is none)."""
    total = 0.0
    for m in re.finditer(rf"^{re.escape(name)}\{{([^}}]*)\}} (\S+)$", text, re.M):
        have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(2))
    return total


def token_metrics(url, graph):
    text = scrape(url)
    get = lambda name: int(sample(text, f"wasinn_nn_{name}", backend="llamacpp", graph=graph))  # noqa: E731
    return {"prompt": get("prompt_tokens_total"), "generated": get("generated_tokens_total"),
            "ttft": get("time_to_first_token_seconds_count"), "tpot": get("time_per_output_token_seconds_count"),
            "ttft_inf": int(sample(text, "wasinn_nn_time_to_first_token_seconds_bucket", graph=graph, le="+Inf"))}


def expect(url, graph, want, what):
    """Scrapes until the counts equal WANT (a served answer's last token may be counted a moment
    after the client read it), failing after 10 s with both."""
    deadline = time.monotonic() + 10
    while True:
        got = token_metrics(url, graph)
        if got == want:
            return got
        check(time.monotonic() < deadline, f"{what}: scraped {got}, want {want}")
        time.sleep(0.1)


def want_after(gens):
    """The metrics after generations GENS, each (prompt tokens, generated tokens)."""
    p, g = sum(x[0] for x in gens), sum(x[1] for x in gens)
    return {"prompt": p, "generated": g, "ttft": len(gens), "tpot": g - len(gens), "ttft_inf": len(gens)}


class Run:
    """`wasinn run --metrics-addr 127.0.0.1:0 ARGS`, its stdin a pipe the test writes turns to."""

    def __init__(self, ctx, args):
        self.argv = [ctx.args.wasinn, "run", "--metrics-addr", "127.0.0.1:0", *args]
        log(" ".join(self.argv))
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=ctx.env)
        self.out, self.err = bytearray(), bytearray()
        self.seen = 0  # stdout's bytes checked
        self.cond = threading.Condition()
        self.drains = [threading.Thread(target=self._drain, args=(stream, buf), daemon=True)
                       for stream, buf in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self.drains:
            t.start()
        m = self.wait(lambda: re.search(rb"metrics at (http://\S+/metrics)", self.err), "the metrics URL")
        self.url = m.group(1).decode()

    def _drain(self, stream, buf):
        for chunk in iter(lambda: stream.read1(65536), b""):
            with self.cond:
                buf.extend(chunk)
                self.cond.notify_all()

    def wait(self, ready, what, timeout=60):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not (got := ready()):
                check(self.proc.poll() is None, f"wasinn run exited ({self.proc.returncode}) waiting for {what}\n"
                                                f"{self.tail()}")
                check(time.monotonic() < deadline, f"no {what} within {timeout} s\n{self.tail()}")
                self.cond.wait(0.1)
            return got

    def turn(self, line, answer):
        """Sends LINE; returns once the guest printed ANSWER (it then waits for the next line).
        The newline after an answer is checked at the next turn: chat.c flushes only its pieces."""
        start = self.seen
        want = (b"\n" if start else b"") + answer
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        self.wait(lambda: len(self.out) >= start + len(want), "the answer")
        got = bytes(self.out[start:start + len(want)])
        check(got == want, f"the guest's answer differs from native llama.cpp's greedy text:\n"
                           f"guest:  {got!r}\nnative: {want!r}")
        self.seen = start + len(want)

    def finish(self):
        self.proc.stdin.close()
        rc = self.proc.wait(60)
        check(rc == 0, f"wasinn run exited {rc}\n{self.tail()}")
        for t in self.drains:
            t.join(10)
        check(bytes(self.out[self.seen:]) == b"\n", f"after the last answer: {bytes(self.out[self.seen:])!r}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def tail(self):
        return f"stdout: {bytes(self.out[-2000:])!r}\nstderr: {bytes(self.err[-3000:]).decode(errors='replace')}"


def two_turns(ctx, args, what, calls_per_token=False):
    """The two TURNS through a chat guest (chat.wasm, wit_chat): each answered as native llama.cpp
    answers the whole conversation so far, each scraped after its answer."""
    config = json.dumps({"n-predict": N_PREDICT, "ctx-size": N_CTX, "temp": 0})
    run = Run(ctx, ["--nn-preload", f"default:GGML:AUTO:{ctx.gguf()}", *args, "--config", config])
    try:
        conversation, gens = b"", []
        for line in TURNS:
            conversation += line
            answer, n_prompt, n_gen = ctx.reference(conversation)
            run.turn(line, answer)
            conversation += answer + b"\n"
            gens.append((n_prompt, n_gen))
            got = expect(run.url, "default", want_after(gens), f"{what}, turn {len(gens)}")
            if calls_per_token:  # the call that ends the answer comes after its last piece is printed
                want, deadline = sum(g for _, g in gens) + len(gens), time.monotonic() + 10
                while (calls := int(sample(scrape(run.url), "wasinn_nn_computes_total", graph="default"))) < want:
                    check(time.monotonic() < deadline, f"{what}: {calls} compute_single calls, want {want}")
                    time.sleep(0.1)
                check(calls == want, f"{what}: {calls} compute_single calls, want {want} (one a token, one an end)")
                check(token_metrics(run.url, "default") == got, f"{what}: the answer's end changed the token counts")
        run.finish()
    finally:
        run.kill()
    log(f"{what}: 2 turns, {gens} (prompt, generated) tokens as native llama.cpp's; scraped {got}")


def case_witx_stream(ctx):
    two_turns(ctx, [ctx.guest("chat.wasm")], "witx-stream (chat.wasm)", calls_per_token=True)


def case_wit(ctx):
    two_turns(ctx, [ctx.guest("wit_chat.component.wasm")], "wit (wit_chat)")


def served(ctx, guest, path_of, what, native_text=lambda b: b, headers=None):
    """Two PROMPTS to GUEST on `wasinn serve --metrics-addr`; each answer equals native's greedy
    text (NATIVE_TEXT: how the front carries its bytes); scraped after each."""
    args = ["--workers", "2", "--nn-preload", f"tiny:GGML:AUTO:{ctx.gguf()}", "--metrics-addr", "127.0.0.1:0"]
    with Server([ctx.args.wasinn, "serve"], args, ctx.guest(guest), env=ctx.env, name=guest) as server:
        url = metrics_url(server)
        check(token_metrics(url, "tiny") == want_after([]), f"tokens counted before any request: "
                                                            f"{token_metrics(url, 'tiny')}")
        gens = []
        for prompt in PROMPTS:
            answer, n_prompt, n_gen = ctx.reference(prompt.encode())
            r = request(server, "POST", path_of(N_PREDICT), prompt.encode(), timeout=120)
            check(r.status == 200, f"POST {path_of(N_PREDICT)}: {r!r}\n{server.tail()}")
            check(r.body == native_text(answer), f"the answer differs from native llama.cpp's greedy text:\n"
                                                 f"served: {r.body!r}\nnative: {native_text(answer)!r}")
            if headers:
                headers(r, n_prompt, n_gen)
            gens.append((n_prompt, n_gen))
            got = expect(url, "tiny", want_after(gens), f"{what}, request {len(gens)}")
    log(f"{what}: 2 requests, {gens} (prompt, generated) tokens as native llama.cpp's; scraped {got}")


def utf8(text):
    """Native bytes as a WIT string carries them: a token ending inside a character replaced by U+FFFD."""
    return text.decode("utf-8", "replace").encode()


def case_spin(ctx):
    def usage(r, n_prompt, n_gen):
        got = (int(r.headers.get("x-prompt-tokens", -1)), int(r.headers.get("x-generated-tokens", -1)))
        check(got == (n_prompt, n_gen), f"Spin's usage says {got}, native {(n_prompt, n_gen)}")

    served(ctx, "spin_llm.wasm", lambda n: f"/infer?model=tiny&max-tokens={n}&temperature=0&repeat-penalty=1",
           "spin (fermyon:spin/llm)", utf8, usage)


def case_nn_ext(ctx):
    served(ctx, "p3_http.wasm", lambda n: f"/generate/tiny?n={n}", "nn-ext (nn-async generate)", utf8)


CASES = {"witx-stream": case_witx_stream, "wit": case_wit, "spin": case_spin, "nn-ext": case_nn_ext}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--case", required=True, choices=sorted(CASES) + ["all"])
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True, help="the build's guests directory")
    p.add_argument("--reference", required=True, help="wasinn_llama_reference (native llama.cpp)")
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
