#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve` end to end: the real server as a subprocess, the HTTP component guests of
guest/components (http_classify, http_chat, http_faults), real clients (curl, http.client with
keep-alive connections from threads). Standard library only.

    serve_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests [options]

Cases (ctest runs each as serve.CASE, see CMakeLists.txt here):
  classify          tiny ONNX model and mobilenet_v2 preloaded (--nn-preload); curl POSTs the
                    input; the scores equal native ONNX Runtime's (--ort-reference, one intra-op
                    thread as the server is given) bit for bit, and mobilenet's are within
                    tolerance of the PyTorch output the fixture came from; bad requests 400,
                    an unknown graph 404, a wrong input name 500 invalid-argument
  load              2,000 requests at concurrency 16 on keep-alive connections, every answer right
  faults.trap       /trap -> 500 for that request only while concurrent /ok requests all get 200
  faults.spin       /spin with --request-timeout 500ms -> 504 within 2.5 s, the next requests fine;
                    with --workers 1 an /ok after the 504 is answered at once (the guest was stopped)
  faults.durations  --request-timeout 1 and 1s: /spin -> 504 after one second, as -W timeout=1 (a
                    number alone is seconds); 200ms: 504 well before that
  faults.queue      --workers 1 --max-queue 1, 4 concurrent /sleep?ms=1500 -> at least one 503
                    with Retry-After, the others 200
  faults.body-limit --max-request-bytes 1024: a larger body -> 413 (with content-length and
                    chunked), a smaller one reaches the guest
  faults.sigterm    SIGTERM with 4 /sleep?ms=1000 in flight: all 4 get 200, then exit status 0
  faults.sigterm-twice  a second SIGTERM ends a 60 s drain at once, exit status 1
  faults.cut        a request still running at the drain's end is logged as cut by the server (503)
  isolation         /count (a global the guest counts up) answers 1 to 28 requests, sequential and
                    concurrent: no state reaches the next request (also on the peer)
  faults.healthz    /healthz and /readyz -> 200 from the server (the guest would say 404)
  observability     --log-format json: one parsable access-log line per request; --metrics-addr
                    serves the request metrics and the wasi-nn metrics together
  json-log          --log-format json: every stderr line a JSON object (start, access lines, the
                    guest's own stderr, a trap, stop) and a usage error too
  http2             curl --http2-prior-knowledge and --http1.1 get the same answer
  chat              the tiny GGUF preloaded as "default": the answer comes chunked and equals
                    `wasinn run` of guest wit_chat with the same prompt and config
  rss               10,000 /ok requests: VmRSS after the last 5,000 less than 10% over VmRSS
                    after the first 5,000
  network.auth      --api-key and --api-key-file: 401 (curl: the Bearer challenge, a JSON error, a
                    request id) without or with a wrong key, 200 with either key, health open, the
                    file reread on SIGHUP, no key in the output, the 401s logged at info
  network.bad-keys  a missing, empty or malformed key file and an empty key stop the start, naming
                    the file
  network.slow-clients  beside 400 connections that sent half a request line an /ok is answered
                    in under 1 s and they are closed within --header-timeout 2s + 5 s; a body
                    trickled under 1 KiB/s gets 408; 5,000 headers get hyper's 431; past
                    --max-connections a connection is closed at once and counted
  network.default-bind  no --addr listens on 127.0.0.1:8080 only (refused on this machine's
                    other addresses; skipped without one, or with 8080 taken); --addr 0.0.0.0:0
                    without a key warns in exactly one line, with a key not at all
  network.tls       --tls-cert/--tls-key with a CA made by openssl at test time: curl over HTTP/2 and
                    HTTP/1.1 (ALPN) and Python's ssl get the answers; plain HTTP to the port and a
                    handshake of garbage fail; --tls-client-ca wants the client's certificate; bad, garbage and mismatched
                    files stop the start naming them
  network.access-log  a 504 by --request-timeout, a client that left and the drain's cut log
                    cut:timeout, cut:client-left and cut:shutdown, with client, request id and
                    user agent
  address-space     under `ulimit -v` 1 TiB (less than the pooling allocator's 4 TiB reservation,
                    which once aborted serve) the start fails with exit 1 saying to raise it or
                    pass -O pooling-allocator=n; with that flag /ok is served (not under sanitizers)
  peer              http_classify on Wasmtime's own `wasmtime serve -S nn -S nn-graph=onnx::DIR`
                    gives the same answers as on wasinn serve (skipped without the binary)

--server "CMD ..." and --flavor wasmtime run the other cases against another server (e.g. the
peer: --server "$PEER serve -O pooling-allocator=n" --flavor wasmtime); what the peer does not
have (limits, /healthz, ggml, draining on SIGTERM) is skipped, and its request timeout is
-W timeout with a 500.

Exit status: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE).
"""
import argparse
import glob
import http.client
import json
import os
import random
import re
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import Failure, Skipped, check, run_cases  # noqa: E402

READY_SECONDS = 60
SERVING = re.compile(r"Serving HTTP on https?://([^/\s]+):(\d+)/")
TINY_BIAS = (1.0, 2.0, 3.0, 4.0)  # scripts/fixtures/onnx_graphs.py build_tiny: y = x + bias
MOBILENET_DIMS = (1, 3, 224, 224)
SINGLE_THREAD_ORT = ["--backend-config", 'onnxruntime={"intra_op_threads":1}']


def log(message):
    print(message, flush=True)


def f32(x):
    """x rounded to the nearest float32 (as a Python float)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bytes(values):
    return struct.pack(f"<{len(values)}f", *values)


def f32_from_bytes(data):
    return list(struct.unpack(f"<{len(data) // 4}f", data))


# --- the server ----------------------------------------------------------------------------


class Server:
    """One server process: CMD --addr 127.0.0.1:0 ARGS COMPONENT, ready when its stderr says
    `Serving HTTP on http://HOST:PORT/`. Its output is kept for the failure report."""

    def __init__(self, cmd, args, component, env=None, name="server"):
        self.argv = list(cmd) + ["--addr", "127.0.0.1:0"] + list(args) + [component]
        self.env = env
        self.name = name
        self.lines = []
        self.err_lines = []  # stderr's alone
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.proc = None
        self.host = self.port = None

    def __enter__(self):
        log(f"{self.name}: {' '.join(shlex.quote(a) for a in self.argv)}")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=self.env)
        for stream, err in ((self.proc.stdout, False), (self.proc.stderr, True)):
            threading.Thread(target=self._drain, args=(stream, err), daemon=True).start()
        deadline = time.monotonic() + READY_SECONDS
        while not self.ready.wait(0.05):
            if self.proc.poll() is not None:
                time.sleep(0.2)  # the rest of its output
                raise Failure(f"{self.name} exited with status {self.proc.returncode} before serving\n{self.tail()}")
            if time.monotonic() > deadline:
                raise Failure(f"{self.name} did not print 'Serving HTTP on ...' within {READY_SECONDS} s\n{self.tail()}")
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and not issubclass(exc_type, Skipped):
            log(self.tail())
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        return False

    def _drain(self, stream, err):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.lock:
                self.lines.append(line)
                if err:
                    self.err_lines.append(line)
            m = SERVING.search(line)
            if m and not self.ready.is_set():
                self.host, self.port = m.group(1), int(m.group(2))
                self.ready.set()

    def tail(self, n=40):
        with self.lock:
            lines = self.lines[-n:]
        return f"--- {self.name}'s last {len(lines)} lines of output ---\n" + "\n".join(lines)

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Failure("no VmRSS in /proc/PID/status")

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f"{self.name} did not exit within {timeout} s\n{self.tail()}")


class LlamaServer(Server):
    """llama.cpp's llama-server --jinja on 127.0.0.1 with one slot of `ctx` tokens and `threads`
    threads, plus `args`; ready when /health answers 200; its output kept and the process stopped
    as Server does."""

    def __init__(self, binary, model, args=(), threads=1, ctx=4096, env=None, name="llama-server"):
        super().__init__([binary], [], model, env=env, name=name)
        self.binary, self.model, self.extra, self.threads, self.ctx = binary, model, list(args), threads, ctx

    def __enter__(self):
        with socket.socket() as s:  # a free port (llama-server takes no port 0)
            s.bind(("127.0.0.1", 0))
            self.host, self.port = "127.0.0.1", s.getsockname()[1]
        argv = [self.binary, "--jinja", "-m", self.model, "--host", "127.0.0.1", "--port", str(self.port),
                "-t", str(self.threads), "-tb", str(self.threads), "-c", str(self.ctx), "-np", "1", "--no-webui",
                *self.extra]
        log(f"{self.name}: {' '.join(argv)}")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=self.env)
        threading.Thread(target=self._drain, args=(self.proc.stdout, False), daemon=True).start()
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise Failure(f"{self.name} exited with status {self.proc.returncode}\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url("/health"), timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise Failure(f"{self.name} not healthy within 60 s\n{self.tail()}")
            time.sleep(0.1)


class Response:
    def __init__(self, status, headers, body, elapsed):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers}
        self.body = body
        self.elapsed = elapsed

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise Failure(f"not JSON ({e}): {self.body[:300]!r}")

    def __repr__(self):
        return f"HTTP {self.status} {self.headers} {self.body[:300]!r}"


def request(server, method, path, body=None, headers=None, conn=None, timeout=60, chunked=False):
    """One request; on CONN (kept alive, the caller's) or a connection of its own."""
    own = conn is None
    if own:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    try:
        start = time.monotonic()
        if chunked:
            conn.request(method, path, body=iter([body[i:i + 1000] for i in range(0, len(body), 1000)]),
                         headers=headers or {}, encode_chunked=True)
        else:
            conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        return Response(r.status, r.getheaders(), data, time.monotonic() - start)
    finally:
        if own:
            conn.close()


def run_threads(count, target):
    """Runs target(i) on COUNT threads; returns their results, re-raising the first failure."""
    results = [None] * count
    errors = []

    def run(i):
        try:
            results[i] = target(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


# --- how a server is given models and limits ----------------------------------------------


class Flavor:
    """wasinn serve's options, or Wasmtime's (`wasmtime serve`) where it has them."""

    def __init__(self, kind):
        self.kind = kind

    @property
    def wasinn(self):
        return self.kind == "wasinn"

    def onnx(self, model_dir):
        """Preloads MODEL_DIR/model.onnx as the graph named after MODEL_DIR (Wasmtime's naming:
        nn-graph=onnx::DIR registers DIR's last component)."""
        name = os.path.basename(os.path.normpath(model_dir))
        if self.wasinn:
            return ["--nn-preload", f"{name}:onnx:cpu:{os.path.join(model_dir, 'model.onnx')}"]
        return ["-S", "nn", "-S", f"nn-graph=onnx::{model_dir}"]

    def single_thread_ort(self):
        return SINGLE_THREAD_ORT if self.wasinn else []

    def need(self, what):
        if not self.wasinn:
            raise Skipped(f"{what}: wasinn serve's, not the peer's")


# --- the cases -----------------------------------------------------------------------------


class Context:
    def __init__(self, args):
        self.args = args
        self.flavor = Flavor(args.flavor)
        self.cmd = shlex.split(args.server) if args.server else [args.wasinn, "serve"]
        self.env = dict(os.environ)
        self.env.pop("WASINN_BACKEND_PATH", None)  # the build's own plugins are under test
        if args.ort_lib_dir:
            self.env["LD_LIBRARY_PATH"] = ":".join(p for p in (args.ort_lib_dir, self.env.get("LD_LIBRARY_PATH")) if p)
        self.fixtures = os.environ.get("WASINN_FIXTURES") or args.fixtures
        self.tmp = tempfile.mkdtemp(prefix="wasinn-serve-test-")

    def component(self, name):
        path = os.path.join(self.args.guests, f"{name}.component.wasm")
        check(os.path.exists(path), f"{path} is missing: build the guest_{name} target")
        return path

    def fixture(self, *parts):
        path = os.path.join(self.fixtures, *parts)
        check(os.path.exists(path), f"fixture {path} is missing: run .deps/venv/bin/python scripts/make_fixtures.py")
        return path

    def server(self, guest, args, cmd=None, flavor=None, name="server"):
        return Server(cmd or self.cmd, args, self.component(guest), env=self.env, name=name)

    def file(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path


def curl(server, path, body_file=None, extra=()):
    """The real curl: POST BODY_FILE (or GET); returns (status, header block, body bytes)."""
    argv = ["curl", "-sS", "--max-time", "120", "-D", "-", "-o", "-", server.url(path)]
    if body_file:
        argv += ["--data-binary", f"@{body_file}", "-H", "content-type: application/octet-stream"]
    argv += list(extra)
    r = subprocess.run(argv, capture_output=True)
    check(r.returncode == 0, f"curl {path} failed ({r.returncode}): {r.stderr.decode(errors='replace')}")
    head, sep, body = r.stdout.partition(b"\r\n\r\n")
    check(sep, f"curl {path}: no header block in {r.stdout[:200]!r}")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode("latin-1"), body


def curl_response(server, path, body_file):
    status, head, body = curl(server, path, body_file)
    headers = [tuple(x.strip() for x in line.split(":", 1)) for line in head.split("\r\n")[1:] if ":" in line]
    return Response(status, headers, body, 0)


def ort_reference(ctx, model, input_file, dims):
    """Native ONNX Runtime's output (tests/serve/ort_reference.cpp), or None without the tool."""
    tool = ctx.args.ort_reference
    if not tool:
        return None
    out = os.path.join(ctx.tmp, "reference.f32")
    r = subprocess.run([tool, model, input_file, ",".join(map(str, dims)), out], capture_output=True, env=ctx.env)
    check(r.returncode == 0, f"ort_reference failed: {r.stderr.decode(errors='replace')}")
    with open(out, "rb") as f:
        return f32_from_bytes(f.read())


def classify_output(response, what):
    check(response.status == 200, f"{what}: expected 200, got {response!r}")
    check(response.headers.get("content-type", "").startswith("application/json"),
          f"{what}: content-type {response.headers.get('content-type')!r}")
    outputs = response.json().get("outputs")
    check(isinstance(outputs, list) and len(outputs) == 1, f"{what}: expected one output, got {response!r}")
    out = outputs[0]
    # %.9g: every float reads back as exactly the float32 the host returned.
    out["data"] = [f32(x) for x in out["data"]]
    return out


def case_classify(ctx):
    tiny_dir, mobilenet_dir = ctx.fixture("tiny"), ctx.fixture("mobilenet_v2")
    args = ctx.flavor.single_thread_ort() + ctx.flavor.onnx(tiny_dir) + ctx.flavor.onnx(mobilenet_dir)
    with ctx.server("http_classify", args) as server:
        # The tiny model, by curl: y = x + [1, 2, 3, 4], checked against native ORT too.
        x = [f32(v) for v in (0.5, -1.0, 1e-7, 3.25)]
        tiny_in = ctx.file("tiny.f32", f32_bytes(x))
        want = [f32(a + b) for a, b in zip(x, TINY_BIAS)]
        native = ort_reference(ctx, os.path.join(tiny_dir, "model.onnx"), tiny_in, (1, 4))
        if native is not None:
            check(native == want, f"native ORT's tiny answer {native} is not x + bias {want}")
        for query in ("dims=1,4", "dims=1,4&input=x"):
            out = classify_output(curl_response(server, f"/infer/tiny?{query}", tiny_in), f"tiny ?{query}")
            check(out["name"] == "y" and out["dims"] == [1, 4] and out["type"] == "fp32", f"tiny: {out}")
            check(out["data"] == want, f"tiny ?{query}: {out['data']} != {want}")
        log("classify: tiny by curl equals x + bias and native ORT")

        # mobilenet_v2: bit for bit native ORT's, and near PyTorch's (the fixture's origin).
        mb_in = ctx.fixture("mobilenet_v2", "input.f32")
        torch = f32_from_bytes(open(ctx.fixture("mobilenet_v2", "expected.f32"), "rb").read())
        native = ort_reference(ctx, os.path.join(mobilenet_dir, "model.onnx"), mb_in, MOBILENET_DIMS)
        for query in ("dims=1,3,224,224", "dims=1,3,224,224&input=input"):
            out = classify_output(curl_response(server, f"/infer/mobilenet_v2?{query}", mb_in), f"mobilenet_v2 ?{query}")
            data = out["data"]
            check(out["dims"] == [1, 1000] and len(data) == 1000, f"mobilenet_v2: dims {out['dims']}")
            if native is not None:
                diff = [i for i in range(1000) if data[i] != native[i]]
                check(not diff, f"mobilenet_v2 ?{query}: {len(diff)} scores differ from native ORT's, "
                                f"first at {diff[:1]}: {data[diff[0]] if diff else ''} vs {native[diff[0]] if diff else ''}")
            scale = max(abs(v) for v in torch)
            worst = max(abs(a - b) for a, b in zip(data, torch))
            check(worst <= 1e-4 * scale, f"mobilenet_v2: max |served - torch| = {worst:g} (max |torch| {scale:g})")
            check(data.index(max(data)) == torch.index(max(torch)), "mobilenet_v2: top class differs from torch's")
        log("classify: mobilenet_v2 by curl equals native ORT" + (" bit for bit" if native else " (no native tool)")
            + " and PyTorch within 1e-4 of its scale")

        # Errors.
        def expect(status, path, body, what, code=None):
            r = request(server, "POST", path, body)
            check(r.status == status, f"{what}: expected {status}, got {r!r}")
            j = r.json()
            check("error" in j, f"{what}: no error field: {r!r}")
            if code:
                check(j.get("code") == code, f"{what}: expected code {code}, got {r!r}")
            return r

        four = f32_bytes(x)
        expect(400, "/infer/tiny?dims=1,5", four, "a body shorter than dims say")
        expect(400, "/infer/tiny", four, "no dims")
        expect(400, "/infer/tiny?dims=1,x", four, "bad dims")
        expect(400, "/classify/tiny?dims=1,4", four, "a path outside /infer/")
        expect(404, "/infer/no-such-graph?dims=1,4", four, "an unknown graph", code="not-found")
        # The client's mistake is a 400 where the host says invalid-argument; Wasmtime's ONNX
        # backend calls an unknown input name a runtime-error, which the guest answers with 500.
        expect(400 if ctx.flavor.wasinn else 500, "/infer/tiny?dims=1,4&input=nope", four, "an input the model lacks",
               code="invalid-argument" if ctx.flavor.wasinn else "runtime-error")
        if ctx.flavor.wasinn:
            expect(400, "/infer/tiny?dims=2,2", four, "a shape the model does not take", code="invalid-argument")
        r = request(server, "GET", "/infer/tiny?dims=1,4")
        check(r.status == 405, f"GET: expected 405, got {r!r}")
        # Still serving after the errors.
        check(classify_output(request(server, "POST", "/infer/tiny?dims=1,4", four), "after errors")["data"] == want,
              "tiny after the errors")
        log("classify: 400 bad path/dims/length and a tensor the graph refuses, 404 unknown graph, 405 GET")


def case_load(ctx, requests=2000, concurrency=16):
    with ctx.server("http_classify", ctx.flavor.onnx(ctx.fixture("tiny"))) as server:
        per_thread = requests // concurrency

        def worker(i):
            rng = random.Random(i)
            conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
            bad = []
            try:
                for k in range(per_thread):
                    x = [f32(rng.uniform(-100, 100)) for _ in range(4)]
                    r = request(server, "POST", "/infer/tiny?dims=1,4", f32_bytes(x), conn=conn)
                    want = [f32(a + b) for a, b in zip(x, TINY_BIAS)]
                    if r.status != 200 or [f32(v) for v in r.json()["outputs"][0]["data"]] != want:
                        bad.append(f"thread {i} request {k}: {r!r}, want {want}")
            finally:
                conn.close()
            return bad

        start = time.monotonic()
        bad = sum(run_threads(concurrency, worker), [])
        elapsed = time.monotonic() - start
        check(not bad, f"{len(bad)} of {per_thread * concurrency} answers wrong, first: {bad[:3]}")
        log(f"load: {per_thread * concurrency} requests at concurrency {concurrency} in {elapsed:.1f} s "
            f"({per_thread * concurrency / elapsed:.0f}/s), every answer right")


def case_trap(ctx):
    with ctx.server("http_faults", []) as server:
        traps = []

        def ok_worker(i):
            conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
            try:
                return [request(server, "GET", "/ok", conn=conn) for _ in range(25)]
            finally:
                conn.close()

        def trap_worker():
            for _ in range(5):
                traps.append(request(server, "GET", "/trap"))
                time.sleep(0.02)

        t = threading.Thread(target=trap_worker)
        t.start()
        oks = sum(run_threads(8, ok_worker), [])
        t.join()
        check(len(traps) == 5 and all(r.status == 500 for r in traps), f"/trap answers: {traps}")
        wrong = [r for r in oks if r.status != 200 or r.body != b"ok"]
        check(not wrong, f"{len(wrong)} of {len(oks)} concurrent /ok went wrong: {wrong[:3]}")
        check(request(server, "GET", "/ok").status == 200, "/ok after the traps")
        log(f"faults.trap: 5 traps answered 500, {len(oks)} concurrent /ok all 200")


def case_spin(ctx):
    timeout_args = ["--request-timeout", "500ms"] if ctx.flavor.wasinn else ["-W", "timeout=500ms"]
    want = 504 if ctx.flavor.wasinn else 500  # Wasmtime answers a -W timeout with 500
    with ctx.server("http_faults", timeout_args) as server:
        result = {}
        t = threading.Thread(target=lambda: result.update(r=request(server, "GET", "/spin")))
        t.start()
        time.sleep(0.1)
        during = [request(server, "GET", "/ok") for _ in range(5)]
        t.join(30)
        r = result.get("r")
        check(r is not None, "/spin got no answer within 30 s")
        check(r.status == want, f"/spin: expected {want}, got {r!r}")
        check(r.elapsed < 2.5, f"/spin answered after {r.elapsed:.2f} s, not within ~2 s of a 500 ms timeout")
        check(all(x.status == 200 for x in during), f"/ok while /spin ran: {during}")
        after = [request(server, "GET", "/ok") for _ in range(10)]
        check(all(x.status == 200 and x.body == b"ok" for x in after), f"/ok after /spin: {after}")
        log(f"faults.spin: {want} after {r.elapsed:.2f} s; /ok fine during and after")
    if not ctx.flavor.wasinn:
        return
    # One worker: the /ok after the 504 is answered only if the spinning instance was stopped.
    with ctx.server("http_faults", timeout_args + ["--workers", "1"]) as server:
        r = request(server, "GET", "/spin")
        check(r.status == 504, f"/spin with one worker: expected 504, got {r!r}")
        nxt = request(server, "GET", "/ok", timeout=10)
        check(nxt.status == 200 and nxt.elapsed < 1.0,
              f"/ok after the 504 with one worker: {nxt!r} in {nxt.elapsed:.2f} s (was the guest stopped?)")
        log(f"faults.spin: with one worker, /ok after the 504 in {nxt.elapsed * 1000:.0f} ms: the guest was stopped")


def case_durations(ctx):
    # One rule for every duration flag (docs/cli.md, "Durations"): a number alone is seconds.
    ctx.flavor.need("--request-timeout")
    for value, low, high in (("1", 0.95, 2.5), ("1s", 0.95, 2.5), ("200ms", 0.15, 0.9)):
        with ctx.server("http_faults", ["--request-timeout", value]) as server:
            r = request(server, "GET", "/spin")
            check(r.status == 504, f"/spin with --request-timeout {value}: expected 504, got {r!r}")
            check(low <= r.elapsed < high,
                  f"--request-timeout {value}: 504 after {r.elapsed:.2f} s, not within [{low}, {high}) s")
            log(f"faults.durations: --request-timeout {value}: 504 after {r.elapsed:.2f} s")


def case_isolation(ctx):
    # A global the guest counts up: a fresh instance per request answers 1 every time.
    with ctx.server("http_faults", []) as server:
        answers = [request(server, "GET", "/count").body for _ in range(20)]
        answers += [r.body for r in run_threads(8, lambda i: request(server, "GET", "/count"))]
        check(all(a == b"1" for a in answers), f"/count: every request must see a fresh instance, got {answers}")
        log(f"isolation: {len(answers)} requests, each saw a fresh instance (/count answered 1)")


def case_queue(ctx):
    ctx.flavor.need("--workers/--max-queue")
    with ctx.server("http_faults", ["--workers", "1", "--max-queue", "1"]) as server:
        barrier = threading.Barrier(4)

        def sleeper(i):
            barrier.wait()
            return request(server, "GET", "/sleep?ms=1500")

        answers = run_threads(4, sleeper)
        rejected = [r for r in answers if r.status == 503]
        served = [r for r in answers if r.status != 503]
        check(rejected, f"no 503 with 1 worker and a queue of 1 under 4 requests: {answers}")
        check(all("retry-after" in r.headers for r in rejected), f"a 503 without Retry-After: {rejected}")
        check(served and all(r.status == 200 and r.body == b"slept" for r in served), f"the others: {served}")
        check(request(server, "GET", "/ok").status == 200, "/ok after the queue drained")
        log(f"faults.queue: {len(rejected)} x 503 with Retry-After {rejected[0].headers['retry-after']!r}, "
            f"{len(served)} x 200")


def case_body_limit(ctx):
    ctx.flavor.need("--max-request-bytes")
    with ctx.server("http_faults", ["--max-request-bytes", "1024"]) as server:
        r = request(server, "POST", "/ok", b"a" * 1000)
        check(r.status == 200, f"1000 bytes under a 1024 limit: {r!r}")
        r = request(server, "POST", "/ok", b"a" * 2048)
        check(r.status == 413, f"2048 bytes (content-length) over a 1024 limit: expected 413, got {r!r}")
        r = request(server, "POST", "/ok", b"a" * 4096, chunked=True)
        check(r.status == 413, f"4096 bytes (chunked) over a 1024 limit: expected 413, got {r!r}")
        check(request(server, "GET", "/ok").status == 200, "/ok after the 413s")
        log("faults.body-limit: 413 over --max-request-bytes (content-length and chunked), 200 under")


def metrics_url(server):
    """The --metrics-addr URL the server printed (stdout and stderr are read apart: wait for it)."""
    deadline = time.monotonic() + 10
    while True:
        with server.lock:
            url = next((m.group(1) for l in server.lines if (m := re.search(r"metrics at (http://[^\s\"]+/metrics)", l))),
                       None)
        if url or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    check(url is not None, f"no 'metrics at URL' line\n{server.tail()}")
    return url


def case_sigterm(ctx):
    # Wasmtime 48 ends at once on SIGTERM, and on SIGINT answers the requests still waiting for
    # a worker with 500 ("semaphore closed"): nothing to compare with.
    ctx.flavor.need("draining on SIGTERM")
    sig = signal.SIGTERM
    args = ["--workers", "4", "--shutdown-timeout", "10s", "--metrics-addr", "127.0.0.1:0"]
    with ctx.server("http_faults", args) as server:
        result = {}
        threads = [threading.Thread(target=lambda i=i: result.update({i: request(server, "GET", "/sleep?ms=1000")}))
                   for i in range(4)]
        for t in threads:
            t.start()
        # The signal comes once all four are in the server (a loaded machine may take a while).
        url = metrics_url(server)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not re.search(
                r"^wasinn_http_requests_in_flight [4-9]", urllib.request.urlopen(url, timeout=30).read().decode(), re.M):
            time.sleep(0.01)
        server.proc.send_signal(sig)
        time.sleep(0.1)
        try:
            late = request(server, "GET", "/ok", timeout=5)
            check(late.status != 200, f"a new request after {sig.name} was served: {late!r}")
        except OSError:
            pass  # refused: no longer accepting
        for t in threads:
            t.join(30)
        answers = [result.get(i) for i in range(4)]
        check(all(r is not None and r.status == 200 and r.body == b"slept" for r in answers),
              f"requests in flight at {sig.name}: {answers}\n{server.tail()}")
        status = server.wait_exit(15)
        check(status == 0, f"exit status {status} after {sig.name}, not 0\n{server.tail()}")
        log(f"faults.sigterm: 4 requests in flight finished with 200, then exit 0 ({sig.name})")


def wait_in_flight(server, url, n):
    """Waits until the server counts at least N requests in flight (a loaded machine may take a while)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not re.search(
            rf"^wasinn_http_requests_in_flight [{n}-9]", urllib.request.urlopen(url, timeout=30).read().decode(), re.M):
        time.sleep(0.01)


def wait_lines(server, pattern, at_least=1, timeout=10):
    """The lines of the server's output matching PATTERN, once AT_LEAST are in (else those there are
    at the timeout): the output is read on a thread of its own, so a line can come after the
    answer or metric that reports its request."""
    deadline = time.monotonic() + timeout
    while True:
        with server.lock:
            lines = [l for l in server.lines if re.search(pattern, l)]
        if len(lines) >= at_least or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def wait_line(server, pattern, timeout=10):
    """The first line of the server's output matching PATTERN, waiting for it."""
    lines = wait_lines(server, pattern, 1, timeout)
    return lines[0] if lines else None


def case_sigterm_twice(ctx):
    ctx.flavor.need("a second SIGTERM during the drain")
    args = ["--shutdown-timeout", "60s", "--metrics-addr", "127.0.0.1:0"]
    with ctx.server("http_faults", args) as server:
        slow = threading.Thread(target=lambda: request(server, "GET", "/sleep?ms=50000", timeout=90), daemon=True)
        slow.start()
        wait_in_flight(server, metrics_url(server), 1)
        server.proc.send_signal(signal.SIGTERM)
        check(wait_line(server, "finishing the requests in progress"), f"no drain line after SIGTERM\n{server.tail()}")
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        status = server.wait_exit(10)
        took = time.monotonic() - start
        check(status == 1, f"exit status {status} after a second SIGTERM, not 1\n{server.tail()}")
        check(took < 5, f"the second SIGTERM took {took:.1f} s to stop the server (the drain allows 60 s)")
        check(wait_line(server, "SIGTERM again: stopping now"), f"no line saying why it stopped\n{server.tail()}")
        log(f"faults.sigterm-twice: a second SIGTERM ended a 60 s drain in {took:.2f} s, exit 1")


def case_cut(ctx):
    ctx.flavor.need("the log of a request cut at the end of the drain")
    args = ["--shutdown-timeout", "1s", "--metrics-addr", "127.0.0.1:0"]
    with ctx.server("http_faults", args) as server:
        slow = threading.Thread(target=lambda: request(server, "GET", "/sleep?ms=20000", timeout=60), daemon=True)
        slow.start()
        wait_in_flight(server, metrics_url(server), 1)
        server.proc.send_signal(signal.SIGTERM)
        status = server.wait_exit(15)
        check(status == 1, f"exit status {status} after cutting a request, not 1\n{server.tail()}")
        line = wait_line(server, r"GET /sleep\?ms=20000 ")
        check(line and " 503 " in line and "cut by the server" in line and "client left" not in line,
              f"the cut request's access-log line: {line!r}\n{server.tail()}")
        check(wait_line(server, r"1 request\(s\) were still in progress after --shutdown-timeout 1s"),
              f"no line counting the cut request\n{server.tail()}")
        log(f"faults.cut: the request cut at the drain's end is logged as the server's cut: {line}")


def case_healthz(ctx):
    ctx.flavor.need("/healthz and /readyz")
    with ctx.server("http_faults", []) as server:
        for path in ("/healthz", "/readyz"):
            r = request(server, "GET", path)
            check(r.status == 200, f"{path}: expected 200 from the server (the guest answers 404), got {r!r}")
        check(request(server, "GET", "/not-health").status == 404, "the guest's 404 for another path")
        log("faults.healthz: /healthz and /readyz 200 without the guest")


def case_observability(ctx):
    ctx.flavor.need("the access log and --metrics-addr")
    tiny = ctx.fixture("tiny", "model.onnx")
    args = ["--log-format", "json", "--metrics-addr", "127.0.0.1:0", "--nn-preload", f"tiny:onnx:cpu:{tiny}"]
    with ctx.server("http_classify", args) as server:
        x = (0.5, -1.5, 2.25, 8.0)
        check(request(server, "POST", "/infer/tiny?dims=1,4", f32_bytes(x)).status == 200, "the tiny model's answer")
        check(request(server, "GET", "/infer/tiny?dims=1,4").status == 405, "a GET is the guest's 405")
        url = metrics_url(server)
        # The log lines come as requests end.
        deadline = time.monotonic() + 10
        while True:
            with server.lock:
                logged = [json.loads(l) for l in server.err_lines if '"method"' in l]
            if len(logged) >= 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        check(len(logged) >= 2, f"expected two JSON access-log lines\n{server.tail()}")
        first = logged[0]
        for key in ("time", "method", "path", "status", "bytes_in", "bytes_out", "duration_ms"):
            check(key in first, f"the access-log line has no {key}: {first}")
        check((first["method"], first["path"], first["status"], first["bytes_in"]) ==
              ("POST", "/infer/tiny?dims=1,4", 200, 16), f"the first access-log line: {first}")
        check(logged[1]["status"] == 405, f"the second access-log line: {logged[1]}")
        text = subprocess.run(["curl", "-s", "--fail", url], capture_output=True, text=True, check=True).stdout
        for want in ('wasinn_http_requests_total{code="200"} 1', 'wasinn_http_requests_total{code="405"} 1',
                     "wasinn_http_request_duration_seconds_count 2", "wasinn_http_requests_in_flight ",
                     "wasinn_http_requests_rejected_total 0", 'graph="tiny"'):
            check(want in text, f"{want!r} is not in the metrics:\n{text}")
        # The component's one compute: its input and the output compute returned (y, fp32 [1, 4]),
        # 16 bytes each, as a witx guest's set_input and get_output are counted.
        for family in ("wasinn_nn_input_bytes_total", "wasinn_nn_output_bytes_total"):
            check(re.search(family + r'\{[^}]*graph="tiny"[^}]*\} 16\n', text),
                  f"{family} of the tiny graph is not 16:\n{text}")
        log("observability: JSON access-log lines and the request and wasi-nn metrics (the component's bytes in and "
            "out) on --metrics-addr")


def case_json_log(ctx):
    ctx.flavor.need("--log-format json")
    with ctx.server("http_faults", ["--log-format", "json", "--metrics-addr", "127.0.0.1:0"]) as server:
        check(request(server, "GET", "/ok").status == 200, "/ok")
        check(request(server, "GET", "/stderr").status == 200, "the guest's line on its stderr")
        check(request(server, "GET", "/trap").status == 500, "a trap's 500")
        server.proc.send_signal(signal.SIGTERM)
        check(server.wait_exit(30) == 0, f"exit after SIGTERM\n{server.tail()}")
        time.sleep(0.2)  # the reader threads' last lines
        with server.lock:
            err_lines = list(server.err_lines)
        objects = []
        for line in err_lines:
            try:
                objects.append(json.loads(line))
            except ValueError:
                raise Failure(f"a stderr line that is not JSON under --log-format json: {line!r}")
            check(isinstance(objects[-1], dict) and {"time", "level", "message"} <= objects[-1].keys(),
                  f"a stderr line without time, level and message: {line!r}")
        messages = [o["message"] for o in objects]
        for want in ("Serving HTTP on http://", "metrics at http://", "http_faults: a line on stderr", "SIGTERM: "):
            check(any(m.startswith(want) for m in messages), f"no JSON line whose message starts {want!r}: {messages}")
        guest = next(o for o in objects if o["message"] == "http_faults: a line on stderr")
        check(guest.get("source") == "stderr", f"the guest's line is not marked as raw stderr: {guest}")
        trap = next((o for o in objects if o.get("path") == "/trap"), None)
        check(trap and trap["level"] == "warning" and trap["status"] == 500 and trap.get("note"),
              f"the trap's access-log line: {trap}")
    # Its usage errors too.
    bad = subprocess.run(ctx.cmd + ["--log-format", "json", "--workers", "x", ctx.component("http_faults")],
                         capture_output=True, text=True, env=ctx.env)
    check(bad.returncode == 2, f"--workers x: exit {bad.returncode}, not 2: {bad.stderr}")
    err = json.loads(bad.stderr)
    check(err["level"] == "error" and "--workers" in err["message"], f"--workers x: {bad.stderr}")
    log(f"json-log: all {len(objects)} stderr lines are JSON objects (start, access lines, the guest's own stderr, "
        "the trap's warning, stop) and so is a usage error")


def case_http2(ctx):
    ctx.flavor.need("HTTP/2 with prior knowledge")
    tiny = ctx.fixture("tiny", "model.onnx")
    x = (0.5, -1.5, 2.25, 8.0)
    body = ctx.file("x.f32", f32_bytes(x))
    with ctx.server("http_classify", ["--nn-preload", f"tiny:onnx:cpu:{tiny}"]) as server:
        for proto, flag in (("2", "--http2-prior-knowledge"), ("1.1", "--http1.1")):
            r = subprocess.run(["curl", "-s", flag, "-w", "\n%{http_version} %{http_code}", "--data-binary",
                                f"@{body}", server.url("/infer/tiny?dims=1,4")], capture_output=True, text=True)
            answer, _, status = r.stdout.rpartition("\n")
            check(status == f"{proto} 200", f"curl {flag}: expected HTTP/{proto} 200, got {status!r} ({r.stderr})")
            got = json.loads(answer)["outputs"][0]["data"]
            check(got == [f32(v + b) for v, b in zip(x, TINY_BIAS)], f"curl {flag}: {got}")
        log("http2: the same answer over HTTP/2 (prior knowledge) and HTTP/1.1")


def case_chat(ctx):
    ctx.flavor.need("the ggml backend")
    backend_dir = ctx.args.backend_dir
    if backend_dir and not os.path.exists(os.path.join(backend_dir, "llamacpp.json")):
        raise Skipped(f"the llamacpp backend is not built ({backend_dir}/llamacpp.json)")
    gguf = ctx.fixture("llama", "tiny.gguf")
    prompt, n = "Once upon a time", 24
    config = json.dumps({"n-predict": n, "ctx-size": 1024, "temp": 0})
    ref = subprocess.run([ctx.args.wasinn, "run", "--nn-preload", f"default:ggml:cpu:{gguf}",
                          ctx.component("wit_chat"), "--config", config, prompt], capture_output=True, env=ctx.env)
    check(ref.returncode == 0, f"the reference (wasinn run wit_chat) failed: {ref.stderr.decode(errors='replace')}")
    want = ref.stdout  # bytes: a token may end inside a UTF-8 character
    check(want.endswith(b"\n") and len(want) > 10, f"the reference's answer: {want!r}")
    want = want[:-1]  # wit_chat ends its answer with a newline
    with ctx.server("http_chat", ["--nn-preload", f"default:ggml:cpu:{gguf}"]) as server:
        body_file = ctx.file("prompt.txt", prompt.encode())
        for path in (f"/?n={n}&temp=0", f"/chat/default?n={n}&temp=0"):
            # --raw: curl hands over the chunked framing as it came.
            status, head, raw = curl(server, path, body_file, extra=["--raw", "-H", "content-type: text/plain"])
            check(status == 200, f"POST {path}: {status}\n{head}{raw[:300]!r}")
            check(re.search(r"(?im)^transfer-encoding:\s*chunked", head), f"POST {path}: not chunked:\n{head}")
            check(not re.search(r"(?im)^content-length:", head), f"POST {path}: has a content-length:\n{head}")
            chunks, rest = [], raw
            while True:
                size_line, _, rest = rest.partition(b"\r\n")
                size = int(size_line.split(b";")[0], 16)
                if size == 0:
                    break
                chunks.append(rest[:size])
                rest = rest[size + 2:]
            text = b"".join(chunks)
            check(text == want, f"POST {path}: the served answer differs from wasinn run wit_chat's:\n"
                                f"served: {text!r}\nwant:   {want!r}")
            # http_chat writes a word at a time, each flushed: the host sends them as they come.
            if len(want.split()) >= 2:
                check(len(chunks) >= 2, f"POST {path}: {len(want.split())} words came in one chunk")
            log(f"chat: {path} answered in {len(chunks)} chunks, the same {len(text)} bytes as wasinn run wit_chat")
        r = request(server, "POST", "/chat/no-such-graph", b"hi")
        check(r.status == 404, f"an unknown graph: {r!r}")


def case_rss(ctx, total=10000, concurrency=8):
    with ctx.server("http_faults", []) as server:
        def batch(count):
            def worker(i):
                conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
                try:
                    return sum(request(server, "GET", "/ok", conn=conn).status != 200 for _ in range(count // concurrency))
                finally:
                    conn.close()
            bad = sum(run_threads(concurrency, worker))
            check(bad == 0, f"{bad} of {count} /ok requests were not 200")

        batch(total // 2)
        first = server.rss_kb()
        batch(total // 2)
        second = server.rss_kb()
        growth = (second - first) / first
        check(growth < 0.10, f"VmRSS grew {growth:.1%} over the last {total // 2} requests: {first} -> {second} kB")
        log(f"rss: VmRSS {first} kB after {total // 2} requests, {second} kB after {total} ({growth:+.1%})")


# --- on a network: keys, slow clients, the default address, the access log -------------------


def json_lines(server, pattern):
    """The server's JSON stderr lines (--log-format json) whose text matches PATTERN."""
    with server.lock:
        lines = [l for l in server.err_lines if re.search(pattern, l)]
    return [json.loads(l) for l in lines]


def case_auth(ctx):
    ctx.flavor.need("--api-key")
    keys = ctx.file("keys", b"# the team's keys\nsk-file-one\n")
    args = ["--api-key", "sk-flag-secret", "--api-key-file", keys, "--log-format", "json"]
    with ctx.server("http_faults", args) as server:
        # The 401's shape, with the real curl: the challenge, OpenAI's error object, the request id.
        for extra, code in (((), "missing_api_key"), (("-H", "Authorization: Bearer wrong"), "invalid_api_key")):
            status, head, body = curl(server, "/ok", extra=extra)
            check(status == 401, f"no key / a wrong key: expected 401, got {status} {head}")
            check(re.search(r"(?im)^www-authenticate: Bearer\b", head), f"no 'WWW-Authenticate: Bearer' in {head}")
            check(re.search(r"(?im)^x-request-id: \S+", head), f"no X-Request-Id in {head}")
            check(re.search(r"(?im)^content-type: application/json", head), f"not JSON: {head}")
            err = json.loads(body)["error"]
            check(set(err) >= {"message", "type", "code"} and err["code"] == code,
                  f"the 401's body: {body!r} (expected the code {code})")
        for header in ("Bearer sk-flag-secret", "bearer sk-file-one"):
            r = request(server, "GET", "/ok", headers={"Authorization": header})
            check((r.status, r.body) == (200, b"ok"), f"the right key ({header.split()[0]}): {r!r}")
        # Anthropic's clients send the key as x-api-key; the key once, in one header.
        r = request(server, "GET", "/ok", headers={"x-api-key": "sk-file-one"})
        check((r.status, r.body) == (200, b"ok"), f"the right key as x-api-key: {r!r}")
        check(request(server, "GET", "/ok", headers={"x-api-key": "wrong"}).status == 401, "a wrong x-api-key")
        both = request(server, "GET", "/ok", headers={"x-api-key": "sk-file-one", "Authorization": "Bearer sk-file-one"})
        check(both.status == 400, f"a key in both Authorization and x-api-key: {both!r}")
        for path in ("/healthz", "/readyz"):
            check(request(server, "GET", path).status == 200, f"{path} needs no key")
        # A client's X-Request-Id is echoed; a server-made one otherwise.
        r = request(server, "GET", "/ok", headers={"Authorization": "Bearer sk-flag-secret", "X-Request-Id": "req-42"})
        check(r.headers.get("x-request-id") == "req-42", f"X-Request-Id not echoed: {r.headers}")
        # SIGHUP rereads the file: its new key in, its old one out, the flag's kept.
        with open(keys, "w") as f:
            f.write("sk-file-two\n")
        server.proc.send_signal(signal.SIGHUP)
        check(wait_line(server, r"SIGHUP: 2 API key\(s\) in use"), f"no line for the reread keys\n{server.tail()}")
        check(request(server, "GET", "/ok", headers={"Authorization": "Bearer sk-file-two"}).status == 200,
              "the reread file's new key")
        check(request(server, "GET", "/ok", headers={"Authorization": "Bearer sk-file-one"}).status == 401,
              "the reread file's old key")
        check(request(server, "GET", "/ok", headers={"Authorization": "Bearer sk-flag-secret"}).status == 200,
              "the flag's key after the reread")
        # Every /ok's access line is in (written in batches) before the log is searched for keys.
        wait_lines(server, r'"path":"/ok"', 8)
        with server.lock:
            everything = "\n".join(server.lines)
        for secret in ("sk-flag-secret", "sk-file-one", "sk-file-two"):
            check(secret not in everything, f"the key {secret!r} is in the server's output\n{server.tail()}")
        refused = json_lines(server, r'"status":401')
        check(refused and all(l["level"] == "info" for l in refused),
              f"the 401s' access-log lines are not at info: {refused}")
        req42 = json_lines(server, r'"request_id":"req-42"')
        check(req42 and req42[0]["client"].startswith("127.0.0.1:") and req42[0]["outcome"] == "completed",
              f"the access-log line of the request req-42: {req42}")
    log("network.auth: 401 with the Bearer challenge and a JSON error without or with a wrong key (curl), 200 with "
        "either key (as Authorization: Bearer or x-api-key, 400 with both), health open, the file reread on SIGHUP, "
        "no key in the log")


def case_bad_keys(ctx):
    ctx.flavor.need("--api-key-file")
    empty = ctx.file("empty-keys", b"# no key here\n")
    spaced = ctx.file("spaced-keys", b"a key with spaces\n")
    component = ctx.component("http_faults")
    for given, want in ((["--api-key-file", "/nonexistent/keys"], "--api-key-file /nonexistent/keys: cannot read it"),
                        (["--api-key-file", empty], f"--api-key-file {empty}: holds no key"),
                        (["--api-key-file", spaced], f"--api-key-file {spaced} line 1: an API key may not contain"),
                        (["--api-key", ""], "--api-key: an API key may not be empty")):
        r = subprocess.run(ctx.cmd + ["--addr", "127.0.0.1:0"] + given + [component], capture_output=True, text=True,
                           env=ctx.env, timeout=60)
        check(r.returncode != 0 and want in r.stderr and "Serving HTTP" not in r.stderr,
              f"{given}: exit {r.returncode}, expected an error with {want!r}:\n{r.stderr}")
        check("a key with spaces" not in r.stderr, f"the key is repeated in the error: {r.stderr}")
    # The config file's keys are the flags' (docs/cli.md, "Config file").
    config = ctx.file("serve.toml", f'api-key-file = ["{empty}"]\n'.encode())
    r = subprocess.run(ctx.cmd + ["--config", config, "--addr", "127.0.0.1:0", component], capture_output=True, text=True,
                       env=ctx.env, timeout=60)
    check(r.returncode != 0 and f"--api-key-file {empty}: holds no key" in r.stderr,
          f"api-key-file in the config file: exit {r.returncode}:\n{r.stderr}")
    log("network.bad-keys: a missing, empty or malformed key file and an empty key stop the start, naming the file; "
        "api-key-file in the config file too")


def open_raw(server, first_bytes=b""):
    s = socket.create_connection((server.host, server.port), timeout=30)
    if first_bytes:
        s.sendall(first_bytes)
    return s


def closed_within(socks, seconds):
    """How many of SOCKS the server closed within SECONDS (each read until its end)."""
    pending = set(socks)
    deadline = time.monotonic() + seconds
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select(list(pending), [], [], 0.2)
        for s in ready:
            try:
                if not s.recv(65536):
                    pending.discard(s)
            except OSError:
                pending.discard(s)
    return len(socks) - len(pending)


def case_slow_clients(ctx):
    ctx.flavor.need("--header-timeout and --max-connections")
    args = ["--header-timeout", "2s", "--metrics-addr", "127.0.0.1:0"]
    with ctx.server("http_faults", args) as server:
        url = metrics_url(server)
        # 400 connections that send half a request line and stop.
        slow = [open_raw(server, b"GET /ok HT") for _ in range(400)]
        started = time.monotonic()
        r = request(server, "GET", "/ok", timeout=10)
        took = time.monotonic() - started
        check((r.status, r.body) == (200, b"ok") and took < 1.0,
              f"a normal request beside 400 slow ones: {r!r} in {took:.2f} s (want under 1 s)")
        closed = closed_within(slow, 2 + 5)
        waited = time.monotonic() - started
        for s in slow:
            s.close()
        check(closed == 400, f"{closed} of the 400 half-sent connections closed within --header-timeout 2s + 5 s")
        # A body that trickles slower than 1 KiB/s past the header timeout is cut with 408.
        s = open_raw(server, b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        body_start = time.monotonic()
        answer = b""
        s.settimeout(0.5)
        while time.monotonic() - body_start < 15 and b"\r\n\r\n" not in answer:
            try:
                s.sendall(b"x" * 8)
            except OSError:
                pass
            try:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
            except socket.timeout:
                pass
        s.close()
        cut_after = time.monotonic() - body_start
        check(answer.startswith(b"HTTP/1.1 408") and cut_after < 6,
              f"a trickled body: {answer[:200]!r} after {cut_after:.1f} s (want a 408 after about 2 s)")
        line = wait_line(server, r"POST /ok 408 .*cut:timeout")
        check(line, f"no access-log line of the 408 saying cut:timeout\n{server.tail()}")
        # A flood of headers is refused by hyper's limits (431 or the connection closed), not read on.
        flood = open_raw(server, b"GET /ok HTTP/1.1\r\nHost: x\r\n" +
                         b"".join(b"X-Flood-%d: %s\r\n" % (i, b"y" * 100) for i in range(5000)) + b"\r\n")
        flood.settimeout(5)
        try:
            head = flood.recv(65536)
        except OSError:
            head = b""
        flood.close()
        check(head == b"" or head.startswith(b"HTTP/1.1 431"), f"5,000 headers: {head[:80]!r}")
        check(request(server, "GET", "/ok", timeout=10).status == 200, "an answer after the header flood")
    with ctx.server("http_faults", ["--max-connections", "10", "--header-timeout", "60s", "--metrics-addr",
                                    "127.0.0.1:0"]) as server:
        url = metrics_url(server)
        idle = [open_raw(server) for _ in range(10)]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "wasinn_http_connections_open 10" not in \
                urllib.request.urlopen(url, timeout=10).read().decode():
            time.sleep(0.05)
        extra = open_raw(server)
        refused_at_once = closed_within([extra], 2) == 1
        extra.close()
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        check(refused_at_once and re.search(r"^wasinn_http_connections_refused_total [1-9]", text, re.M),
              f"the 11th connection past --max-connections 10: closed at once {refused_at_once}\n{text}")
        for s in idle:
            s.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if request(server, "GET", "/ok", timeout=5).status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise Failure("no answer once the 10 idle connections closed")
    log(f"network.slow-clients: beside 400 half-sent request lines an /ok took {took * 1000:.0f} ms, the 400 were "
        f"closed {waited:.1f} s after (--header-timeout 2s); a trickled body got 408 after {cut_after:.1f} s; the "
        f"11th connection past --max-connections 10 was closed at once and counted")


def own_addresses():
    """This machine's non-loopback IPv4 addresses (`ip -4 addr`)."""
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return []
    found = re.findall(r"\binet (\d+\.\d+\.\d+\.\d+)/", out)
    return [a for a in found if not a.startswith("127.")]


def case_address_space(ctx):
    ctx.flavor.need("the pooling allocator's address-space check")
    component = ctx.component("http_faults")
    # 1 TiB: less than the pooling allocator's reservation (about 4 TiB), which once aborted serve.
    limited = ["prlimit", f"--as={1 << 40}"] + ctx.cmd
    r = subprocess.run(limited + ["--addr", "127.0.0.1:0", component], capture_output=True, text=True, env=ctx.env,
                       timeout=60)
    check(r.returncode == 1 and "ulimit -v" in r.stderr and "-O pooling-allocator=n" in r.stderr
          and "panicked" not in r.stderr and "Serving HTTP" not in r.stderr,
          f"serve under ulimit -v 1 TiB: exit {r.returncode}, want 1 and what to do:\n{r.stderr}")
    with Server(limited, ["-O", "pooling-allocator=n"], component, env=ctx.env, name="serve -O pooling-allocator=n") as s:
        r2 = request(s, "GET", "/ok")
        check(r2.status == 200 and r2.body == b"ok", f"/ok under ulimit -v 1 TiB with -O pooling-allocator=n: {r2!r}")
    log(f"address-space: under ulimit -v 1 TiB serve exits 1 with \"{r.stderr.strip().splitlines()[-1][:120]}...\"; "
        "with -O pooling-allocator=n it serves")


def case_default_bind(ctx):
    ctx.flavor.need("the loopback default")
    addresses = own_addresses()
    if not addresses:
        raise Skipped("this machine has no non-loopback IPv4 address to try the default bind from")
    probe = socket.socket()
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", 8080))
    except OSError as e:
        raise Skipped(f"port 8080, the default, is taken here ({e})")
    finally:
        probe.close()
    component = ctx.component("http_faults")
    server = Server(ctx.cmd, [], component, env=ctx.env, name="wasinn serve (no --addr)")
    server.argv = list(ctx.cmd) + [component]  # no --addr: the default
    with server:
        check((server.host, server.port) == ("127.0.0.1", 8080), f"listens on {server.host}:{server.port}")
        check(request(server, "GET", "/ok").status == 200, "the loopback address answers")
        for a in addresses:
            try:
                socket.create_connection((a, 8080), timeout=5).close()
                reached = True
            except OSError:
                reached = False
            check(not reached, f"the default address is reachable on {a}:8080")
        time.sleep(0.2)
        with server.lock:
            warned = any("reachable from other machines" in l for l in server.lines)
        check(not warned, f"a warning on loopback\n{server.tail()}")
    # Every interface without a key: exactly one line says so; with a key, none.
    for extra, want in (([], 1), (["--api-key", "k"], 0)):
        s = Server(ctx.cmd, extra, component, env=ctx.env, name="wasinn serve --addr 0.0.0.0:0")
        s.argv = list(ctx.cmd) + ["--addr", "0.0.0.0:0"] + extra + [component]
        with s:
            time.sleep(0.2)
            with s.lock:
                warned = [l for l in s.lines if "reachable from other machines" in l]
            check(len(warned) == want, f"--addr 0.0.0.0:0 {extra}: {len(warned)} warning lines, want {want}\n{s.tail()}")
    log(f"network.default-bind: no --addr listens on 127.0.0.1:8080, refused on {', '.join(addresses)}; 0.0.0.0 "
        f"without a key warns once, with one not at all")


def case_access_log(ctx):
    ctx.flavor.need("the access log's outcome")
    by_path = {}

    def logged(server, last):
        wait_line(server, f'"path":"{re.escape(last)}"')
        for l in json_lines(server, r'"method"'):
            by_path.setdefault(l["path"], l)

    with ctx.server("http_faults", ["--log-format", "json", "--request-timeout", "500ms"]) as server:
        check(request(server, "GET", "/spin", headers={"User-Agent": "wasinn-test/1"}).status == 504, "/spin's 504")
        logged(server, "/spin")
    args = ["--log-format", "json", "--shutdown-timeout", "1s", "--metrics-addr", "127.0.0.1:0"]
    with ctx.server("http_faults", args) as server:
        url = metrics_url(server)
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        conn.request("GET", "/sleep?ms=3000")
        time.sleep(0.5)
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
        # The request whose client left is logged (its end) before the drain's request starts, so
        # the one in flight below is the drain's: counted with the other, SIGTERM could come
        # before the server took the drain's request at all (1 run in 7 here).
        wait_line(server, r'"path":"/sleep\?ms=3000"')
        slow = threading.Thread(target=lambda: request(server, "GET", "/sleep?ms=20000", timeout=60), daemon=True)
        slow.start()
        wait_in_flight(server, url, 1)
        server.proc.send_signal(signal.SIGTERM)
        server.wait_exit(15)
        logged(server, "/sleep?ms=20000")  # the reader thread may lag the exit
    want = {"/spin": ("cut:timeout", 504), "/sleep?ms=3000": ("cut:client-left", 499),
            "/sleep?ms=20000": ("cut:shutdown", 503)}
    for path, (outcome, status) in want.items():
        got = by_path.get(path)
        check(got and (got["outcome"], got["status"]) == (outcome, status), f"{path}: expected {outcome} {status}, "
              f"logged {got}")
        check(got["client"].startswith("127.0.0.1:") and got["request_id"], f"{path}: client and id in {got}")
    check(by_path["/spin"].get("user_agent") == "wasinn-test/1", f"the user agent: {by_path['/spin']}")
    check(by_path["/sleep?ms=3000"]["level"] == "info", f"a client that left is not a warning: {by_path}")
    log("network.access-log: a request timeout, a client that left and the drain's cut each log their outcome, "
        "with the client's address, a request id and the user agent")

def case_access_log_batches(ctx):
    ctx.flavor.need("--log-flush-interval")
    interval = 5  # s: far from the seconds a loaded machine takes to answer and read a line
    args = ["--log-flush-interval", f"{interval}s", "--request-timeout", "300ms"]
    with ctx.server("http_faults", args) as server:
        start = time.monotonic()
        check(request(server, "GET", "/ok?first").status == 200, "/ok")
        time.sleep(1)
        check(not wait_lines(server, r"GET /ok\?first 200", 1, timeout=0),
              f"the access line was written before its batch was due\n{server.tail()}")
        check(wait_line(server, r"GET /ok\?first 200", timeout=interval + 10), f"no access line\n{server.tail()}")
        waited = time.monotonic() - start
        check(interval - 1 <= waited, f"the line came after {waited:.1f} s, not after the interval ({interval} s)")
        # A warning writes the lines held before it, then itself, at once.
        start = time.monotonic()
        check(request(server, "GET", "/ok?second").status == 200, "/ok")
        check(request(server, "GET", "/spin").status == 504, "/spin's 504")
        lines = wait_lines(server, r"GET /(ok\?second|spin) ", 2, timeout=interval - 2)
        check(len(lines) == 2 and "/ok?second" in lines[0] and "/spin" in lines[1] and "warning" in lines[1],
              f"after the warning, {time.monotonic() - start:.1f} s: {lines}\n{server.tail()}")
        # SIGTERM's drain and exit write what is held.
        check(request(server, "GET", "/ok?third").status == 200, "/ok")
        server.proc.send_signal(signal.SIGTERM)
        check(server.wait_exit(15) == 0, f"exit after SIGTERM\n{server.tail()}")
        check(wait_line(server, r"GET /ok\?third 200", timeout=5), f"the held line lost at exit\n{server.tail()}")
    bad = subprocess.run(ctx.cmd + ["--log-flush-interval", "11s", ctx.component("http_faults")], capture_output=True,
                         text=True, env=ctx.env)
    check(bad.returncode == 2 and "10s" in bad.stderr, f"--log-flush-interval 11s: exit {bad.returncode}: {bad.stderr}")
    log(f"network.access-log-batches: with --log-flush-interval {interval}s a line waits {waited:.1f} s for its batch, "
        "a warning writes the held lines and itself at once, in order, exit writes the rest; 11s is refused")


def case_tls(ctx):
    ctx.flavor.need("--tls-cert")
    from tls_files import make_tls_files
    f = make_tls_files(os.path.join(ctx.tmp, "tls"))
    tls = ["--tls-cert", f["server.pem"], "--tls-key", f["server.key"]]
    component = ctx.component("http_faults")

    def curl_tls(server, *extra):
        argv = ["curl", "-sS", "--max-time", "30", "--cacert", f["ca.pem"], "-o", "-", "-w", "\n%{http_version}",
                *extra, f"https://127.0.0.1:{server.port}/ok"]
        return subprocess.run(argv, capture_output=True, text=True)

    with ctx.server("http_faults", tls + ["--api-key", "k"]) as server:
        with server.lock:
            https = any("Serving HTTP on https://" in l for l in server.lines)
        check(https, f"no https:// line\n{server.tail()}")
        for flag, version in (("--http2", "2"), ("--http1.1", "1.1")):
            r = curl_tls(server, flag, "-H", "Authorization: Bearer k")
            check(r.returncode == 0 and r.stdout == f"ok\n{version}",
                  f"curl {flag} over TLS: exit {r.returncode}, {r.stdout!r} {r.stderr}")
        r = curl_tls(server, "--http2")
        check(r.returncode == 0 and r.stdout.startswith('{"error"'), f"no key over TLS: {r.stdout!r} {r.stderr}")
        import ssl
        context = ssl.create_default_context(cafile=f["ca.pem"])
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=30)
        conn.request("GET", "/ok", headers={"Authorization": "Bearer k"})
        answer = conn.getresponse()
        check((answer.status, answer.read()) == (200, b"ok"), "Python's ssl and http.client over TLS")
        conn.close()
        # A handshake of garbage is closed, and the server goes on.
        junk = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        junk.sendall(bytes(random.Random(53).randrange(256) for _ in range(4096)))
        check(closed_within([junk], 5) == 1, "a TLS handshake of garbage was not closed")
        junk.close()
        # Plain HTTP to the TLS port fails at once, and the server goes on.
        plain = subprocess.run(["curl", "-sS", "--max-time", "10", f"http://127.0.0.1:{server.port}/ok"],
                               capture_output=True, text=True)
        check(plain.returncode != 0 and plain.returncode != 28, f"plain HTTP to the TLS port: exit {plain.returncode} "
              f"{plain.stdout!r} {plain.stderr}")
        check(curl_tls(server, "-H", "Authorization: Bearer k").stdout.startswith("ok"), "an answer after that")
        # Clients that send half their body and close: the server's answer meets a closed connection,
        # and rustls' writes are writev()s, which cannot ask for no SIGPIPE: before the server's
        # threads blocked it (and the CLI ignored it), the first such client ended the server.
        half = b"POST /ok HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Length: 256\r\n\r\n" + bytes(128)
        for _ in range(20):
            with context.wrap_socket(socket.create_connection(("127.0.0.1", server.port), timeout=30),
                                     server_hostname="127.0.0.1") as tls_client:
                tls_client.sendall(half)
            time.sleep(0.05)
        check(server.proc.poll() is None and curl_tls(server, "-H", "Authorization: Bearer k").stdout.startswith("ok"),
              f"20 TLS clients left mid-body: server exit {server.proc.poll()}\n{server.tail()}")
    # Mutual TLS: no client certificate, no connection; the CA's client certificate, an answer.
    with ctx.server("http_faults", tls + ["--tls-client-ca", f["ca.pem"]]) as server:
        r = curl_tls(server)
        check(r.returncode != 0, f"no client certificate with --tls-client-ca: {r.stdout!r}")
        r = curl_tls(server, "--cert", f["client.pem"], "--key", f["client.key"])
        check(r.returncode == 0 and r.stdout.startswith("ok"), f"the client certificate: {r.stdout!r} {r.stderr}")
    # Bad files stop the start, naming the file.
    for given, want in ((["--tls-cert", "/nonexistent/cert.pem", "--tls-key", f["server.key"]], "/nonexistent/cert.pem"),
                        (["--tls-cert", f["garbage.pem"], "--tls-key", f["server.key"]], f["garbage.pem"]),
                        (["--tls-cert", f["server.pem"], "--tls-key", f["other.key"]], "does not go with"),
                        (["--tls-cert", f["server.pem"], "--tls-key", f["ca.pem"]], f["ca.pem"]),
                        (["--tls-cert", f["server.pem"]], "--tls-cert needs --tls-key"),
                        (["--tls-client-ca", f["ca.pem"]], "--tls-client-ca needs --tls-cert")):
        r = subprocess.run(ctx.cmd + ["--addr", "127.0.0.1:0"] + given + [component], capture_output=True, text=True,
                           env=ctx.env, timeout=60)
        check(r.returncode != 0 and want in r.stderr and "Serving HTTP" not in r.stderr,
              f"{given}: exit {r.returncode}, expected an error with {want!r}:\n{r.stderr}")
    log("network.tls: HTTPS with a CA made by openssl: HTTP/2 and HTTP/1.1 by ALPN (curl), Python's ssl; plain HTTP "
        "to the port fails; mutual TLS; bad, garbage and mismatched files stop the start naming them")


def find_peer(args):
    if getattr(args, "peer", None):
        return args.peer if os.path.exists(args.peer) else None
    home = os.path.expanduser("~/.cache/wasinn/peers")
    # scripts/bench-peers.sh's copies (keyed by version and manifest; the newest built), else
    # cargo's own output.
    found = glob.glob(os.path.join(home, "wasmtime-*", "bin", "wasmtime"))
    found = found or glob.glob(os.path.join(home, "wasmtime-*-target", "release", "wasmtime"))
    return max(found, key=os.path.getmtime) if found else None


def case_peer(ctx):
    peer = find_peer(ctx.args)
    if not peer:
        raise Skipped("no Wasmtime CLI with serve (scripts/bench-peers.sh --build-only builds it into ~/.cache/wasinn/peers; "
                      "or give --peer PATH)")
    tiny_dir, mobilenet_dir = ctx.fixture("tiny"), ctx.fixture("mobilenet_v2")
    x = f32_bytes([0.25, -7.5, 1e-3, 1e6])
    mb = open(ctx.fixture("mobilenet_v2", "input.f32"), "rb").read()
    requests = [("/infer/tiny?dims=1,4", x), ("/infer/tiny?dims=1,4&input=x", x),
                ("/infer/mobilenet_v2?dims=1,3,224,224", mb), ("/infer/mobilenet_v2?dims=1,3,224,224&input=input", mb),
                ("/infer/no-such-graph?dims=1,4", x), ("/infer/tiny?dims=1,5", x), ("/infer/tiny?dims=1,4&input=nope", x)]
    answers = {}
    this, wasmtime = ctx.flavor, Flavor("wasmtime")
    # The peer's CLI is built without the pooling allocator, which serve would otherwise ask for.
    runs = [("wasinn" if this.wasinn else "server", ctx.cmd, this.single_thread_ort() + this.onnx(tiny_dir) + this.onnx(mobilenet_dir)),
            ("wasmtime", [peer, "serve", "-O", "pooling-allocator=n"], wasmtime.onnx(tiny_dir) + wasmtime.onnx(mobilenet_dir))]
    for name, cmd, args in runs:
        with ctx.server("http_classify", args, cmd=cmd, name=name) as server:
            answers[name] = [request(server, "POST", path, body) for path, body in requests]
    for (path, _), a, b in zip(requests, answers[runs[0][0]], answers["wasmtime"]):
        if a.status != b.status:
            # The one known difference: an input the model lacks is the client's mistake on wasinn
            # (invalid-argument, 400) and a runtime-error on Wasmtime's ONNX backend (500).
            codes = (a.json().get("code"), b.json().get("code"))
            check((a.status, b.status, codes) == (400, 500, ("invalid-argument", "runtime-error")),
                  f"{path}: wasinn {a!r}, wasmtime {b!r}")
            log(f"peer: {path} -> wasinn 400 invalid-argument, wasmtime 500 runtime-error (its backend's code)")
            continue
        if a.status == 200:
            check(a.body == b.body, f"{path}: the answers differ\nwasinn:   {a.body[:300]!r}\nwasmtime: {b.body[:300]!r}")
            log(f"peer: {path} -> 200 on both, the same bytes")
        else:
            # Each host words its errors its own way, and codes may differ: Wasmtime's ONNX backend
            # calls an unknown input a runtime-error where wasinn says invalid-argument.
            codes = (a.json().get("code"), b.json().get("code"))
            if a.status == 404:
                check(codes == ("not-found", "not-found"), f"{path}: codes {codes}")
            log(f"peer: {path} -> {a.status} on both (codes: wasinn {codes[0]}, wasmtime {codes[1]})")


CASES = {
    "classify": case_classify,
    "load": case_load,
    "faults.trap": case_trap,
    "faults.spin": case_spin,
    "faults.durations": case_durations,
    "faults.queue": case_queue,
    "faults.body-limit": case_body_limit,
    "faults.sigterm": case_sigterm,
    "faults.sigterm-twice": case_sigterm_twice,
    "faults.cut": case_cut,
    "faults.healthz": case_healthz,
    "isolation": case_isolation,
    "observability": case_observability,
    "json-log": case_json_log,
    "http2": case_http2,
    "chat": case_chat,
    "rss": case_rss,
    "peer": case_peer,
    "network.auth": case_auth,
    "network.bad-keys": case_bad_keys,
    "network.slow-clients": case_slow_clients,
    "network.default-bind": case_default_bind,
    "address-space": case_address_space,
    "network.access-log": case_access_log,
    "network.access-log-batches": case_access_log_batches,
    "network.tls": case_tls,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--case", required=True, choices=sorted(CASES) + ["all"])
    p.add_argument("--wasinn", required=True, help="the wasinn binary (serve, and run for the chat reference)")
    p.add_argument("--guests", required=True, help="the build's guests directory (*.component.wasm)")
    p.add_argument("--fixtures", default=os.path.expanduser("~/.cache/wasinn/fixtures"),
                   help="fixtures (WASINN_FIXTURES overrides)")
    p.add_argument("--backend-dir", help="the build's backend plugins (chat skips without llamacpp.json)")
    p.add_argument("--ort-reference", help="tests/serve/ort_reference (native ONNX Runtime)")
    p.add_argument("--ort-lib-dir", help="ONNX Runtime's lib directory (LD_LIBRARY_PATH for the peer)")
    p.add_argument("--server", help="the server command instead of 'WASINN serve' (shell words)")
    p.add_argument("--flavor", choices=["wasinn", "wasmtime"], default="wasinn",
                   help="whose options --server takes (default wasinn)")
    p.add_argument("--peer", help="Wasmtime's CLI for the peer case (default: the newest in ~/.cache/wasinn/peers)")
    args = p.parse_args()
    ctx = Context(args)
    names = sorted(CASES) if args.case == "all" else [args.case]
    status = run_cases(CASES, names, ctx)
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
