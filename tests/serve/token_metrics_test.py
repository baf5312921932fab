#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Token metrics (docs/metrics.md): the OpenAI-compatible component under `wasinn serve
--metrics-addr`, on the tiny GGUF, driven by PyPI's `openai`; the llama.cpp plugin reports its
tokens through the plugin ABI (context_take_token_stats) and the scrape must agree with what the
client received.

    token_metrics_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                          --reference BUILD/bin/wasinn_llama_reference

Cases (ctest runs each as serve.token-metrics.CASE):
  counts    a chat answer, a streamed chat answer (one chunk per token) and a completion:
            wasinn_nn_prompt_tokens_total and wasinn_nn_generated_tokens_total equal the usage the
            client got (and the streamed chunks), per model; the time-to-first-token histogram
            counts one per request, the per-token one the tokens after each first
  outcomes  a whole answer cut by --request-timeout (504), a stream whose client left and a completed
            answer: wasinn_http_route_requests_total counts each outcome on /v1/chat/completions, and
            the cut answers' tokens are counted too (one first token each)
  stream-outcomes
            streams as PyPI openai reads them: 10 read to [DONE] are all completed (access log and
            metric) though the client closes there; one left midway is cut:client-left; one whose
            generation fails midway (a token past --max-compute-ms) ends with an error event and
            is cut:error

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import http.client
import json
import os
import signal
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import check  # noqa: E402
from openai_test import MESSAGES, PROMPT, client, sample  # noqa: E402
from openai_test import main as openai_main  # noqa: E402
from serve_test import log, metrics_url, wait_line, wait_lines  # noqa: E402


def scrape(url):
    return urllib.request.urlopen(url, timeout=10).read().decode()


def case_counts(ctx):
    with ctx.server(extra=["--metrics-addr", "127.0.0.1:0"]) as server:
        url = metrics_url(server)
        before = scrape(url)
        check(sample(before, "wasinn_nn_generated_tokens_total", graph="default") == 0,
              f"tokens counted before any request\n{before}")
        c = client(server)
        chat = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=12, temperature=0)
        pieces, usage = 0, None
        for chunk in c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=10, temperature=0,
                                               stream=True, stream_options={"include_usage": True}):
            if chunk.usage:
                usage = chunk.usage
            pieces += sum(1 for ch in chunk.choices if ch.delta and ch.delta.content)
        check(usage is not None, "no usage chunk in the stream")
        done = c.completions.create(model="second", prompt=PROMPT, max_tokens=7, temperature=0)
        text = scrape(url)
        prompt_default = chat.usage.prompt_tokens + usage.prompt_tokens
        gen_default = chat.usage.completion_tokens + usage.completion_tokens
        got = {k: sample(text, f"wasinn_nn_{k}_tokens_total", graph="default") for k in ("prompt", "generated")}
        check(got["prompt"] == prompt_default,
              f"prompt tokens of 'default': scraped {got['prompt']}, the client got {prompt_default}")
        check(got["generated"] == gen_default,
              f"generated tokens of 'default': scraped {got['generated']}, the client got {gen_default}")
        # The tiny model's tokens are one streamed chunk each.
        check(pieces == usage.completion_tokens, f"{pieces} content chunks for {usage.completion_tokens} tokens")
        second = {k: sample(text, f"wasinn_nn_{k}_tokens_total", graph="second") for k in ("prompt", "generated")}
        check(second == {"prompt": done.usage.prompt_tokens, "generated": done.usage.completion_tokens},
              f"'second': scraped {second}, the client got {done.usage}")
        ttft = sample(text, "wasinn_nn_time_to_first_token_seconds_count", graph="default")
        check(ttft == 2, f"time to first token counted {ttft} times for 2 requests on 'default'")
        check(sample(text, "wasinn_nn_time_to_first_token_seconds_bucket", graph="default", le="+Inf") == 2,
              "the +Inf bucket is not the count")
        check(sample(text, "wasinn_nn_time_to_first_token_seconds_sum", graph="default") > 0, "no TTFT sum")
        tpot = sample(text, "wasinn_nn_time_per_output_token_seconds_count", graph="default")
        check(tpot == gen_default - 2, f"per-token histogram counted {tpot}, want {gen_default - 2} (tokens after "
              f"each first)")
        check(sample(text, "wasinn_nn_time_to_first_token_seconds_count", graph="second") == 1, "'second': TTFT")
        # Both chat requests on their route, both completed: the streamed one too, though PyPI openai
        # closes once it has read `data: [DONE]`, before the chunked body's end (stream-outcomes).
        route = sample(text, "wasinn_http_route_requests_total", route="/v1/chat/completions")
        check(route == 2, f"route /v1/chat/completions counted {route}, want 2")
        completed = sample(text, "wasinn_http_route_requests_total", route="/v1/chat/completions", outcome="completed")
        check(completed == 2, f"{completed} of the 2 chat answers counted completed\n{text}")
        check(sample(text, "wasinn_http_route_requests_total", route="/v1/completions", outcome="completed") == 1,
              "the completion is not counted on /v1/completions")
    log(f"counts: 'default' {int(got['prompt'])} prompt and {int(got['generated'])} generated tokens, as the client "
        f"got ({pieces} streamed chunks); TTFT 2, per-token {int(tpot)}; 'second' {second}")


def stream_request(server, max_tokens):
    body = json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": max_tokens, "temperature": 0,
                       "stream": True}).encode()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
    return conn, conn.getresponse()


def case_outcomes(ctx):
    # 8,000 tokens: many seconds of the tiny model, so --request-timeout or the client's leaving ends it.
    nn = '{"threads": 1, "ctx-size": 8192}'
    with ctx.server(extra=["--metrics-addr", "127.0.0.1:0", "--request-timeout", "2s"], nn_options=nn) as server:
        url = metrics_url(server)
        conn, r = stream_request(server, 8000)
        check(r.status == 200, f"stream status {r.status}")
        check(r.readline().startswith(b"data: "), "no first event")
        conn.sock.shutdown(2)
        conn.close()
        check(wait_line(server, r"POST /v1/chat/completions 200 .*cut:client-left"),
              f"no cut:client-left line\n{server.tail()}")
        # Whole, not streamed: a stream ends itself in time at the deadline the server tells the guest
        # (wasinn-deadline-ms, finish_reason "length"), so only a whole answer is cut by the timeout.
        body = json.dumps({"model": "default", "messages": MESSAGES, "max_tokens": 8000, "temperature": 0}).encode()
        conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
        r = conn.getresponse()
        r.read()
        conn.close()
        check(r.status == 504, f"a whole answer past --request-timeout: status {r.status}")
        check(wait_line(server, r"POST /v1/chat/completions 504 .*cut:timeout"), f"no cut:timeout line\n{server.tail()}")
        ok = client(server).chat.completions.create(model="default", messages=MESSAGES, max_tokens=4, temperature=0)
        deadline = time.monotonic() + 10
        while True:
            text = scrape(url)
            outcomes = {o: sample(text, "wasinn_http_route_requests_total", route="/v1/chat/completions", outcome=o)
                        for o in ("completed", "cut:timeout", "cut:client-left")}
            ttft = sample(text, "wasinn_nn_time_to_first_token_seconds_count", graph="default")
            if outcomes == {"completed": 1, "cut:timeout": 1, "cut:client-left": 1} and ttft == 3:
                break
            check(time.monotonic() < deadline, f"outcomes {outcomes}, TTFT count {ttft}\n{text}")
            time.sleep(0.2)
        gen = sample(text, "wasinn_nn_generated_tokens_total", graph="default")
        check(gen > ok.usage.completion_tokens + 2, f"generated {gen}: the cut streams' tokens are not counted")
        check(sample(text, "wasinn_http_request_outcomes_total", outcome="cut:timeout") == 1, "outcomes family")
    log(f"outcomes: completed, cut:timeout and cut:client-left counted on /v1/chat/completions; {int(gen)} tokens "
        f"generated, TTFT counted 3 times")


def wait_outcomes(server, want, timeout=10):
    """The route's outcome counts once they are WANT (else the failure names what they were)."""
    url, deadline = metrics_url(server), time.monotonic() + timeout
    while True:
        text = scrape(url)
        got = {o: sample(text, "wasinn_http_route_requests_total", route="/v1/chat/completions", outcome=o)
               for o in ("completed", "cut:client-left", "cut:error", "cut:timeout")}
        if all(got[o] == n for o, n in want.items()) or time.monotonic() > deadline:
            check(all(got[o] == n for o, n in want.items()), f"outcomes {got}, want {want}\n{server.tail()}")
            return text
        time.sleep(0.2)


def case_stream_outcomes(ctx):
    """Streams as PyPI openai reads them: read to [DONE] (the client closes there, before the
    chunked body's end), each is completed; left midway, cut:client-left; failed midway, cut:error."""
    import openai
    runs = 10
    # 8,000 tokens: many seconds of the tiny model, so the midway cases happen midway.
    nn = '{"threads": 1, "ctx-size": 8192}'
    with ctx.server(extra=["--metrics-addr", "127.0.0.1:0"], nn_options=nn) as server:
        c = client(server)
        for i in range(runs):
            events = list(c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=16, temperature=0,
                                                    stream=True))
            check(events and events[-1].choices[0].finish_reason, f"run {i}: the stream has no final chunk")
        wait_outcomes(server, {"completed": runs, "cut:client-left": 0})
        lines = wait_lines(server, r"POST /v1/chat/completions 200 ", at_least=runs)
        check(len(lines) == runs and not any("cut:" in line for line in lines),
              f"{runs} streams read to [DONE], logged:\n" + "\n".join(lines))
        # Left midway: the client closes after a few chunks of a long answer (greedy: sampled, the
        # tiny model may draw its end token within a few tokens).
        stream = c.chat.completions.create(model="default", messages=MESSAGES, max_tokens=8000, temperature=0,
                                           stream=True)
        for _, _ in zip(range(5), stream):
            pass
        stream.close()
        check(wait_line(server, r"POST /v1/chat/completions 200 .*cut:client-left"),
              f"the stream left midway is not logged cut:client-left\n{server.tail()}")
        wait_outcomes(server, {"completed": runs, "cut:client-left": 1})
    # Failed midway: a compute (one token) past --max-compute-ms fails, and the server is paused in
    # the middle of one (SIGSTOP, SIGCONT): llama.cpp's decode outlives its budget, the generation
    # fails, and the guest ends its 200 stream with an error event. Once the stream is going, the
    # server runs only in slices of a few ms between pauses of 1.2 s: a token of bench.gguf takes
    # some 15 ms of compute, so the first one computed in slices spans a pause and ends past its
    # 1 s budget, whatever the server was doing when the slicing began. (Single pauses missed: the
    # server was often waiting on its client, not computing, and the tiny model's token takes under
    # 2 ms. No token takes 1 s unpaused, even on a busy machine.) Greedy, so the answer cannot end
    # first: sampled, the tiny model once drew its end token between two pauses.
    bench = os.path.join(ctx.args.fixtures, "llama", "bench.gguf")
    extra = ["--metrics-addr", "127.0.0.1:0", "--max-compute-ms", "1s", "--nn-preload", f"bench:GGML:AUTO:{bench}"]
    with ctx.server(extra=extra, models="default,bench", nn_options='{"threads": 1, "ctx-size": 2048}') as server:
        stream = client(server).chat.completions.create(model="bench", messages=MESSAGES, max_tokens=2000,
                                                        temperature=0, stream=True)
        raised, chunks, pauses = [], 0, 0

        def read():
            nonlocal chunks
            try:
                for _ in stream:
                    chunks += 1
            except openai.APIError as e:
                raised.append(e)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        while chunks < 3 and reader.is_alive():
            time.sleep(0.01)
        while reader.is_alive() and pauses < 40:
            os.kill(server.proc.pid, signal.SIGSTOP)
            time.sleep(1.2)
            os.kill(server.proc.pid, signal.SIGCONT)
            pauses += 1
            reader.join(0.002)  # the slice the server runs
        reader.join(60)
        check(raised and "generation failed" in str(raised[0]),
              f"after {pauses} pauses of 1.2 s: {raised!r}, {chunks} chunks\n{server.tail()}")
        line = wait_line(server, r"POST /v1/chat/completions 200 .*cut:error")
        check(line and "failed midway" in line, f"the failed stream is not logged cut:error: {line}\n{server.tail()}")
        text = wait_outcomes(server, {"completed": 0, "cut:client-left": 0, "cut:error": 1})
        check(sample(text, "wasinn_http_request_outcomes_total", outcome="cut:error") == 1, "outcomes family")
    log(f"stream-outcomes: {runs} of {runs} streams read to [DONE] by openai logged and counted completed; one left "
        f"midway cut:client-left; one whose generation failed ({pauses} pause(s) past --max-compute-ms) cut:error")


CASES = {"counts": case_counts, "outcomes": case_outcomes, "stream-outcomes": case_stream_outcomes}


def main():
    return openai_main(CASES, __doc__)


if __name__ == "__main__":
    sys.exit(main())
