#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Continuous batching and the prompt cache of the llama.cpp plugin (issue 82) through the
OpenAI-compatible component under `wasinn serve --workers 8` with the plugin's load config
{"parallel": 8} (concurrent generations are sequences of one shared llama_context), driven by PyPI's
`openai` and `anthropic` clients on loopback.

    openai_batch_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                         --reference BUILD/bin/wasinn_llama_reference

Cases (ctest runs them as serve.openai-batch.equal, serve.openai-batch.cancel, serve.openai-cache.turns
and serve.openai-cache.saved):
  equal   8 different greedy chats of 64 tokens on the tiny GGUF, each first alone (and equal to native
          llama.cpp's greedy answer), then all 8 at once: each gives exactly its alone text
  cancel  on the bench GGUF, 8 at once: two clients leave mid-stream, one asks for 2000 tokens and is cut
          by --request-timeout (504), the other five give their alone texts; then every context is freed
          and 8 at once again give the alone texts (the sequences' KV was given back)
  turns   a conversation's second turn (the first's messages, its answer and a new user turn) reports
          usage.prompt_tokens_details.cached_tokens > 0, whole and in the streamed usage chunk (Responses'
          input_tokens_details.cached_tokens and Anthropic's cache_read_input_tokens alike), the
          prompt-cache metrics rise by exactly that one hit and its tokens, and its text is the same
          request's on a fresh server; the same turn under another --api-key hits nothing
  saved   --backend-config 'llamacpp={"parallel":2,"cache-ram":64}': a conversation whose sequence two
          others took still gets its first turn from the cache (host memory) on its second, answering
          as a fresh server; with cache-ram 0 it gets nothing

The tiny model's greedy answers are the same in a batch as alone (llama-server -np 8 gives the same
on these prompts); on the bench model the 16-token answers are too (checked alike with llama-server).

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import http.client
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import Failure, check  # noqa: E402
from openai_test import client, live_contexts, sample  # noqa: E402
from openai_test import main as openai_main  # noqa: E402
from serve_test import Server, log, metrics_url, run_threads  # noqa: E402

STREAMS = 8
PROMPTS = [[{"role": "user", "content": f"Tell me a story about the number {i} and a {thing}."}]
           for i, thing in enumerate(["cat", "dog", "bird", "fish", "tree", "house", "river", "stone"])]


def batch_server(ctx, model, nn_options, extra=(), backend_config=None):
    """One model, "default", with --workers 8 and the plugin's {"parallel": 8} (or BACKEND_CONFIG)."""
    config = json.dumps(backend_config or {"parallel": STREAMS}, separators=(",", ":"))
    args = ["--nn-preload", f"default:GGML:AUTO:{model}", "--env", "MODELS=default", "--env",
            f"NN_OPTIONS={nn_options}", "--workers", str(STREAMS), "--backend-config", f"llamacpp={config}", *extra]
    if ctx.args.backend_dir:
        args += ["--backend-dir", ctx.args.backend_dir]
    return Server([ctx.args.wasinn, "serve"], args, ctx.component, name="wasinn serve (parallel 8)")


def text_of(c, messages, max_tokens):
    r = c.chat.completions.create(model="default", messages=messages, max_tokens=max_tokens, temperature=0)
    return r.choices[0].message.content


def check_same(got, want, what):
    for i, (g, w) in enumerate(zip(got, want)):
        check(g == w, f"{what}: prompt {i} gave {g!r}, alone {w!r}")


def case_equal(ctx):
    """8 greedy generations at once give exactly what each gives alone, which is native llama.cpp's."""
    n = 64
    with batch_server(ctx, ctx.model, '{"threads": 1}') as server:
        c = client(server)
        alone = [text_of(c, p, n) for p in PROMPTS]
        for i, p in enumerate(PROMPTS):
            ref = ctx.reference("--messages", json.dumps(p), "--n", n)
            check(alone[i] == ref["text"], f"prompt {i} alone: {alone[i]!r} != native {ref['text']!r}")
        check(len(set(alone)) == STREAMS, f"the prompts' answers are not all different: {alone}")
        together = run_threads(STREAMS, lambda i: text_of(c, PROMPTS[i], n))
        check_same(together, alone, f"{STREAMS} at once")
    log(f"equal: {STREAMS} greedy answers of {n} tokens at once are each the native one it gives alone")


def leave_mid_stream(server, messages, max_tokens):
    """Streams a chat, reads its first three events and closes the connection: the events read."""
    body = json.dumps({"model": "default", "messages": messages, "max_tokens": max_tokens, "temperature": 0,
                       "stream": True}).encode()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=120)
    conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
    r = conn.getresponse()
    check(r.status == 200, f"the stream's status {r.status}")
    events = 0
    while events < 3:
        line = r.readline()
        check(line, "the stream ended before three events")
        events += line.startswith(b"data: ")
    conn.sock.shutdown(2)
    conn.close()
    return events


def wait_no_contexts(url, seconds=15):
    deadline = time.monotonic() + seconds
    while (left := live_contexts(url)) > 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def case_cancel(ctx):
    """Sequences that end early (the client left, the deadline came) leave the others running and
    their KV freed: the others' answers are their alone texts, and afterwards 8 at once again."""
    import openai
    short, long, timeout = 16, 2000, 12
    model = os.path.join(ctx.args.fixtures, "llama", "bench.gguf")
    if not os.path.exists(model):
        raise Failure(f"no {model} (scripts/make_fixtures.py makes it)")
    # 2000 tokens of the bench model take longer than the deadline (memory-bound steps of its 118 MB),
    # the 16-token answers far less, even 8 at a time on a loaded machine.
    extra = ["--request-timeout", f"{timeout}s", "--metrics-addr", "127.0.0.1:0"]
    # One thread: two would wait on each other at every step's barrier, for seconds when a busy
    # machine deschedules one (16-token answers were seen taking 6-14 s so, past the deadline).
    with batch_server(ctx, model, '{"threads": 1, "ctx-size": 2048}', extra) as server:
        url = metrics_url(server)
        c = client(server)
        alone = [text_of(c, p, short) for p in PROMPTS]

        def late(i):
            started = time.monotonic()
            try:
                r = c.chat.completions.create(model="default", messages=PROMPTS[i], max_tokens=long, temperature=0)
            except openai.APIStatusError as e:
                return e.status_code, time.monotonic() - started
            raise Failure(f"{long} tokens were answered before the {timeout} s deadline "
                          f"({r.usage.completion_tokens} tokens): the case needs a slower model")

        def one(i):
            if i < 2:
                return leave_mid_stream(server, PROMPTS[i], long)
            return late(i) if i == 2 else text_of(c, PROMPTS[i], short)

        got = run_threads(STREAMS, one)
        check(got[2][0] == 504, f"the request past --request-timeout got {got[2][0]}, not 504")
        check_same(got[3:], alone[3:], "beside two clients that left and one cut at the deadline")
        left = wait_no_contexts(url)
        check(left == 0, f"{left} contexts still alive after every request ended\n{server.tail()}")
        # A sequence whose KV was never given back would leave one of these waiting: 60 s, not ctest's 120.
        c = client(server, timeout=60)
        again = run_threads(STREAMS, lambda i: text_of(c, PROMPTS[i], short))
        check_same(again, alone, f"{STREAMS} at once afterwards")
    log(f"cancel: two clients left, one cut at {got[2][1]:.1f} s by the {timeout} s deadline; the other five "
        f"answered as alone; every context freed, then {STREAMS} at once answered as alone again")


# A first turn of a few hundred tokens: its prefix is worth caching.
FIRST = [{"role": "system", "content": "You are terse."},
         {"role": "user", "content": "Here are the harbour's records: " +
          " ".join(f"box {i} holds the letters of the year {1800 + i};" for i in range(24))}]


def second_turn(answer):
    return FIRST + [{"role": "assistant", "content": answer}, {"role": "user", "content": "Go on."}]


def cached_tokens(usage):
    details = usage.prompt_tokens_details
    return details.cached_tokens if details and details.cached_tokens is not None else None


def cache_metrics(url):
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    return (sample(text, "wasinn_nn_prompt_cache_hits_total"), sample(text, "wasinn_nn_prompt_cached_tokens_total"))


def case_turns(ctx):
    """The second turn takes the first's prompt from the cache, answers as a cold server does, and
    is counted; the cache is one API key's: another key's same turn takes nothing from it."""
    nn_options = '{"threads": 1, "ctx-size": 1024}'
    with batch_server(ctx, ctx.model, nn_options) as cold:
        r = client(cold).chat.completions.create(model="default", messages=FIRST, max_tokens=8, temperature=0)
        turn2 = second_turn(r.choices[0].message.content)
        cold2 = client(cold).chat.completions.create(model="default", messages=turn2, max_tokens=16, temperature=0)
    check(cached_tokens(cold2.usage) is not None, f"no usage.prompt_tokens_details.cached_tokens: {cold2.usage}")
    extra = ["--api-key", "key-a", "--api-key", "key-b", "--metrics-addr", "127.0.0.1:0"]
    with batch_server(ctx, ctx.model, nn_options, extra) as server:
        url = metrics_url(server)
        a, b = client(server, api_key="key-a"), client(server, api_key="key-b")
        first = a.chat.completions.create(model="default", messages=FIRST, max_tokens=8, temperature=0)
        check(first.choices[0].message.content == r.choices[0].message.content,
              f"the first turn {first.choices[0].message.content!r} != {r.choices[0].message.content!r}")
        check(cached_tokens(first.usage) == 0, f"a fresh server's first request took from a cache: {first.usage}")
        before = cache_metrics(url)
        other = b.chat.completions.create(model="default", messages=turn2, max_tokens=16, temperature=0)
        check(cached_tokens(other.usage) == 0, f"key B's turn took key A's cached prompt: {other.usage}")
        warm = a.chat.completions.create(model="default", messages=turn2, max_tokens=16, temperature=0)
        cached, prompt = cached_tokens(warm.usage), warm.usage.prompt_tokens
        # At least half the first turn's prompt: a cache that kept less would be a broken one.
        check(first.usage.prompt_tokens // 2 <= cached < prompt,
              f"the second turn took {cached} of its {prompt} prompt tokens from the cache (the first turn "
              f"had {first.usage.prompt_tokens})")
        for got, who in ((warm, "key A (cached)"), (other, "key B")):
            check(got.choices[0].message.content == cold2.choices[0].message.content,
                  f"{who}: {got.choices[0].message.content!r} != cold {cold2.choices[0].message.content!r}")
            check(got.usage.prompt_tokens == cold2.usage.prompt_tokens, f"{who}: prompt tokens {got.usage}")
        after = cache_metrics(url)
        check(after[0] - before[0] == 1 and after[1] - before[1] == cached,
              f"the prompt-cache metrics (hits, cached tokens) went from {before} to {after}: one hit of {cached}")
        # The same turn streamed (the usage chunk) and through the Responses API: the cache read there too.
        pieces, streamed = [], None
        for chunk in a.chat.completions.create(model="default", messages=turn2, max_tokens=16, temperature=0,
                                               stream=True, stream_options={"include_usage": True}):
            pieces += [x.delta.content or "" for x in chunk.choices]
            streamed = chunk.usage or streamed
        check("".join(pieces) == cold2.choices[0].message.content and streamed and
              (cached_tokens(streamed) or 0) > 0, f"streamed: {''.join(pieces)!r}, usage chunk {streamed}")
        resp = a.responses.create(model="default", instructions=FIRST[0]["content"], input=turn2[1:],
                                  max_output_tokens=16, temperature=0)
        check(resp.output_text == cold2.choices[0].message.content and resp.usage.input_tokens == prompt and
              resp.usage.input_tokens_details.cached_tokens > 0, f"Responses: {resp.output_text!r}, {resp.usage}")
        from openai_apis_test import anthropic_client
        m = anthropic_client(server, api_key="key-a").messages.create(
            model="default", system=FIRST[0]["content"], messages=turn2[1:], max_tokens=16,
            extra_body={"temperature": 0})
        u = m.usage
        check((u.cache_read_input_tokens or 0) > 0 and u.input_tokens + u.cache_read_input_tokens == prompt,
              f"Anthropic's usage of the same turn: {u} (the prompt has {prompt} tokens)")
        check(m.content[0].text == cold2.choices[0].message.content, f"Anthropic's text {m.content!r}")
    log(f"turns: the second turn took {cached} of {prompt} prompt tokens from key A's cache and answered as a cold "
        f"server; key B's took none; the metrics counted one hit of {cached}; Anthropic's cache_read_input_tokens "
        f"{u.cache_read_input_tokens}; streamed and Responses read it too")


def case_saved(ctx):
    """Two sequences, three conversations one after another: the first's sequence goes to the third,
    and its second turn still takes its first turn's prompt from the cache (host memory, cache-ram)
    and answers as a fresh server; with cache-ram 0 it takes (almost) nothing."""
    nn_options = '{"threads": 1, "ctx-size": 1024}'
    others = [[{"role": "user", "content": f"Say something about the {thing}."}] for thing in ("moon", "sea")]
    with batch_server(ctx, ctx.model, nn_options) as cold:
        r = client(cold).chat.completions.create(model="default", messages=FIRST, max_tokens=8, temperature=0)
        turn2 = second_turn(r.choices[0].message.content)
        want = client(cold).chat.completions.create(model="default", messages=turn2, max_tokens=16, temperature=0)
    for mib in (64, 0):
        with batch_server(ctx, ctx.model, nn_options, backend_config={"parallel": 2, "cache-ram": mib}) as server:
            c = client(server)
            first = c.chat.completions.create(model="default", messages=FIRST, max_tokens=8, temperature=0)
            for messages in others:
                c.chat.completions.create(model="default", messages=messages, max_tokens=8, temperature=0)
            got = c.chat.completions.create(model="default", messages=turn2, max_tokens=16, temperature=0)
            cached = cached_tokens(got.usage)
            check(got.choices[0].message.content == want.choices[0].message.content,
                  f"cache-ram {mib}: {got.choices[0].message.content!r} != {want.choices[0].message.content!r}")
            if mib:
                check(cached >= first.usage.prompt_tokens // 2, f"cache-ram {mib}: the second turn took {cached} "
                      f"tokens from the cache (the first turn had {first.usage.prompt_tokens})")
            else:
                check(cached < 16, f"cache-ram 0: the second turn took {cached} tokens from a cache")
            log(f"cache-ram {mib} MiB: the second turn took {cached} of {got.usage.prompt_tokens} prompt tokens "
                "from the cache, its answer a fresh server's")


CASES = {"equal": case_equal, "cancel": case_cancel, "turns": case_turns, "saved": case_saved}

if __name__ == "__main__":
    sys.exit(openai_main(CASES, __doc__))
