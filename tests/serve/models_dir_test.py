#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Many models in one `wasinn serve` (issue 82): --models-dir, --models-max, --models-idle-timeout,
--models-memory-limit and the host's model routes (src/core/model_registry.cpp, src/serve/model_routes.cpp,
src/cli/models_dir.cpp), with the real binary on loopback, real GGUF fixtures (symlinked into a
temporary models directory), PyPI's `openai` client and urllib.

    models_dir_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                       [--backend-dir DIR]

Cases (ctest runs each as serve.models-dir.CASE):
  list      three GGUFs (tiny, the Mistral Nemo and Qwen 2.5 chat fixtures): GET /v1/models lists all
            three unloaded; a chat to tiny loads it (state loaded) and answers what `--openai tiny.gguf`
            alone answers (greedy); 4 concurrent first chats to another model load it once (one
            "loading" line) and answer alike; an unknown model is the client's NotFoundError
  lru       --models-max 1: a chat to a second model unloads the first (unloaded again, the log says
            lru); after a warm-up cycle (tiny, mistral-nemo, qwen2.5 each unloading the one before,
            then an unload), one more leaves VmRSS near the warm baseline (within 10% or 32 MiB;
            qwen2.5 loaded adds more than that)
  idle      --models-idle-timeout 1s: a model used once is unloaded by itself (polled up to 30 s; the
            log says idle)
  routes    --api-key: POST /models/load and /models/unload 401 without the key, 200 with it and the
            new state; an unknown model 404; a body without "model" 400; GET /models/load 405;
            while a stream holds tiny, unloading it is 409 and, under --models-max 1, loading
            another is 503 with Retry-After and the reason (by the route and by a chat); /healthz
            public
  memory    --models-memory-limit 1000: a chat is refused with 503 naming the numbers (the client's
            InternalServerError), POST /models/load too (both with Retry-After), the model stays
            unloaded and no load is attempted
  hub-cache a Hugging Face Hub cache as the models dir (models--tester--tiny-GGUF/snapshots/REV, refs/main,
            a projector beside): listed as tester/tiny-GGUF:Q8_0, answered under that name, no mmproj
  usage     a missing dir, an empty dir, a name both --openai and the dir give, --models-max without
            --models-dir or --openai: exit 2 with a message that says what to do

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import SKIP, Failure, Skipped, check, run_cases  # noqa: E402
from process_memory import mib, rss_bytes, unchecked_reason  # noqa: E402
from serve_test import Server, log, run_threads, wait_line, wait_lines  # noqa: E402

KEY = "sk-wasinn-models-test"
MESSAGES = [{"role": "user", "content": "Name a colour."}]
# One thread: llama.cpp's sums then agree between two servers bit for bit.
NN_OPTIONS = '{"threads": 1, "ctx-size": 512}'
FIXTURES = {"tiny": ("llama", "tiny.gguf"), "mistral-nemo": ("chat", "mistral-nemo.gguf"),
            "qwen2.5": ("chat", "qwen2.5.gguf")}


class Ctx:
    def __init__(self, args):
        self.args = args
        self.files = {name: os.path.join(args.fixtures, *where) for name, where in FIXTURES.items()}
        for path in self.files.values():
            if not os.path.exists(path):
                raise Skipped(f"no {path} (scripts/make_fixtures.py makes it)")
        if not os.path.exists(os.path.join(args.guests, "http_openai.component.wasm")):
            raise Skipped("no http_openai.component.wasm (built with the HTTP component guests)")
        try:
            import openai  # noqa: F401
        except ImportError:
            raise Skipped("PyPI's openai is not installed in this Python (scripts/deps/openai.pip)")
        self.tmp = tempfile.mkdtemp(prefix="wasinn-models-dir-")

    def models_dir(self, names=tuple(FIXTURES)):
        """A directory of symlinks to the fixtures, NAME.gguf each."""
        d = tempfile.mkdtemp(dir=self.tmp)
        for name in names:
            os.symlink(self.files[name], os.path.join(d, f"{name}.gguf"))
        return d

    def common(self, nn_options=NN_OPTIONS):
        extra = ["--env", f"NN_OPTIONS={nn_options}"]
        if self.args.backend_dir:
            extra += ["--backend-dir", self.args.backend_dir]
        return extra

    def serve(self, args, name="wasinn serve --models-dir", nn_options=NN_OPTIONS):
        """wasinn serve --addr 127.0.0.1:0 [common] ARGS... (Server puts the last argument last)."""
        args = self.common(nn_options) + list(args)
        return Server([self.args.wasinn, "serve"], args[:-1], args[-1], name=name)

    def run(self, argv):
        return subprocess.run([self.args.wasinn] + argv, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def client(server, api_key="unused"):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key=api_key, max_retries=0, timeout=120)


def chat(server, model, api_key="unused", max_tokens=8):
    r = client(server, api_key).chat.completions.create(model=model, messages=MESSAGES, max_tokens=max_tokens,
                                                        temperature=0)
    check(r.choices[0].message.content is not None, f"chat with {model}: {r!r}")
    return r.choices[0].message.content


def http(server, method, path, body=None, key=None):
    """(status, headers by lower-case name, JSON or text) of one request with urllib."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    req = urllib.request.Request(server.url(path), data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            status, headers, raw = r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()
    try:
        return status, headers, json.loads(raw)
    except ValueError:
        return status, headers, raw.decode("utf-8", "replace")


def states(server, key=None):
    status, _, body = http(server, "GET", "/v1/models", key=key)
    check(status == 200, f"GET /v1/models: {status} {body}")
    return {m["id"]: m["status"]["value"] for m in body["data"]}


def wait_state(server, name, want, timeout=30, key=None):
    deadline = time.monotonic() + timeout
    while True:
        now = states(server, key)[name]
        if now == want or time.monotonic() > deadline:
            return now
        time.sleep(0.1)


def case_list(ctx):
    import openai
    d = ctx.models_dir()
    with ctx.serve(["--models-dir", d]) as server:
        check(states(server) == {"tiny": "unloaded", "mistral-nemo": "unloaded", "qwen2.5": "unloaded"},
              f"before any request: {states(server)}")
        check(not wait_lines(server, r"model '.*' loading", timeout=0.5), "a model loaded at start")
        text = chat(server, "tiny")
        check(states(server)["tiny"] == "loaded", f"after a chat to tiny: {states(server)}")
        answers = run_threads(4, lambda i: chat(server, "mistral-nemo"))
        check(len(set(answers)) == 1, f"four greedy answers differ: {answers}")
        loads = wait_lines(server, r"model 'mistral-nemo' loading", timeout=5)
        check(len(loads) == 1, f"4 concurrent first requests loaded it {len(loads)} times: {loads}")
        check(wait_line(server, r"model 'mistral-nemo' loaded \(request, \d+ ms\)"), "no 'loaded' line")
        check(states(server)["mistral-nemo"] == "loaded" and states(server)["qwen2.5"] == "unloaded",
              f"after the chats: {states(server)}")
        try:
            chat(server, "nope")
            raise Failure("an unknown model was answered")
        except openai.NotFoundError as e:
            check("nope" in str(e), f"the 404 does not name the model: {e}")
    with ctx.serve(["--openai", ctx.files["tiny"]], name="wasinn serve --openai tiny.gguf") as alone:
        want = chat(alone, "tiny")
    check(text == want, f"tiny from --models-dir answered {text!r}, --openai alone {want!r}")
    log(f"list: three models listed unloaded; tiny loaded by its chat, answering {text!r} as --openai alone; "
        "4 concurrent first chats to mistral-nemo loaded it once")


def case_lru(ctx):
    d = ctx.models_dir()
    with ctx.serve(["--models-max", "1", "--models-dir", d]) as server:
        pid = server.proc.pid

        def expect(want):
            now = states(server)
            check(all(now[name] == state for name, state in want.items()), f"want {want}: {now}")

        def cycle():
            chat(server, "tiny")
            expect({"tiny": "loaded", "mistral-nemo": "unloaded", "qwen2.5": "unloaded"})
            chat(server, "mistral-nemo")
            expect({"tiny": "unloaded", "mistral-nemo": "loaded", "qwen2.5": "unloaded"})
            chat(server, "qwen2.5")
            expect({"tiny": "unloaded", "mistral-nemo": "unloaded", "qwen2.5": "loaded"})
            loaded = rss_bytes(pid)
            status, _, body = http(server, "POST", "/models/unload", {"model": "qwen2.5"})
            check(status == 200 and body["status"]["value"] == "unloaded", f"unload: {status} {body}")
            expect({"tiny": "unloaded", "mistral-nemo": "unloaded", "qwen2.5": "unloaded"})
            return loaded

        start = rss_bytes(pid)
        cycle()  # warm-up: the plugin, the framework's buffers, each model's first load
        check(wait_line(server, r"model 'tiny' unloaded \(lru\)"), "no 'unloaded (lru)' line for tiny")
        check(wait_line(server, r"model 'qwen2.5' unloaded \(request\)"), "no 'unloaded (request)' line")
        baseline = rss_bytes(pid)
        # Once more: an unload that kept a model (qwen2.5 loaded adds about 60 MiB) would show past the tolerance.
        loaded = cycle()
        deadline = time.monotonic() + 10
        after = rss_bytes(pid)
        limit = max(baseline * 1.1, baseline + (32 << 20))
        while after > limit and time.monotonic() < deadline:
            time.sleep(0.1)
            after = rss_bytes(pid)
        log(f"lru: RSS at start {mib(start)}, warm baseline {mib(baseline)}, with qwen2.5 loaded {mib(loaded)}, "
            f"after the unloads {mib(after)} (at most {mib(limit)})")
        if unchecked_reason():
            log(f"lru: RSS not checked: {unchecked_reason()}")
            return
        check(after <= limit, f"RSS {mib(after)} after the unloads, more than {mib(limit)} (baseline {mib(baseline)})")


def case_idle(ctx):
    d = ctx.models_dir(("tiny",))
    with ctx.serve(["--models-idle-timeout", "1s", "--models-dir", d]) as server:
        chat(server, "tiny")
        check(states(server)["tiny"] in ("loaded", "unloaded"), "tiny's state")
        now = wait_state(server, "tiny", "unloaded", timeout=30)
        check(now == "unloaded", f"tiny still {now} 30 s after its last use with --models-idle-timeout 1s")
        check(wait_line(server, r"model 'tiny' unloaded \(idle\)"), "no 'unloaded (idle)' line")
        chat(server, "tiny")  # and it loads again
        check(len(wait_lines(server, r"model 'tiny' loading", 2)) == 2, "tiny did not load again")
    log("idle: tiny unloaded by itself after its last use, and loaded again by the next chat")


def case_routes(ctx):
    import openai
    d = ctx.models_dir(("tiny", "mistral-nemo"))
    with ctx.serve(["--api-key", KEY, "--models-max", "1", "--models-dir", d],
                   nn_options='{"threads": 1, "ctx-size": 2048}') as server:
        for method, path, body in (("POST", "/models/load", {"model": "tiny"}),
                                   ("POST", "/models/unload", {"model": "tiny"}), ("GET", "/v1/models", None),
                                   ("GET", "/models", None)):
            status, headers, answer = http(server, method, path, body)
            check(status == 401 and "www-authenticate" in headers,
                  f"{method} {path} without the key: {status} {answer}")
        check(http(server, "GET", "/healthz")[0] == 200, "/healthz needs no key")
        check(states(server, KEY)["tiny"] == "unloaded", "a refused load loaded")
        status, _, body = http(server, "POST", "/models/load", {"model": "tiny"}, key=KEY)
        check(status == 200 and body["id"] == "tiny" and body["status"]["value"] == "loaded",
              f"load with the key: {status} {body}")
        check(wait_line(server, r"model 'tiny' loaded \(request"), "no 'loaded' line")
        check(states(server, KEY) == {"tiny": "loaded", "mistral-nemo": "unloaded"}, f"{states(server, KEY)}")
        check(http(server, "GET", "/models", key=KEY)[2]["data"][0]["status"]["value"] in ("loaded", "unloaded"),
              "GET /models (llama-server's path) lists the models too")
        status, _, body = http(server, "POST", "/models/unload", {"model": "tiny"}, key=KEY)
        check(status == 200 and body["status"]["value"] == "unloaded", f"unload with the key: {status} {body}")
        for path in ("/models/load", "/models/unload"):
            status, _, body = http(server, "POST", path, {"model": "nope"}, key=KEY)
            check(status == 404 and body["error"]["code"] == "model_not_found" and "nope" in body["error"]["message"],
                  f"{path} of an unknown model: {status} {body}")
            status, _, body = http(server, "POST", path, {"name": "tiny"}, key=KEY)
            check(status == 400 and body["error"]["param"] == "model", f"{path} without model: {status} {body}")
            status, _, body = http(server, "POST", path, b"{not json", key=KEY)
            check(status == 400, f"{path} with a body that is not JSON: {status} {body}")
            status, _, body = http(server, "GET", path, key=KEY)
            check(status == 405, f"GET {path}: {status} {body}")
        # A stream holds its model: unloading it then is 409, and the stream goes on. (The tiny model's
        # random weights do not end an answer early: 2,000 tokens take seconds after the first.)
        stream = client(server, KEY).chat.completions.create(
            model="tiny", messages=MESSAGES, max_tokens=2000, temperature=0, stream=True)
        chunks = iter(stream)
        next(chunks)
        status, _, body = http(server, "POST", "/models/unload", {"model": "tiny"}, key=KEY)
        check(status == 409 and body["error"]["code"] == "model_in_use", f"unload during a stream: {status} {body}")
        # --models-max 1 and the one model in use: another is refused, by the route and by a chat.
        status, headers, body = http(server, "POST", "/models/load", {"model": "mistral-nemo"}, key=KEY)
        check(status == 503 and "all are in use" in body["error"]["message"] and headers.get("retry-after") == "1",
              f"a load past --models-max with none idle: {status} {headers} {body}")
        try:
            chat(server, "mistral-nemo", KEY)
            raise Failure("a chat past --models-max with none idle was answered")
        except openai.InternalServerError as e:
            check(e.status_code == 503 and "all are in use" in str(e), f"the chat's refusal: {e}")
            check(e.response.headers.get("retry-after") == "1", f"the chat's 503 has no Retry-After: {e.response.headers}")
        check(next(chunks, None) is not None, "the stream ended with the refused unload")
        check(states(server, KEY)["tiny"] == "loaded", "the model went with the refused unload")
        stream.close()  # the client leaves: the generation ends at its next token, and lets the model go
        deadline = time.monotonic() + 30
        while True:
            status, _, body = http(server, "POST", "/models/unload", {"model": "tiny"}, key=KEY)
            if status != 409 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        check(status == 200 and body["status"]["value"] == "unloaded", f"unload after the stream: {status} {body}")
    log("routes: 401 without the key, load and unload with it, 404 unknown, 400 without model, 405 GET, "
        "409 while a stream holds the model, 503 for another past --models-max")


def case_memory(ctx):
    import openai
    d = ctx.models_dir(("tiny",))
    with ctx.serve(["--models-memory-limit", "1000", "--models-dir", d]) as server:
        try:
            chat(server, "tiny")
            raise Failure("a chat past the memory limit was answered")
        except openai.InternalServerError as e:
            check(e.status_code == 503, f"status {e.status_code}: {e}")
            check(e.response.headers.get("retry-after") == "1", f"no Retry-After: {e.response.headers}")
            message = e.body["message"] if isinstance(e.body, dict) else str(e)
            for want in ("not loaded", "needs about", "limit of 1000 bytes"):
                check(want in message, f"the refusal does not say {want!r}: {message}")
        status, headers, body = http(server, "POST", "/models/load", {"model": "tiny"})
        check(status == 503 and "limit of 1000 bytes" in body["error"]["message"], f"/models/load: {status} {body}")
        check(headers.get("retry-after") == "1", f"no Retry-After: {headers}")
        check(states(server)["tiny"] == "unloaded", f"after the refusals: {states(server)}")
        check(wait_line(server, r"model 'tiny' refused: not loaded"), "no 'refused' line")
        check(not wait_lines(server, r"model 'tiny' loading", timeout=0.2), "a refused load was attempted")
    log(f"memory: a chat and /models/load refused with 503: {message}")


def case_hub_cache(ctx):
    hub = tempfile.mkdtemp(dir=ctx.tmp)
    repo = os.path.join(hub, "models--tester--tiny-GGUF")
    snapshot = os.path.join(repo, "snapshots", "0123abcd")
    os.makedirs(snapshot)
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write("0123abcd")
    os.symlink(ctx.files["tiny"], os.path.join(snapshot, "tiny-Q8_0.gguf"))
    os.symlink(ctx.files["tiny"], os.path.join(snapshot, "mmproj-tiny-f16.gguf"))
    with ctx.serve(["-vv", "--models-dir", hub]) as server:
        check(states(server) == {"tester/tiny-GGUF:Q8_0": "unloaded"}, f"the Hub cache's models: {states(server)}")
        check(wait_line(server, r"mmproj-tiny-f16.gguf skipped"), "the projector's skip is not said at debug level")
        chat(server, "tester/tiny-GGUF:Q8_0")
        check(states(server)["tester/tiny-GGUF:Q8_0"] == "loaded", "not loaded by its chat")
    log("hub-cache: models--tester--tiny-GGUF served as tester/tiny-GGUF:Q8_0, its projector skipped")


def case_usage(ctx):
    empty = tempfile.mkdtemp(dir=ctx.tmp)
    d = ctx.models_dir(("tiny",))
    cases = [
        (["--models-dir", os.path.join(ctx.tmp, "missing")], "no such directory"),
        (["--models-dir", empty], "holds no GGUF model"),
        (["--models-dir", d, "--openai", ctx.files["tiny"]], "two models named 'tiny'"),
        (["--models-max", "1", os.path.join(ctx.args.guests, "http_openai.component.wasm")], "--models-dir DIR"),
    ]
    for args, want in cases:
        p = ctx.run(["serve", "--addr", "127.0.0.1:0"] + args)
        check(p.returncode == 2 and want in p.stderr, f"{args}: exit {p.returncode}, stderr {p.stderr!r}")
        log(f"usage: {' '.join(args[:2])}: {p.stderr.strip().splitlines()[-1]}")


CASES = {"list": case_list, "lru": case_lru, "idle": case_idle, "routes": case_routes, "memory": case_memory,
         "hub-cache": case_hub_cache, "usage": case_usage}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--backend-dir")
    args = p.parse_args()
    try:
        ctx = Ctx(args)
    except Skipped as e:
        print(f"SKIP {args.case}: {e}")
        return SKIP
    try:
        return run_cases(CASES, [args.case], ctx)
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())
