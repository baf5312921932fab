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
  finish       finish_reason length at max_tokens and at the context's end (usage totals the context),
               stop at a stop text; whole and streamed
  errors       OpenAI's error JSON and the client's typed errors for context_length_exceeded, max_tokens
               over the limit, 404, and the host's 413, 503 (Retry-After, which the client's retry waits)
               and 504
  unsupported  audio, prediction, logit_bias, modalities other than text, n 2, echo, best_of, ... are 400
               naming the field; unknown fields (typos, llama-server samplers the plugin lacks) OpenAI's
               'Unrecognized request argument supplied: NAME'; user, metadata, store false, ... leave the greedy
               answer as it was
  extras       llama-server's extras: top_k 1 at temperature 1 is the greedy answer, n_probs native logprobs,
               repeat_penalty changes the answer as llama-server's does
  tools        tools with tool_choice required on the Qwen 2.5 chat fixture: a tool call (whole and streamed
               deltas), a tool result fed back answered; bad tools, tool_choice and tool messages 400
  deadline     a stream past --request-timeout ends in time: finish_reason length, then an error event; the
               access log and the outcome metric say cut:timeout
  preloaded    without MODELS, /v1/models lists the preloads; no model: the only one, or 400 with two
  bad-options  a bad NN_OPTIONS key or value stops serve at start with exit 2, naming the nearest key
  logprobs     logprobs/top_logprobs (chat, whole and streamed) and logprobs (completions) equal native
               llama.cpp's log-softmax within 1e-4
  page         the chat page (GET /) in headless Chromium driven by selenium: no console error, the
               models listed, a typed message shows the greedy reference; Stop stops
  structured   response_format json_schema: the answer validates (jsonschema); json_object: a finished
               ("stop") answer parses to an object, a cut ("length") one is an object's start (jiter's
               partial mode); whole and streamed alike
  concurrent   rounds of 100 streams at once: every answer right, and VmRSS five rounds after two
               warm-up rounds (each worker thread's first allocations) within 50% of after them
  no-v1        the routes without /v1 (as llama-server and Ollama take them): the client on base_url
               without /v1 gets the reference's chat and completion, the same embeddings and models as
               under /v1; curl: an unknown path's 404 names it and lists every route, both forms; 405s
               name the path asked for
  trace        --log-level trace: each request's lines under its X-Request-Id, in order (the server's
               steps, each wasi-nn call, the plugin calls under it), never another's, never the key; the
               default level: the access line only

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

    def server(self, extra=(), models="default,second", nn_options=NN_OPTIONS, model=None):
        model = model or self.model
        preload = ["--nn-preload", f"default:GGML:AUTO:{model}", "--nn-preload", f"second:GGML:AUTO:{model}"]
        args = preload + (["--env", f"MODELS={models}"] if models else []) + ["--env", f"NN_OPTIONS={nn_options}"]
        args += list(extra)
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
    return openai.OpenAI(base_url=server.url("/v1"), api_key=api_key, **{"max_retries": 0, "timeout": 120, **kw})


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


def sample(text, name, **labels):
    """The value of the one series NAME whose labels include LABELS (0 when there is none)."""
    total, found = 0.0, False
    for m in re.finditer(rf"^{re.escape(name)}\{{([^}}]*)\}} (\S+)$", text, re.M):
        have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(2))
            found = True
    return total if found else 0.0


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
        # stayed flat (docs/serving.md), 16-18% in these five here; a leak of a context per stream
        # would add a GB here (about 6x).
        check(second < first * 1.5, f"VmRSS grew from {first} kB to {second} kB over five more rounds of {n} streams")
    log(f"concurrent: rounds of {n} streams, all right; VmRSS {first} kB after the warm-up, {second} kB five rounds "
        "later")


def raw_request(server, method, path, body=None, headers=None):
    """(status, headers, parsed JSON or None) of one request by http.client."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = None
    return r.status, r.headers, parsed


def check_error_shape(body, what):
    err = body.get("error") if isinstance(body, dict) else None
    check(isinstance(err, dict) and set(err) >= {"message", "type", "param", "code"} and err["message"],
          f"{what}: not OpenAI's error shape: {body!r}")
    return err


def case_finish(ctx):
    """Each finish reason as OpenAI defines it: "length" when max_tokens ends the answer, "length"
    when the context does (and usage totals the context's size, never more), "stop" for a stop
    text; whole and streamed."""
    ref = chat_reference(ctx, 8)
    with ctx.server(nn_options='{"threads": 1, "ctx-size": 64}') as server:
        c = client(server)
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0)
        check(r.choices[0].finish_reason == "length" and r.usage.completion_tokens == 8,
              f"max_tokens 8: finish {r.choices[0].finish_reason!r}, usage {r.usage!r}")
        check(r.choices[0].message.content == ref["text"], "max_tokens 8: not the reference")
        # No max_tokens, and max_tokens the whole context: the context ends the answer.
        for kw in ({}, {"max_tokens": 64}):
            r = c.chat.completions.create(model="default", messages=MESSAGES, temperature=0, **kw)
            check(r.choices[0].finish_reason == "length", f"{kw}: at the context's end, finish "
                  f"{r.choices[0].finish_reason!r} (usage {r.usage!r})")
            check(r.usage.total_tokens == 64, f"{kw}: usage {r.usage!r} is not the context's 64 tokens")
            full = ctx.reference("--messages", json.dumps(MESSAGES), "--n", 64 - r.usage.prompt_tokens, "--ctx", 64)
            check(r.choices[0].message.content == full["text"], f"{kw}: the answer to the context's end differs "
                  f"from native llama.cpp's: {r.choices[0].message.content!r} != {full['text']!r}")
        finishes, usage = [], None
        for ch in c.chat.completions.create(model="default", messages=MESSAGES, temperature=0, stream=True,
                                            stream_options={"include_usage": True}):
            usage = ch.usage or usage
            finishes += [x.finish_reason for x in ch.choices if x.finish_reason]
        check(finishes == ["length"] and usage.total_tokens == 64, f"streamed to the context's end: {finishes}, "
              f"{usage!r}")
        stop = ref["text"][2:5]
        r = c.completions.create(model="default", prompt=PROMPT, max_tokens=8, temperature=0)
        check(r.choices[0].finish_reason == "length", f"completions max_tokens: {r.choices[0].finish_reason!r}")
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0, stop=stop)
        check(r.choices[0].finish_reason == "stop", f"stop text {stop!r}: {r.choices[0].finish_reason!r}")
    log("finish: length at max_tokens and at the context's end (usage 64 of a 64-token context), stop at a stop "
        "text; whole and streamed")


def case_errors(ctx):
    """Every error under /v1/ is OpenAI's JSON shape with its status and code, the guest's and the
    host's own: 400 context_length_exceeded, 400 max_tokens over the limit, 404, 413, 503 with
    Retry-After, 504; the client raises its typed errors."""
    import openai
    long_prompt = "word " * 200
    with ctx.server(extra=["--max-request-bytes", "4096"], nn_options='{"threads": 1, "ctx-size": 128}') as server:
        c = client(server)
        for create in (lambda: c.chat.completions.create(model="default", max_tokens=4,
                                                         messages=[{"role": "user", "content": long_prompt}]),
                       lambda: c.completions.create(model="default", prompt=long_prompt, max_tokens=4),
                       lambda: c.completions.create(model="default", prompt=long_prompt, max_tokens=4, stream=True)):
            try:
                create()
                raise Failure("a prompt longer than the context was answered")
            except openai.BadRequestError as e:
                check(e.code == "context_length_exceeded", f"code {e.code!r}: {e}")
                check("ctx-size" in e.message and "128" in e.message, f"the message lost its advice: {e.message}")
        try:
            c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=10000000)
            raise Failure("max_tokens 10000000 was answered")
        except openai.BadRequestError as e:
            check("128" in e.message and e.param == "max_tokens", f"the limit is not named: {e.message} ({e.param})")
        status, _, body = raw_request(server, "GET", "/v1/nothing")
        check(status == 404 and check_error_shape(body, "404")["code"] == "unknown_url", f"404: {status} {body}")
        try:
            c.completions.create(model="default", prompt="x" * 5000, max_tokens=2)
            raise Failure("a body over --max-request-bytes was answered")
        except openai.APIStatusError as e:
            check(e.status_code == 413 and e.code == "request_too_large", f"413: {e.status_code} {e.code} {e}")
        # The host's answers outside /v1/ stay as they were.
        status, headers, body = raw_request(server, "POST", "/other", b"y" * 5000)
        check(status == 413 and body is None and headers["content-type"].startswith("text/plain"),
              f"413 outside /v1/: {status} {headers['content-type']}")
    with ctx.server(extra=["--workers", "1", "--max-queue", "0"],
                    nn_options='{"threads": 1, "ctx-size": 8192}') as server:
        # One long stream holds the only worker; the next request finds no room. Greedy, as every
        # long request here: sampled, the tiny model may draw its end token within a few tokens.
        conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", headers={"content-type": "application/json"},
                     body=json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": 8000, "temperature": 0,
                                      "stream": True}))
        held = conn.getresponse()
        check(held.status == 200 and held.readline().startswith(b"data: "), "the long stream did not start")
        try:
            client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=2)
            raise Failure("answered while the only worker is busy and the queue is 0")
        except openai.InternalServerError as e:  # the client's typed error for a 5xx: APIStatusError's
            check(e.status_code == 503 and e.code == "server_overloaded", f"queue full: {e.status_code} {e.code}")
            check(e.response.headers.get("retry-after") == "1", f"503's Retry-After: {dict(e.response.headers)}")
        # With its retries on, the client waits what Retry-After says (1 s; its own backoff would be
        # 0.375-0.5 s), then is answered: the held stream leaves at the first 503.
        sent, got = [], []

        def on_response(r):
            got.append((r.status_code, time.monotonic()))
            if r.status_code == 503:
                conn.close()
        hooks = {"request": [lambda r: sent.append(time.monotonic())], "response": [on_response]}
        r = client(server, max_retries=1, http_client=openai.DefaultHttpxClient(event_hooks=hooks)).chat.completions \
            .create(model="default", messages=MESSAGES, max_tokens=2, temperature=0)
        check([status for status, _ in got] == [503, 200] and len(sent) == 2 and r.choices[0].message.content,
              f"the retried request: {got}")
        waited = sent[1] - got[0][1]
        check(1.0 <= waited < 2.0, f"the client retried {waited:.2f} s after the 503, not after its Retry-After (1 s)")
    with ctx.server(extra=["--request-timeout", "700ms"], nn_options='{"threads": 1, "ctx-size": 8192}') as server:
        try:
            # Greedy: sampled, the tiny model may draw its end token within a few dozen tokens and
            # answer in time (seen in check-fresh's run); greedy runs all 8000 (38 s here).
            client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=8000,
                                                   temperature=0)
            raise Failure("8000 tokens answered within a 700 ms --request-timeout")
        except openai.APIStatusError as e:
            check(e.status_code == 504 and e.code == "timeout", f"timeout: {e.status_code} {e.code} {e}")
    log("errors: context_length_exceeded (whole and streamed), max_tokens over the limit, 404, 413, 503 with "
        f"Retry-After (the client's retry came {waited:.2f} s after it) and 504 are the client's typed errors with "
        "OpenAI's codes; outside /v1/ the host's text stays")


# OpenAI's fields that do not apply here: 400 naming them (code, param), never dropped.
UNSUPPORTED = {"logit_bias": ({"50256": -100}, "unsupported_parameter"), "n": (2, "unsupported_value"),
               "audio": ({"voice": "alloy", "format": "wav"}, "unsupported_parameter"),
               "prediction": ({"type": "content", "content": "x"}, "unsupported_parameter"),
               "reasoning_effort": ("low", "unsupported_parameter"),
               "modalities": (["text", "audio"], "unsupported_value"), "store": (True, "unsupported_value")}
# Fields no route knows (a typo, llama-server's samplers the plugin has no property for): OpenAI's
# own answer to an unknown field, naming it.
UNKNOWN = {"foo": 1, "temprature": 0.5, "top_n_sigma": 1.5, "dry_sequence_breakers": ["\n"], "samplers": ["top_k"]}
# Known fields that change nothing about one answer: taken, and the answer is the greedy one.
NO_EFFECT = {"user": "u-1", "metadata": {"k": "v"}, "store": False, "service_tier": "auto", "modalities": ["text"],
             "prompt_cache_key": "k", "safety_identifier": "s", "n": 1, "response_format": {"type": "text"},
             "logprobs": False}


def case_unsupported(ctx):
    """A field the endpoint does not implement is a 400 naming it, never silently dropped; an
    unknown one is OpenAI's 'Unrecognized request argument supplied: NAME'; the fields that change
    nothing about an answer are taken, and the answer is native llama.cpp's greedy one."""
    import openai
    ref = chat_reference(ctx, 8)
    cref = ctx.reference("--prompt", PROMPT, "--n", 8)
    with ctx.server() as server:
        c = client(server)
        for field, (value, code) in UNSUPPORTED.items():
            try:
                c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=2, **{field: value})
                raise Failure(f"{field}={value!r} was answered")
            except openai.BadRequestError as e:
                check(e.param == field and field in e.message and e.code == code,
                      f"{field}: param {e.param!r}, code {e.code!r}, message {e.message!r}")
        for field, value in UNKNOWN.items():
            for create in (lambda: c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=2,
                                                             extra_body={field: value}),
                           lambda: c.completions.create(model="default", prompt=PROMPT, max_tokens=2,
                                                        extra_body={field: value})):
                try:
                    create()
                    raise Failure(f"the unknown field {field}={value!r} was answered")
                except openai.BadRequestError as e:
                    said = e.body.get("message") if isinstance(e.body, dict) else None
                    check(e.param == field and said == f"Unrecognized request argument supplied: {field}",
                          f"{field}: param {e.param!r}, message {said!r}")
        for field, value in (("echo", True), ("best_of", 2), ("logit_bias", {"1": 1}), ("suffix", "x")):
            try:
                c.completions.create(model="default", prompt=PROMPT, max_tokens=2, **{field: value})
                raise Failure(f"completions {field}={value!r} was answered")
            except openai.BadRequestError as e:
                check(e.param == field, f"completions {field}: param {e.param!r}")
        # Chat's fields are not the completions' (OpenAI's legacy API has none of them).
        for field, value in (("metadata", {"k": "v"}), ("top_logprobs", 2), ("tools", [])):
            try:
                c.completions.create(model="default", prompt=PROMPT, max_tokens=2, extra_body={field: value})
                raise Failure(f"completions {field}={value!r} was answered")
            except openai.BadRequestError as e:
                check(e.param == field and "Unrecognized" in e.message, f"completions {field}: {e.message!r}")
        # What asks for nothing is taken, and changes nothing: the greedy answer, whole and streamed.
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0,
                                      extra_body={"cache_prompt": True}, **NO_EFFECT)
        check(r.choices[0].message.content == ref["text"], f"with {sorted(NO_EFFECT)}: "
              f"{r.choices[0].message.content!r} != native {ref['text']!r}")
        text = "".join(ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
            model="default", messages=MESSAGES, max_tokens=8, temperature=0, stream=True,
            stream_options={"include_usage": False, "include_obfuscation": False}, **NO_EFFECT) if ch.choices)
        check(text == ref["text"], f"streamed with {sorted(NO_EFFECT)}: {text!r} != native {ref['text']!r}")
        r = c.completions.create(model="default", prompt=PROMPT, max_tokens=8, temperature=0, user="u-1", n=1,
                                 best_of=1, echo=False)
        check(r.choices[0].text == cref["text"], f"completions with user, n, best_of, echo: {r.choices[0].text!r}")
    log(f"unsupported: {', '.join(UNSUPPORTED)} (chat) and echo, best_of, logit_bias, suffix (completions) are 400 "
        f"naming the field; {', '.join(UNKNOWN)} are 'Unrecognized request argument supplied'; "
        f"{', '.join(NO_EFFECT)} leave the greedy answer as it was")


def llama_server_path(ctx):
    """llama-server of the llama.cpp build the plugin uses (scripts/deps/llamacpp.sh), or None."""
    path = ctx.args.llama_server or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".deps",
                                                 "llamacpp-dl", "bin", "llama-server")
    return path if os.path.exists(path) else None


class LlamaServer:
    """llama-server on the fixture (one slot, one thread, --jinja), for the openai client."""

    def __init__(self, path, model, ctx_size):
        import socket
        import subprocess
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([path, "-m", model, "--host", "127.0.0.1", "--port", str(self.port), "-t", "1",
                                      "-c", str(ctx_size), "-np", "1", "--jinja"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def __enter__(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5).status == 200:
                    return self
            except OSError:
                time.sleep(0.2)
        raise Failure("llama-server did not become healthy within 60 s")

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def client(self):
        import openai
        return openai.OpenAI(base_url=f"http://127.0.0.1:{self.port}/v1", api_key="unused", max_retries=0,
                             timeout=120)


# A frequency_penalty whose window holds the prompt (llama-server refuses repeat_last_n -1). This
# random model's answers share no token with the prompt: below zero, the penalty favours the
# tokens it counts, the prompt's if counted.
PROMPT_WINDOW = (-2.0, {"repeat_last_n": 256})

# llama-server's other samplers, each as one request's extras at temperature 1 and one seed.
SAMPLER_EXTRAS = [{"typical_p": 0.3}, {"xtc_probability": 0.9, "xtc_threshold": 0.02},
                  {"dynatemp_range": 0.9, "dynatemp_exponent": 2.0},
                  {"mirostat": 2, "mirostat_tau": 3.0, "mirostat_eta": 0.2}, {"top_p": 0.05, "min_keep": 6},
                  {"ignore_eos": True}]


def case_extras(ctx):
    """llama-server's sampling extras reach the plugin's properties: top_k 1 at temperature 1 is
    native llama.cpp's greedy answer (whatever the seed), min_p and n_probs are taken (n_probs as
    logprobs, native llama.cpp's log-softmax); repeat_penalty over repeat_last_n 32 changes the
    greedy answer exactly as llama-server's does on the same file and request, and so does a
    frequency_penalty whose window holds the prompt, whose tokens it counts as llama-server's does
    (the plugin's default, counting the answer's only, answers otherwise), and so do typical_p,
    XTC, dynamic temperature, mirostat, min_keep and ignore_eos a seeded sampled one."""
    ref = ctx.reference("--messages", json.dumps(MESSAGES), "--n", 60, "--logprobs", 2)
    with ctx.server(nn_options='{"threads": 1, "ctx-size": 512}') as server:
        c = client(server)

        def ask(cl, **kw):
            return cl.chat.completions.create(model="default", messages=MESSAGES, max_tokens=60, **kw)

        def ask_window(cl):
            return ask(cl, temperature=0, frequency_penalty=PROMPT_WINDOW[0],
                       extra_body=PROMPT_WINDOW[1]).choices[0].message.content
        for seed in (1, 2):
            got = ask(c, temperature=1, seed=seed, extra_body={"top_k": 1, "min_p": 0.05}).choices[0].message.content
            check(got == ref["text"], f"top_k 1, seed {seed}: {got!r} != native greedy {ref['text']!r}")
        r = ask(c, temperature=0, extra_body={"n_probs": 2})
        lps = r.choices[0].logprobs.content
        check(len(lps) == len(ref["logprobs"]) and all(abs(a.logprob - b) < 1e-4 for a, b in zip(lps, ref["logprobs"]))
              and [len(a.top_logprobs) for a in lps] == [2] * len(lps), f"n_probs 2: {lps[:2]!r}")
        penalised = {"repeat_penalty": 1.3, "repeat_last_n": 32}
        got = ask(c, temperature=0, extra_body=penalised).choices[0].message.content
        check(got != ref["text"], "repeat_penalty 1.3 left the greedy answer as it was")
        # A window over the prompt and the answer: llama-server counts the prompt's tokens too.
        got_window = ask_window(c)
        sampled = ask(c, temperature=1, seed=3).choices[0].message.content
        samplers = [ask(c, temperature=1, seed=3, extra_body=e).choices[0].message.content for e in SAMPLER_EXTRAS]
        path = llama_server_path(ctx)
        if not path:
            raise Skipped("top_k, min_p and n_probs checked; repeat_penalty needs llama-server "
                          "(scripts/deps/llamacpp.sh builds it)")
    # The plugin's default (WasmEdge's: the answer's tokens only) answers the window otherwise.
    with ctx.server(nn_options='{"threads": 1, "ctx-size": 512, "penalize-prompt": false}') as server:
        answer_only = ask_window(client(server))
    with LlamaServer(path, ctx.model, 512) as ls:
        want = ask(ls.client(), temperature=0, extra_body=penalised).choices[0].message.content
        want_window = ask_window(ls.client())
        greedy = ask(ls.client(), temperature=0).choices[0].message.content
        want_sampled = ask(ls.client(), temperature=1, seed=3).choices[0].message.content
        want_samplers = [ask(ls.client(), temperature=1, seed=3, extra_body=e).choices[0].message.content
                         for e in SAMPLER_EXTRAS]
    check(greedy == ref["text"], f"llama-server's greedy answer {greedy!r} is not native llama.cpp's {ref['text']!r}")
    check(got == want, f"repeat_penalty 1.3, repeat_last_n 32: {got!r} != llama-server's {want!r}")
    check(got_window == want_window, f"{PROMPT_WINDOW}: {got_window!r} != llama-server's {want_window!r}")
    check(answer_only != want_window, f"{PROMPT_WINDOW} without the prompt's tokens counted gave llama-server's "
          f"answer too ({answer_only!r}): the window over the prompt was not attacked")
    check(sampled == want_sampled, f"temperature 1, seed 3: {sampled!r} != llama-server's {want_sampled!r}")
    for extras, mine, theirs in zip(SAMPLER_EXTRAS, samplers, want_samplers):
        check(mine == theirs, f"{extras}: {mine!r} != llama-server's {theirs!r}")
        if "ignore_eos" not in extras:  # an answer that never ends early is the same with it
            check(mine != sampled, f"{extras} left the sampled answer as it was")
    log(f"extras: top_k 1 is the greedy answer at temperature 1; n_probs are native llama.cpp's logprobs; "
        f"repeat_penalty changes the answer as llama-server's does ({got[:40]!r}...); so does {PROMPT_WINDOW} "
        f"over the prompt ({got_window[:40]!r}..., {answer_only[:40]!r}... counting the answer only)")


WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    # An enum: the grammar ends the arguments, which random weights would otherwise not.
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Rome"]}},
                   "required": ["city"]}}}


def case_tools(ctx):
    """tools with tool_choice "required" on the Qwen 2.5 chat fixture (random weights, Qwen 2.5's
    real template; the plugin's grammar makes a call): the answer is a tool call (content null,
    finish_reason tool_calls) whose arguments parse and name a city; streamed, the deltas (id and
    name first, then argument pieces) join to the same call; the call and a tool result fed back
    are answered. Malformed tools, tool_choice and tool messages are 400 naming the field.
    (serve.openai-tools.* compares every chat fixture's answers with llama-server's.)"""
    import openai
    model = os.path.join(ctx.args.fixtures, "chat", "qwen2.5.gguf")
    if not os.path.exists(model):
        raise Skipped(f"no {model} (scripts/fixtures/export_chat_gguf.py makes it)")
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    with ctx.server(nn_options='{"threads": 1, "ctx-size": 4096}', model=model) as server:
        c = client(server)
        r = c.chat.completions.create(model="default", messages=messages, max_tokens=128, temperature=0,
                                      tools=[WEATHER_TOOL], tool_choice="required")
        choice = r.choices[0]
        calls = choice.message.tool_calls or []
        check(choice.finish_reason == "tool_calls" and len(calls) >= 1 and choice.message.content is None,
              f"tool_choice required: {choice!r}")
        call = calls[0]
        args = json.loads(call.function.arguments)
        check(call.type == "function" and call.function.name == "get_weather" and call.id and
              args.get("city") in ("Paris", "Rome"), f"the call: {call!r}")
        streamed = {}
        for ch in c.chat.completions.create(model="default", messages=messages, max_tokens=128, temperature=0,
                                            tools=[WEATHER_TOOL], tool_choice="required", stream=True):
            for x in ch.choices:
                for d in x.delta.tool_calls or []:
                    s = streamed.setdefault(d.index, {"id": None, "name": None, "arguments": ""})
                    if d.id:
                        check(s["id"] is None and d.function.name, f"a second head for call {d.index}: {d!r}")
                        s["id"], s["name"] = d.id, d.function.name
                    s["arguments"] += (d.function.arguments or "") if d.function else ""
        first = streamed.get(0, {})
        check(first.get("name") == "get_weather" and first.get("arguments") == call.function.arguments,
              f"streamed call {first} != whole {call!r}")
        fed = messages + [{"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                          {"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 C"}]
        r = c.chat.completions.create(model="default", messages=fed, max_tokens=8, temperature=0,
                                      tools=[WEATHER_TOOL], tool_choice="none")
        check(r.choices[0].finish_reason in ("stop", "length") and not r.choices[0].message.tool_calls,
              f"the tool result fed back: {r.choices[0]!r}")
        for kw, param in (({"tools": [{"type": "function", "function": {"name": "bad name"}}]}, "tools"),
                          ({"tools": [WEATHER_TOOL], "tool_choice": {"type": "function",
                                                                     "function": {"name": "other"}}}, "tool_choice"),
                          ({"tool_choice": "auto"}, "tool_choice"),
                          ({"messages": messages + [{"role": "tool", "content": "x"}]}, "messages")):
            try:
                c.chat.completions.create(model="default", max_tokens=2, **{"messages": messages, **kw})
                raise Failure(f"{kw} was answered")
            except openai.BadRequestError as e:
                check(e.param == param, f"{kw}: param {e.param!r}: {e.message}")
    log(f"tools: tool_choice required gave {call.function.name}({call.function.arguments}), finish_reason "
        "tool_calls, the same streamed; the tool's result fed back was answered; bad tools refused")


def case_deadline(ctx):
    """A stream longer than --request-timeout ends in time and says so: a final chunk with
    finish_reason "length", then an error event the client's iterator raises; the operator sees it
    as cut (the guest's wasinn-cut trailer): access log and outcome metric cut:timeout."""
    import openai
    extra = ["--request-timeout", "2s", "--metrics-addr", "127.0.0.1:0"]
    with ctx.server(extra=extra, nn_options='{"threads": 1, "ctx-size": 8192}') as server:
        pieces, finishes, started = [], [], time.monotonic()
        try:
            for ch in client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=8000,
                                                             temperature=0, stream=True):
                for x in ch.choices:
                    pieces.append(x.delta.content or "")
                    if x.finish_reason:
                        finishes.append(x.finish_reason)
            raise Failure(f"the cut stream ended without an error ({len(pieces)} pieces, {finishes})")
        except openai.APIError as e:
            took = time.monotonic() - started
            check(finishes == ["length"], f"finish_reasons before the error: {finishes}")
            check(e.body and e.body.get("code") == "timeout", f"error event {e.body!r}")
            # The deadline is the server's (its log line below says the guest ended the answer at it);
            # the client's own reading of the events adds its time on a loaded machine: a hang guard.
            check(len(pieces) > 10 and took < 10, f"{len(pieces)} pieces in {took:.2f} s")
        # The guest ended the stream itself, before the server had to stop it; its 200 went out whole,
        # but the answer was cut, and the log and the metrics say so.
        line = wait_line(server, r"POST /v1/chat/completions 200 ")
        check(line and "cut:timeout" in line and "request's deadline" in line,
              f"the stream the deadline ended is not logged cut:timeout: {line}\n{server.tail()}")
        text = urllib.request.urlopen(metrics_url(server), timeout=10).read().decode()
        counted = sample(text, "wasinn_http_route_requests_total", route="/v1/chat/completions", outcome="cut:timeout")
        check(counted == 1, f"wasinn_http_route_requests_total cut:timeout {counted}\n{text}")
        # The trailer is the server's: a client that takes trailers gets none (the chunked body's plain end).
        import socket
        with socket.create_connection((server.host, server.port), timeout=60) as sock:
            body = json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": 8000, "temperature": 0,
                               "stream": True}).encode()
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTE: trailers\r\nConnection: close\r\n"
                         b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
        check(raw.endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n") and b"wasinn-cut" not in raw,
              f"the cut stream's end as a client reads it: {raw[-120:]!r}")
        # A stream that finishes in time is completed.
        conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", headers={"content-type": "application/json", "te": "trailers"},
                     body=json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": 4, "stream": True}))
        r = conn.getresponse()
        whole = r.read()
        conn.close()
        check(r.status == 200 and whole.endswith(b"data: [DONE]\n\n"), f"a short stream: {r.status} {whole[-60:]!r}")
        deadline = time.monotonic() + 10
        while (done := sample(urllib.request.urlopen(metrics_url(server), timeout=10).read().decode(),
                              "wasinn_http_route_requests_total", route="/v1/chat/completions",
                              outcome="completed")) != 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        check(done == 1, f"the short stream: completed {done}\n{server.tail()}")
    log(f"deadline: {len(pieces)} pieces, then finish_reason length and the error event at {took:.2f} s of a 2 s "
        "--request-timeout; the client raised APIError (code timeout); logged and counted cut:timeout")


def case_preloaded(ctx):
    """Without MODELS, /v1/models lists the GGML models the server preloaded (WASINN_MODELS); a
    request without a model is answered by the only one, and is 400 when there are several."""
    import openai
    ref = chat_reference(ctx, 4)
    with ctx.server(models=None) as server:
        c = client(server)
        ids = [m.id for m in c.models.list()]
        check(ids == ["default", "second"], f"models without MODELS: {ids}")
        status, _, body = raw_request(server, "POST", "/v1/chat/completions",
                                      json.dumps({"messages": MESSAGES, "max_tokens": 4}).encode())
        err = check_error_shape(body, "no model, two preloaded")
        check(status == 400 and err["param"] == "model" and "default, second" in err["message"],
              f"no model with two: {status} {body}")
    preload = ["--nn-preload", f"only:GGML:AUTO:{ctx.model}", "--env", f"NN_OPTIONS={NN_OPTIONS}"]
    if ctx.args.backend_dir:
        preload += ["--backend-dir", ctx.args.backend_dir]
    with Server([ctx.args.wasinn, "serve"], preload, ctx.component, name="wasinn serve") as server:
        check([m.id for m in client(server).models.list()] == ["only"], "one preload: not listed")
        status, _, body = raw_request(server, "POST", "/v1/chat/completions",
                                      json.dumps({"messages": MESSAGES, "max_tokens": 4, "temperature": 0}).encode())
        check(status == 200 and body["model"] == "only" and body["choices"][0]["message"]["content"] == ref["text"],
              f"no model with one preload: {status} {body}")
    log("preloaded: /v1/models lists the preloads without MODELS; no model uses the only one, 400 with two")


def case_bad_options(ctx):
    """A bad NN_OPTIONS key or value stops `serve` at start (exit 2), before it says it listens,
    naming the key and the nearest valid one."""
    import subprocess
    for options, want in (('{"ctx-sise": 1024}', ["'ctx-sise'", "'ctx-size'"]),
                          ('{"threads": 1, "temp": "hot"}', ["'temp'", "hot"]),
                          ('[1]', ["JSON object"])):
        args = [ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", "--nn-preload", f"default:GGML:AUTO:{ctx.model}",
                "--env", f"NN_OPTIONS={options}"]
        if ctx.args.backend_dir:
            args += ["--backend-dir", ctx.args.backend_dir]
        p = subprocess.run(args + [ctx.component], capture_output=True, text=True, timeout=120)
        said = p.stdout + p.stderr
        check(p.returncode == 2, f"NN_OPTIONS={options}: exit {p.returncode}\n{said}")
        check(all(w in said for w in want), f"NN_OPTIONS={options}: the error does not name {want}: {said}")
        check("Serving" not in said, f"NN_OPTIONS={options}: it said it listens: {said}")
    log("bad-options: a misspelt key (naming the nearest), a refused value and a non-object stop serve with exit 2")


COLOUR_SCHEMA = {"type": "object", "properties": {"colour": {"type": "string", "maxLength": 12},
                                                  "shade": {"type": "integer", "minimum": 0, "maximum": 9}},
                 "required": ["colour", "shade"], "additionalProperties": False}


def case_structured(ctx):
    """response_format through llama.cpp's grammar. json_schema: the greedy answer finishes ("stop"),
    parses and validates against the schema (PyPI jsonschema), whole and streamed. json_object, as
    OpenAI documents JSON mode: an answer that finished ("stop") parses to an object; one cut by
    max_tokens ("length") need not parse, but is the start of an object (PyPI jiter's partial mode,
    the openai client's own JSON reader). The tiny GGUF's weights are random: it seldom closes a
    string, so sampled answers (temperature 1, fixed seeds) give both kinds. A schema the plugin
    cannot turn into a grammar is 400 naming response_format."""
    import jiter
    import jsonschema
    import openai
    fmt = {"type": "json_schema", "json_schema": {"name": "colour", "schema": COLOUR_SCHEMA}}
    with ctx.server(nn_options='{"threads": 1, "ctx-size": 1024}') as server:
        c = client(server)

        def ask(stream, **kw):
            """(text, finish_reason, completion tokens) of one chat answer, whole or streamed."""
            if not stream:
                r = c.chat.completions.create(model="default", messages=MESSAGES, **kw)
                return r.choices[0].message.content, r.choices[0].finish_reason, r.usage.completion_tokens
            pieces, finish, usage = [], None, None
            for ch in c.chat.completions.create(model="default", messages=MESSAGES, stream=True,
                                                stream_options={"include_usage": True}, **kw):
                usage = ch.usage or usage
                for x in ch.choices:
                    pieces.append(x.delta.content or "")
                    finish = x.finish_reason or finish
            return "".join(pieces), finish, usage.completion_tokens

        text, finish, _ = ask(False, max_tokens=200, temperature=0, response_format=fmt)
        check(finish == "stop", f"json_schema: finish {finish!r}: {text!r}")
        jsonschema.validate(json.loads(text), COLOUR_SCHEMA)
        streamed, s_finish, _ = ask(True, max_tokens=200, temperature=0, response_format=fmt)
        check((streamed, s_finish) == (text, finish), f"streamed {streamed!r} ({s_finish}) != whole {text!r}")
        jsonschema.validate(json.loads(streamed), COLOUR_SCHEMA)

        budget, seen = 24, {"stop": [], "length": []}
        for seed in range(32):
            kw = {"max_tokens": budget, "temperature": 1, "seed": seed, "response_format": {"type": "json_object"}}
            whole, streamed = ask(False, **kw), ask(True, **kw)
            check(streamed == whole, f"json_object seed {seed}: streamed {streamed} != whole {whole}")
            obj, finish, tokens = whole
            check(finish in seen, f"json_object seed {seed}: finish {finish!r}")
            if finish == "stop":
                check(isinstance(json.loads(obj), dict), f"json_object seed {seed}: a finished answer that is not an "
                      f"object: {obj!r}")
            else:
                check(tokens == budget, f"json_object seed {seed}: cut at {tokens} tokens of {budget}")
            try:
                start = jiter.from_json(obj.encode(), partial_mode="trailing-strings")
            except ValueError as e:
                raise Failure(f"json_object seed {seed} ({finish}): not the start of a JSON object: {obj!r}: {e}")
            check(isinstance(start, dict), f"json_object seed {seed}: not an object: {obj!r}")
            seen[finish].append(obj)
            if len(seen["stop"]) >= 2 and len(seen["length"]) >= 2:
                break
        check(seen["stop"] and seen["length"], f"json_object: 32 seeds gave {len(seen['stop'])} finished and "
              f"{len(seen['length'])} cut answers; the case needs both")
        try:
            c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=4, response_format={
                "type": "json_schema", "json_schema": {"name": "bad", "schema": {"type": "no-such-type"}}})
            raise Failure("a schema with no grammar was answered")
        except openai.BadRequestError as e:
            check(e.param == "response_format", f"bad schema: param {e.param!r}: {e}")
    log(f"structured: json_schema {text!r} validates (whole and streamed alike); json_object, {seed + 1} seeds: "
        f"finished {seen['stop']} parse, cut ones are objects' starts ({seen['length'][0][:30]!r}...)")


def case_logprobs(ctx):
    """logprobs/top_logprobs (chat, whole and streamed) and logprobs (completions) equal native
    llama.cpp's log-softmax of the logits at temperature 0 within 1e-4, candidates in order."""
    ref = ctx.reference("--messages", json.dumps(MESSAGES), "--n", 8, "--logprobs", 3)
    cref = ctx.reference("--prompt", PROMPT, "--n", 8, "--logprobs", 2)
    worst = 0.0

    def near(a, b, what):
        nonlocal worst
        worst = max(worst, abs(a - b))
        check(abs(a - b) < 1e-4, f"{what}: {a} != native {b}")

    def check_chat(content, what):
        check(len(content) == len(ref["logprobs"]), f"{what}: {len(content)} tokens' logprobs for {ref['n_tokens']}")
        for i, (lp, want) in enumerate(zip(content, ref["logprobs"])):
            check(lp.token == ref["tokens"][i] and bytes(lp.bytes) == lp.token.encode(), f"{what}: token {i} {lp!r}")
            near(lp.logprob, want, f"{what}: token {i}")
            check([t.token for t in lp.top_logprobs] == [t for t, _ in ref["top"][i]], f"{what}: top of token {i}: "
                  f"{[t.token for t in lp.top_logprobs]} != {[t for t, _ in ref['top'][i]]}")
            for t, (_, l) in zip(lp.top_logprobs, ref["top"][i]):
                near(t.logprob, l, f"{what}: candidate {t.token!r} of token {i}")

    with ctx.server() as server:
        c = client(server)
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0, logprobs=True,
                                      top_logprobs=3)
        check(r.choices[0].message.content == ref["text"], "with logprobs: not the reference answer")
        check_chat(r.choices[0].logprobs.content, "chat")
        content = []
        for ch in c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0,
                                            logprobs=True, top_logprobs=3, stream=True):
            for x in ch.choices:
                content += x.logprobs.content if x.logprobs and x.logprobs.content else []
        check_chat(content, "streamed chat")
        r = c.completions.create(model="default", prompt=PROMPT, max_tokens=8, temperature=0, logprobs=2)
        lp = r.choices[0].logprobs
        check(lp.tokens == cref["tokens"], f"completions tokens {lp.tokens} != {cref['tokens']}")
        for i, (got, want) in enumerate(zip(lp.token_logprobs, cref["logprobs"])):
            near(got, want, f"completions token {i}")
            # A JSON object: its candidates unordered.
            check(sorted(lp.top_logprobs[i]) == sorted(t for t, _ in cref["top"][i]), f"completions top {i}: "
                  f"{lp.top_logprobs[i]} != {cref['top'][i]}")
            for t, l in cref["top"][i]:
                near(lp.top_logprobs[i][t], l, f"completions candidate {t!r} of token {i}")
        check(lp.text_offset[0] == 0 and lp.text_offset[1] == len(lp.tokens[0]), f"text_offset {lp.text_offset}")
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=2, temperature=0)
        check(r.choices[0].logprobs is None, "logprobs without asking")
    log(f"logprobs: chat (whole, streamed) and completions equal native llama.cpp's log-softmax; worst difference "
        f"{worst:.2e}")


def headless_chromium():
    """A function starting headless Chromium under selenium, its console log kept; Skipped without
    them (PyPI's selenium, Debian's chromium and chromium-driver)."""
    import shutil
    try:
        from selenium import webdriver
    except ImportError:
        raise Skipped("PyPI's selenium is not installed in this Python (scripts/deps/openai.pip)")
    browser, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver_path:
        raise Skipped("no chromium and chromedriver (Debian's chromium, chromium-driver: scripts/deps/browser.apt)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,700"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return lambda: webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=driver_path))


def case_page(ctx):
    """The chat page (GET /) in a real headless browser (Debian's Chromium, PyPI's selenium): it
    loads with no console error, lists the models, and a typed message shows native llama.cpp's
    greedy answer streamed in; Stop ends a long answer. OPENAI_PAGE_SCREENSHOT=PATH keeps a
    screenshot (docs/serving-chat-page.png is one)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    start_browser = headless_chromium()
    ref = chat_reference(ctx, 16)
    with ctx.server(nn_options='{"threads": 1, "ctx-size": 8192}') as server:
        driver = start_browser()
        try:
            wait = WebDriverWait(driver, 60)
            driver.get(server.url("/"))
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#model option")) == 2)
            names = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#model option")]
            check(names == ["default", "second"], f"the page's models: {names}")
            for field, value in (("temperature", "0"), ("max-tokens", "16")):
                driver.find_element(By.ID, field).clear()
                driver.find_element(By.ID, field).send_keys(value)
            driver.find_element(By.ID, "system").send_keys(MESSAGES[0]["content"])
            driver.find_element(By.ID, "message").send_keys(MESSAGES[1]["content"])
            driver.find_element(By.ID, "send").click()
            wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(("done", "failed")))
            answer = driver.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1].get_property("textContent")
            check(answer == ref["text"], f"the page shows {answer!r}, native llama.cpp answers {ref['text']!r}")
            shot = os.environ.get("OPENAI_PAGE_SCREENSHOT")
            if shot:
                driver.save_screenshot(shot)
            # A long answer, stopped: the page says so and takes the next message.
            driver.find_element(By.ID, "max-tokens").clear()
            driver.find_element(By.ID, "max-tokens").send_keys("8000")
            driver.find_element(By.ID, "message").send_keys("Tell a long story.")
            driver.find_element(By.ID, "send").click()
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1].text) > 20)
            driver.find_element(By.ID, "stop").click()
            wait.until(lambda d: d.find_element(By.ID, "status").text in ("stopped", "done (length)", "done (stop)"))
            check(driver.find_element(By.ID, "status").text == "stopped",
                  f"after Stop: {driver.find_element(By.ID, 'status').text!r}")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, f"console errors: {errors}")
        finally:
            driver.quit()
    log(f"page: Chromium loaded it with no console error, listed the models, showed {ref['text']!r} (native "
        "llama.cpp's) streamed in, and Stop ended a long answer")


def curl(server, *args):
    """(HTTP status, body) of one curl request to server; args are curl's after the URL's path."""
    import subprocess
    p = subprocess.run(["curl", "-sS", "-o", "-", "-w", "\n%{http_code}", server.url(args[0]), *args[1:]],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"curl {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    body, _, status = p.stdout.rpartition("\n")
    return int(status), body


def case_no_v1(ctx):
    """POST /chat/completions, /completions, /embeddings and GET /models answer as their /v1 forms;
    a 404 names the path asked for and lists the routes in both forms."""
    chat_ref = chat_reference(ctx, 16)
    text_ref = ctx.reference("--prompt", PROMPT, "--n", 16)
    with ctx.server() as server:
        import openai
        bare = openai.OpenAI(base_url=server.url(""), api_key="unused", max_retries=0, timeout=120)
        r = bare.chat.completions.create(model="default", messages=MESSAGES, max_tokens=16, temperature=0)
        check(r.choices[0].message.content == chat_ref["text"],
              f"POST /chat/completions: {r.choices[0].message.content!r} != native {chat_ref['text']!r}")
        pieces = [ch.choices[0].delta.content or "" for ch in bare.chat.completions.create(
            model="default", messages=MESSAGES, max_tokens=16, temperature=0, stream=True) if ch.choices]
        check("".join(pieces) == chat_ref["text"], f"streamed POST /chat/completions: {''.join(pieces)!r}")
        r = bare.completions.create(model="default", prompt=PROMPT, max_tokens=16, temperature=0)
        check(r.choices[0].text == text_ref["text"], f"POST /completions: {r.choices[0].text!r} != {text_ref['text']!r}")
        got = bare.embeddings.create(model="default", input="hello world", encoding_format="float").data[0].embedding
        want = client(server).embeddings.create(model="default", input="hello world",
                                                encoding_format="float").data[0].embedding
        check(got == want, "POST /embeddings differs from POST /v1/embeddings")
        ids = [m.id for m in bare.models.list()]
        check(ids == ["default", "second"], f"GET /models: {ids}")
        # As a shell user sees them.
        status, body = curl(server, "/chat/completions", "-H", "content-type: application/json", "-d",
                            json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": 16, "temperature": 0}))
        check(status == 200 and json.loads(body)["choices"][0]["message"]["content"] == chat_ref["text"],
              f"curl POST /chat/completions: {status} {body}")
        for path in ("/chat/complete", "/v1/chat", "/v2/models"):
            status, body = curl(server, path, "-d", "{}")
            err = check_error_shape(json.loads(body), f"POST {path}")
            check(status == 404 and err["code"] == "unknown_url", f"POST {path}: {status} {body}")
            want = (f"no route for {path}; this server answers POST /v1/chat/completions, /v1/completions, "
                    "/v1/embeddings, /v1/responses, /v1/messages, /v1/messages/count_tokens, "
                    "/v1/audio/transcriptions, /v1/audio/translations, /v1/audio/speech and /v1/rerank, GET "
                    "/v1/models and /v1/audio/voices (each but audio also without /v1: POST /chat/completions, "
                    "/completions, /embeddings, /responses, /messages, /messages/count_tokens, /rerank, GET "
                    "/models) and GET / (the chat page)")
            check(err["message"] == want, f"POST {path}: the 404 says {err['message']!r}")
        for method, path, want in (("GET", "/chat/completions", "use POST /chat/completions"),
                                   ("POST", "/models", "use GET /models")):
            status, body = curl(server, path, "-X", method)
            check(status == 405 and json.loads(body)["error"]["message"] == want, f"{method} {path}: {status} {body}")
    log("no-v1: /chat/completions (whole and streamed), /completions, /embeddings and /models answer as under "
        "/v1; an unknown path's 404 names it and lists both forms; 405s name the path asked for")


def case_trace(ctx):
    """--log-level trace (issue 84): one request's whole path under its X-Request-Id, each crossing
    once, in order (the server's steps, each wasi-nn call, the plugin calls under them), the key
    never in it; at the default level none of it."""
    ref = chat_reference(ctx, 8)
    key = "sk-trace-secret-key"
    with ctx.server(extra=["--log-level", "trace", "--api-key", key]) as server:
        c = client(server, api_key=key)
        r = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0,
                                      extra_headers={"X-Request-Id": "trace-req-1"})
        check(r.choices[0].message.content == ref["text"], f"chat: {r.choices[0].message.content!r}")
        pieces = [ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
            model="default", messages=MESSAGES, max_tokens=8, temperature=0, stream=True,
            extra_headers={"X-Request-Id": "trace-req-2"}) if ch.choices]
        check("".join(pieces) == ref["text"], f"stream: {''.join(pieces)!r}")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the record's line comes as the body ends
            with server.lock:
                if sum("answer ended" in ln for ln in server.err_lines) >= 2:
                    break
            time.sleep(0.05)
        with server.lock:
            lines = list(server.err_lines)
    check(not any(key in ln for ln in lines), "the key appears in the trace log")
    for rid in ("trace-req-1", "trace-req-2"):
        mine = [ln for ln in lines if f"[{rid}]" in ln]
        wanted = [f"serve [{rid}] POST /v1/chat/completions arrived from 127.0.0.1",
                  f"serve [{rid}] body read: ", f"serve [{rid}] admitted after ",
                  f"serve [{rid}] guest state made",
                  f"nn [{rid}] wasi:nn/graph::load-by-name -> ok",
                  f"plugin [{rid}] llamacpp.context_create -> ok",
                  f"plugin [{rid}] llamacpp.compute_single -> ok",
                  f"plugin [{rid}] llamacpp.compute_single -> end_of_sequence",
                  f"serve [{rid}] answer ended: 200 completed"]
        at = 0
        for want in wanted:
            found = next((i for i in range(at, len(mine)) if want in mine[i]), None)
            check(found is not None, f"{rid}: no line with {want!r} after line {at} of its {len(mine)}:\n"
                  + "\n".join(mine))
            at = found + 1
        # The response's head: after the guest started, before the body's end (a stream's comes first).
        made = next(i for i, ln in enumerate(mine) if "guest state made" in ln)
        head = [i for i, ln in enumerate(mine) if f"serve [{rid}] the guest answered 200 after " in ln]
        ended = next(i for i, ln in enumerate(mine) if "answer ended" in ln)
        check(len(head) == 1 and made < head[0] < ended, f"{rid}: the guest's answer line at {head}")
        check(all(" -> " not in ln or " in " in ln for ln in mine), f"{rid}: a call line without its time")
        other = "trace-req-2" if rid == "trace-req-1" else "trace-req-1"
        check(not any(other in ln for ln in mine), f"{rid}'s lines name {other}")
    with ctx.server() as server:
        client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=8, temperature=0,
                                               extra_headers={"X-Request-Id": "trace-req-3"})
        time.sleep(0.3)
        with server.lock:
            quiet = [ln for ln in server.err_lines if "trace-req-3" in ln]
    check(len(quiet) == 1 and "info:" in quiet[0], f"at the default level: {quiet}")
    log("trace: --log-level trace shows each request's path under its id (serve, wasi-nn, plugin, in order), "
        "the key nowhere; the default level shows the access line only")


CASES = {"chat": case_chat, "stream": case_stream, "stop": case_stop, "completions": case_completions,
         "embeddings": case_embeddings, "models": case_models, "disconnect": case_disconnect,
         "concurrent": case_concurrent, "auth": case_auth, "tls": case_tls, "finish": case_finish,
         "errors": case_errors, "unsupported": case_unsupported, "deadline": case_deadline,
         "preloaded": case_preloaded, "bad-options": case_bad_options, "structured": case_structured,
         "logprobs": case_logprobs, "page": case_page, "no-v1": case_no_v1, "extras": case_extras,
         "tools": case_tools, "trace": case_trace}


def main(cases=None, doc=__doc__):
    """The command line of this file's cases, or of another file's on the same server (token_metrics_test)."""
    cases = cases or CASES
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, choices=sorted(cases))
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--backend-dir")
    p.add_argument("--llama-server", help="llama-server for the cases compared with it (default: .deps's)")
    args = p.parse_args()
    try:
        ctx = Ctx(args)
    except Skipped as e:
        print(f"SKIP {args.case}: {e}")
        return SKIP
    return run_cases(cases, [args.case], ctx)

if __name__ == "__main__":
    sys.exit(main())
