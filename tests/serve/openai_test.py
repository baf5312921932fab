#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The OpenAI-compatible component (guest/components/http_openai.cpp) under `wasinn serve`, driven
by PyPI's `openai` client (scripts/deps/openai.pip), every answer checked against native
llama.cpp's greedy one (wasinn_llama_reference, at temperature 0) on the tiny GGUF.

    openai_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                   --reference BUILD/bin/wasinn_llama_reference

Cases (ctest runs each as serve.openai.CASE):
  chat         chat.completions: the content equals the reference of the chat template's prompt;
               usage counts the prompt's and the answer's tokens; finish_reason length
  stream       the same request streamed: the deltas join to the same text, one event per token,
               a finish_reason and, with include_usage, the usage chunk
  stop         stop texts taken from the reference: the answer ends before the first one, whole
               and streamed
  completions  completions.create on a raw prompt equals the reference of that prompt
  embeddings   embeddings.create (the client asks for base64) equals native llama.cpp's
               embedding; encoding_format float too
  models       models.list gives the names in MODELS; errors: an unknown model is NotFoundError,
               bad fields BadRequestError, a wrong path 404
  disconnect   a client that leaves mid-stream: the server's live contexts return to 0, the 200's
               access-log line says cut:client-left, and the next request is answered
  auth         --api-key: no key and a wrong key are openai.AuthenticationError, the right key answers the
               reference
  tls          --tls-cert with a CA made by openssl: the same answer over HTTPS; plain HTTP to the port
               is APIConnectionError
  concurrent   rounds of 100 streams at once: every answer right, and VmRSS five rounds after two
               warm-up rounds (each worker thread's first allocations) within 15% of after them

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import argparse
import http.client
import json
import os
import re
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import SKIP, Failure, Skipped, check, run_cases  # noqa: E402
from serve_test import Server, log, metrics_url, wait_line  # noqa: E402

MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Name a colour."}]
PROMPT = "Once upon a time"
# One thread, as the reference runs: llama.cpp's sums then agree bit for bit.
NN_OPTIONS = '{"threads": 1}'


class Ctx:
    def __init__(self, args):
        self.args = args
        self.model = os.path.join(args.fixtures, "llama", "tiny.gguf")
        if not os.path.exists(self.model):
            raise Skipped(f"no {self.model} (scripts/make_fixtures.py makes it)")
        self.component = os.path.join(args.guests, "http_openai.component.wasm")
        if not os.path.exists(self.component):
            raise Skipped(f"no {self.component} (built with the HTTP component guests)")
        try:
            import openai  # noqa: F401
        except ImportError:
            raise Skipped("PyPI's openai is not installed in this Python (scripts/deps/openai.pip)")

    def server(self, extra=(), models="default,second", nn_options=NN_OPTIONS):
        preload = ["--nn-preload", f"default:GGML:AUTO:{self.model}", "--nn-preload", f"second:GGML:AUTO:{self.model}"]
        args = preload + ["--env", f"MODELS={models}", "--env", f"NN_OPTIONS={nn_options}"] + list(extra)
        if self.args.backend_dir:
            args += ["--backend-dir", self.args.backend_dir]
        return Server([self.args.wasinn, "serve"], args, self.component, name="wasinn serve")

    def reference(self, *args):
        out = run_reference(self.args.reference, self.model, *args)
        if "text_hex" in out:
            out["text"] = bytes.fromhex(out["text_hex"]).decode("utf-8", "replace")
        return out


def run_reference(binary, model, *args):
    import subprocess
    p = subprocess.run([binary, model, *map(str, args)], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"llama_reference {' '.join(map(str, args))} failed: {p.stderr}")
    return json.loads(p.stdout)


def client(server, api_key="unused", **kw):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key=api_key, max_retries=0, timeout=120, **kw)


def chat_reference(ctx, n):
    return ctx.reference("--messages", json.dumps(MESSAGES), "--n", n)


def case_chat(ctx):
    ref = chat_reference(ctx, 16)
    with ctx.server() as server:
        r = client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=16, temperature=0)
        got = r.choices[0].message.content
        check(got == ref["text"], f"chat: {got!r} != native {ref['text']!r}")
        check(r.choices[0].message.role == "assistant", f"role {r.choices[0].message.role!r}")
        check(r.usage.prompt_tokens == ref["n_prompt"], f"prompt_tokens {r.usage.prompt_tokens} != {ref['n_prompt']}")
        check(r.usage.completion_tokens == ref["n_tokens"], f"completion_tokens {r.usage.completion_tokens}")
        want_finish = "length" if ref["n_tokens"] == 16 else "stop"
        check(r.choices[0].finish_reason == want_finish, f"finish_reason {r.choices[0].finish_reason!r}")
        check(r.model == "default" and r.object == "chat.completion", f"envelope {r!r}")
        # The second model is another name for another graph: the same answer.
        r2 = client(server).chat.completions.create(model="second", messages=MESSAGES, max_tokens=16, temperature=0)
        check(r2.choices[0].message.content == ref["text"], "model 'second' answered differently")
    log(f"chat: {got!r} equals native llama.cpp's greedy answer ({ref['n_tokens']} tokens)")


def case_stream(ctx):
    ref = chat_reference(ctx, 16)
    with ctx.server() as server:
        pieces, finishes, usage, events = [], [], None, 0
        stream = client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=16,
                                                        temperature=0, stream=True,
                                                        stream_options={"include_usage": True})
        for chunk in stream:
            events += 1
            if chunk.usage:
                usage = chunk.usage
            for c in chunk.choices:
                if c.delta and c.delta.content:
                    pieces.append(c.delta.content)
                if c.finish_reason:
                    finishes.append(c.finish_reason)
        got = "".join(pieces)
        check(got == ref["text"], f"stream: {got!r} != native {ref['text']!r}")
        check(len(pieces) >= ref["n_tokens"] // 2, f"{len(pieces)} pieces for {ref['n_tokens']} tokens: not streamed")
        check(finishes == ["length" if ref["n_tokens"] == 16 else "stop"], f"finish_reasons {finishes}")
        check(usage is not None and usage.completion_tokens == ref["n_tokens"], f"usage chunk {usage!r}")
        # completions stream too
        cref = ctx.reference("--prompt", PROMPT, "--n", 12)
        text = "".join(c.choices[0].text for c in client(server).completions.create(
            model="default", prompt=PROMPT, max_tokens=12, temperature=0, stream=True) if c.choices)
        check(text == cref["text"], f"completions stream: {text!r} != {cref['text']!r}")
    log(f"stream: {len(pieces)} pieces in {events} events join to the native answer")


def case_stop(ctx):
    ref = chat_reference(ctx, 24)
    text = ref["text"]
    check(len(text) > 12, f"the reference is too short to take stop texts from: {text!r}")
    # A stop text from the middle of the answer, and one that never comes.
    stop = text[len(text) // 2:len(text) // 2 + 3]
    want = text[:text.find(stop)]
    with ctx.server() as server:
        c = client(server)
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=24, temperature=0,
                                      stop=["\x01never", stop])
        check(r.choices[0].message.content == want, f"stop {stop!r}: {r.choices[0].message.content!r} != {want!r}")
        check(r.choices[0].finish_reason == "stop", f"finish_reason {r.choices[0].finish_reason!r}")
        pieces = [ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
            model="default", messages=MESSAGES, max_tokens=24, temperature=0, stop=stop, stream=True) if ch.choices]
        check("".join(pieces) == want, f"streamed stop {stop!r}: {''.join(pieces)!r} != {want!r}")
    log(f"stop: {stop!r} ends the answer before it, whole and streamed")


def case_completions(ctx):
    ref = ctx.reference("--prompt", PROMPT, "--n", 16)
    with ctx.server() as server:
        r = client(server).completions.create(model="default", prompt=PROMPT, max_tokens=16, temperature=0)
        check(r.choices[0].text == ref["text"], f"completions: {r.choices[0].text!r} != native {ref['text']!r}")
        check(r.usage.prompt_tokens == ref["n_prompt"], f"prompt_tokens {r.usage.prompt_tokens} != {ref['n_prompt']}")
    log(f"completions: {ref['text']!r} equals native llama.cpp's")


def case_embeddings(ctx):
    texts = ["hello world", "a second text"]
    refs = [ctx.reference("--embedding", t) for t in texts]
    with ctx.server() as server:
        c = client(server)
        for fmt in (None, "float"):  # the client asks for base64 unless told
            kw = {"encoding_format": fmt} if fmt else {}
            r = c.embeddings.create(model="default", input=texts, **kw)
            check(len(r.data) == 2, f"{len(r.data)} embeddings for 2 inputs")
            for d, ref, t in zip(r.data, refs, texts):
                worst = max(abs(a - b) for a, b in zip(d.embedding, ref["embedding"]))
                check(len(d.embedding) == len(ref["embedding"]) and worst < 1e-5,
                      f"embedding of {t!r} ({fmt or 'base64'}): {len(d.embedding)} values, off by {worst}")
            check(r.usage.prompt_tokens == sum(x["n_prompt"] for x in refs), f"usage {r.usage!r}")
    log("embeddings: equal native llama.cpp's (base64 and float)")


def case_models(ctx):
    import openai
    with ctx.server(models="default,second") as server:
        c = client(server)
        ids = [m.id for m in c.models.list()]
        check(ids == ["default", "second"], f"models {ids}")
        try:
            c.chat.completions.create(model="nope", messages=MESSAGES, max_tokens=2)
            raise Failure("an unknown model was answered")
        except openai.NotFoundError as e:
            check("nope" in str(e), f"the error does not name the model: {e}")
        for bad in ({"messages": []}, {"messages": MESSAGES, "temperature": 9}, {"messages": MESSAGES, "n": 2},
                    {"messages": [{"role": "user"}]}):
            try:
                c.chat.completions.create(model="default", **{"max_tokens": 2, **bad})
                raise Failure(f"{bad} was answered")
            except openai.BadRequestError:
                pass
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        conn.request("POST", "/v1/chat/completions", body=b"{not json")
        r = conn.getresponse()
        check(r.status == 400 and b"JSON" in r.read(), "a body that is not JSON")
        conn.request("GET", "/v1/nothing")
        r = conn.getresponse()
        check(r.status == 404, f"GET /v1/nothing: {r.status}")
        r.read()
        # The server still answers properly after them all.
        ok = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=2, temperature=0)
        check(ok.choices[0].message.content is not None, "no answer after the errors")
    log("models: listed; unknown model 404, bad fields 400, bad JSON 400, wrong path 404")


def live_contexts(url):
    body = urllib.request.urlopen(url, timeout=10).read().decode()
    return sum(float(m.group(1)) for m in re.finditer(r"^wasinn_nn_live_contexts(?:\{[^}]*\})? (\S+)$", body, re.M))


def case_disconnect(ctx):
    # A long answer (8,000 tokens: many seconds of the tiny model), so the context outlives the
    # client unless leaving ends it.
    with ctx.server(extra=["--metrics-addr", "127.0.0.1:0"], nn_options='{"threads": 1, "ctx-size": 8192}') as server:
        url = metrics_url(server)
        body = json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": 8000, "temperature": 0,
                           "stream": True}).encode()
        conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
        r = conn.getresponse()
        check(r.status == 200, f"stream status {r.status}")
        first = r.readline()
        check(first.startswith(b"data: "), f"first line {first!r}")
        check(live_contexts(url) >= 1, "no live context while streaming")
        left_at = time.monotonic()
        conn.sock.shutdown(2)
        conn.close()
        deadline = left_at + 5
        while live_contexts(url) > 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        left = live_contexts(url)
        check(left == 0, f"{left} contexts still alive 5 s after the client left\n{server.tail()}")
        freed_in = time.monotonic() - left_at
        # The stream went out as 200: its access-log line says it was cut, not just 200.
        line = wait_line(server, r"POST /v1/chat/completions 200 .*cut:client-left")
        check(line, f"no access-log line saying the 200 stream was cut:client-left\n{server.tail()}")
        ok = client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=4, temperature=0)
        check(ok.choices[0].message.content == chat_reference(ctx, 4)["text"], "the next answer is wrong")
    log(f"disconnect: the context was freed {freed_in:.2f} s after the client left; the next request answered")


def case_auth(ctx):
    """--api-key: the client's own AuthenticationError without a key and with a wrong one; the
    right key answers as before (the greedy reference)."""
    import openai
    ref = chat_reference(ctx, 8)
    with ctx.server(extra=["--api-key", "sk-wasinn-test"]) as server:
        # No key at all: the client insists on one, so a hook takes its Authorization header off.
        no_key = openai.DefaultHttpxClient(event_hooks={"request": [lambda r: r.headers.pop("Authorization", None)]})
        for key, http_client in (("sk-any", no_key), ("sk-wrong", None)):
            try:
                extra = {"http_client": http_client} if http_client else {}
                client(server, api_key=key, **extra).chat.completions.create(model="default", messages=MESSAGES,
                                                                             max_tokens=8, temperature=0)
                raise Failure(f"answered with the key {key!r}")
            except openai.AuthenticationError as e:
                want = "missing_api_key" if http_client else "invalid_api_key"
                check(e.status_code == 401 and e.code == want, f"key {key!r}: status {e.status_code}, code {e.code}")
        try:
            client(server, api_key="sk-wrong").models.list()
            raise Failure("models listed with a wrong key")
        except openai.AuthenticationError:
            pass
        r = client(server, api_key="sk-wasinn-test").chat.completions.create(model="default", messages=MESSAGES,
                                                                             max_tokens=8, temperature=0)
        check(r.choices[0].message.content == ref["text"], f"with the key: {r.choices[0].message.content!r} != "
              f"{ref['text']!r}")
    log("auth: no key and a wrong key are the client's AuthenticationError (401); the right key answers the "
        "greedy reference")


def case_tls(ctx):
    """--tls-cert with a CA made by openssl at test time: the client, trusting that CA, gets the
    same answer over HTTPS; plain HTTP to the port is the client's APIConnectionError."""
    import openai
    import ssl
    import tempfile
    from tls_files import make_tls_files
    ref = chat_reference(ctx, 8)
    f = make_tls_files(tempfile.mkdtemp(prefix="wasinn-openai-tls-"))
    with ctx.server(extra=["--api-key", "sk-tls", "--tls-cert", f["server.pem"], "--tls-key", f["server.key"]]) as server:
        base = f"https://127.0.0.1:{server.port}/v1"
        c = openai.OpenAI(base_url=base, api_key="sk-tls", max_retries=0, timeout=120,
                          http_client=openai.DefaultHttpxClient(verify=ssl.create_default_context(cafile=f["ca.pem"])))
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0)
        check(r.choices[0].message.content == ref["text"], f"over HTTPS: {r.choices[0].message.content!r}")
        plain = openai.OpenAI(base_url=f"http://127.0.0.1:{server.port}/v1", api_key="sk-tls", max_retries=0,
                              timeout=30)
        try:
            plain.models.list()
            raise Failure("plain HTTP to the TLS port was answered")
        except openai.APIConnectionError:
            pass
    log("tls: over HTTPS (a CA made at test time) the client gets the greedy reference; plain HTTP to the port is "
        "APIConnectionError")


def case_concurrent(ctx):
    n = 100
    ref = chat_reference(ctx, 6)

    def round_of_streams(server):
        errors, threads = [], []

        def one():
            try:
                text = "".join(ch.choices[0].delta.content or "" for ch in client(server).chat.completions.create(
                    model="default", messages=MESSAGES, max_tokens=6, temperature=0, stream=True) if ch.choices)
                if text != ref["text"]:
                    errors.append(f"{text!r} != {ref['text']!r}")
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))
        for _ in range(n):
            t = threading.Thread(target=one)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        check(not errors, f"{len(errors)} of {n} streams failed: {errors[:3]}")

    with ctx.server(extra=["--workers", str(n), "--max-queue", str(n)]) as server:
        # Two rounds to warm up (each worker thread's first allocations), then the one measured.
        for i in range(int(os.environ.get("OPENAI_ROUNDS", "2"))):
            round_of_streams(server)
            log(f"round {i + 1}: VmRSS {server.rss_kb()} kB")
        first = server.rss_kb()
        for i in range(5):
            round_of_streams(server)
            log(f"measured round {i + 1}: VmRSS {server.rss_kb()} kB")
        second = server.rss_kb()
        # Bounded, not leaking: 20 rounds on 2 cores crept up about 25% over the first dozen and then
        # stayed flat (docs/serving.md); a leak of a context per stream would add a GB here.
        check(second < first * 1.15, f"VmRSS grew from {first} kB to {second} kB over five more rounds of {n} streams")
    log(f"concurrent: rounds of {n} streams, all right; VmRSS {first} kB after the warm-up, {second} kB five rounds "
        "later")


CASES = {"chat": case_chat, "stream": case_stream, "stop": case_stop, "completions": case_completions,
         "embeddings": case_embeddings, "models": case_models, "disconnect": case_disconnect,
         "concurrent": case_concurrent, "auth": case_auth, "tls": case_tls}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--backend-dir")
    args = p.parse_args()
    try:
        ctx = Ctx(args)
    except Skipped as e:
        print(f"SKIP {args.case}: {e}")
        return SKIP
    return run_cases(CASES, [args.case], ctx)

if __name__ == "__main__":
    sys.exit(main())
