#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve` against `wasmtime serve`: one wasi:http component (guest http_classify, or with --p3
the wasi:http@0.3.0 service p3_http_spec, scripts/bench-p3.sh), the
same model flags (-S nn -S nn-graph=onnx::DIR, which both hosts take), the same client (wrk, with
--latency), concurrency 1, 8 and 32, the hosts taking turns within each level. Reports requests
per second and p50/p99 latency per host and their ratios, checks first that both answer the same
as the native framework (the fixture's expected output), and counts non-2xx answers.

Called by scripts/bench-peers.sh (see there); usable alone:
  bench_serve.py --wasinn BIN --wasmtime BIN --guest http_classify.component.wasm
                 --fixtures DIR --onnxruntime-libs DIR [--seconds 5] [--rounds 2] [--doc FILE]
"""
import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CONCURRENCY = (1, 8, 32)
MODELS = {
    # key: (graph dir under the fixtures, dims, input file or None for a generated one, expected file or None)
    "tiny": ("tiny", "1,4", None, None),
    "mobilenet_v2": ("mobilenet_v2", "1,3,224,224", "mobilenet_v2/input.f32", "mobilenet_v2/expected.f32"),
}
TINY_INPUT = np.array([0.5, -1.5, 2.25, 8.0], dtype=np.float32)
# With --p3, requests that need no model (p3_http's own routes): key -> (path, body bytes). The
# echo's body is random, so each host's answer is checked byte for byte.
NO_MODEL = {
    "hello": ("/hello", 0),
    "echo10m": ("/echo", 10 << 20),
}

LUA = """
wrk.method = "POST"
local f = assert(io.open(os.getenv("WASINN_BENCH_BODY"), "rb"))
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One host serving the guest with a graph dir, on a port of its own."""

    def __init__(self, name, argv, env, log):
        self.name, self.port = name, free_port()
        argv = [a.replace("{ADDR}", f"127.0.0.1:{self.port}") for a in argv]
        self.proc = subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {self.proc.returncode} at start: {' '.join(argv)}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{name} did not listen within 120 s")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def post(url, body_file):
    """curl's answer: it reads the answer while it sends (urllib sends the whole body first, and a
    streamed 10 MiB /echo then fills both sides' socket buffers on every host: a stall)."""
    r = subprocess.run(["curl", "-sS", "--max-time", "120", "-H", "Content-Type: application/octet-stream",
                        "--data-binary", f"@{body_file}", "-o", "-", "-w", "%{http_code}", url],
                       capture_output=True, check=True)
    return int(r.stdout[-3:]), r.stdout[:-3]


def scores(answer):
    doc = json.loads(answer)
    return np.array(doc["outputs"][0]["data"], dtype=np.float32)


def parse_wrk(text):
    def seconds(v, unit):
        return float(v) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]

    out = {}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    out["rps"] = float(m.group(1)) if m else 0.0
    for pct in ("50", "99"):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
        out[f"p{pct}"] = seconds(*m.groups()) if m else float("nan")
    m = re.search(r"(\d+) requests in", text)
    out["requests"] = int(m.group(1)) if m else 0
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["non2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    out["socket_errors"] = sum(map(int, m.groups())) if m else 0
    return out


def run_wrk(url, body_file, concurrency, seconds, lua_file):
    threads = min(2, concurrency)
    argv = ["wrk", f"-t{threads}", f"-c{concurrency}", f"-d{seconds}s", "--latency", "--timeout", "30s",
            "-s", str(lua_file), url]
    env = dict(os.environ, WASINN_BENCH_BODY=str(body_file))
    r = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return parse_wrk(r.stdout)


def fmt_ms(s):
    return f"{s * 1e3:.2f} ms" if s == s else "?"


def report(results, meta):
    lines = [
        f"## Serving: `wasinn serve` against `wasmtime serve`{meta['title']}",
        "",
        f"Measured by `{meta['script']}` (`scripts/bench_serve.py`) on {meta['date']}: {meta['machine']}. "
        f"One wasi:http component ({meta['guest']}: the request body is the input tensor, the answer the "
        "scores as JSON), the same flags for both hosts (`-S nn -S nn-graph=onnx::DIR`), wrk on the same "
        f"machine (`--latency`, {meta['seconds']} s per round, {meta['rounds']} rounds per host and level, the hosts "
        "taking turns; the median round is reported). Both hosts' answers were checked against the native "
        "framework's before measuring. wasinn runs with its defaults, its access log on (a line per request, "
        "written in batches to the servers' log file, `--log-flush-interval`); Wasmtime logs nothing per "
        "request. Ratios: wasinn / Wasmtime for throughput (above 1: wasinn serves more), "
        "Wasmtime / wasinn for p99 (above 1: wasinn's tail is shorter).",
        "",
        "| model | concurrency | wasinn req/s | Wasmtime req/s | throughput ratio | wasinn p50 / p99 | Wasmtime p50 / p99 | p99 ratio | non-2xx |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        a, b = r["wasinn"], r["wasmtime"]
        ratio = a["rps"] / b["rps"] if b["rps"] else float("inf")
        p99 = b["p99"] / a["p99"] if a["p99"] else float("nan")
        lines.append(
            f"| {r['model']} | {r['concurrency']} | {a['rps']:.1f} | {b['rps']:.1f} | {ratio:.2f} | "
            f"{fmt_ms(a['p50'])} / {fmt_ms(a['p99'])} | {fmt_ms(b['p50'])} / {fmt_ms(b['p99'])} | {p99:.2f} | "
            f"{a['non2xx'] + a['socket_errors']} / {b['non2xx'] + b['socket_errors']} |")
    return "\n".join(lines) + "\n"


def write_doc(doc, section, name):
    text = Path(doc).read_text() if Path(doc).exists() else ""
    start = f"<!-- {name}:begin -->"
    end = f"<!-- {name}:end -->"
    block = f"{start}\n{section}{end}"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    Path(doc).write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wasinn", required=True)
    ap.add_argument("--wasmtime", required=True)
    ap.add_argument("--guest", required=True, help="http_classify.component.wasm")
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--onnxruntime-libs", required=True, help="the ONNX Runtime Wasmtime's CLI links")
    ap.add_argument("--backend-dir", default="", help="wasinn's backend manifests (default: its own lookup)")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--models", default=",".join(MODELS),
                    help=f"of {', '.join(MODELS)}; with --p3 also {', '.join(NO_MODEL)}")
    ap.add_argument("--concurrency", default=",".join(map(str, CONCURRENCY)), help="wrk's connections, e.g. 1,16")
    ap.add_argument("--wasinn-arg", action="append", default=[], help="one more argument for wasinn serve")
    ap.add_argument("--json")
    ap.add_argument("--doc")
    ap.add_argument("--section", default="serve", help="the doc's section (its markers' name)")
    ap.add_argument("--p3", action="store_true", help="the guest is a wasi:http@0.3.0 service (p3_http_spec)")
    args = ap.parse_args()
    fixtures = Path(args.fixtures)
    work = Path(tempfile.mkdtemp(prefix="wasinn-bench-serve-"))
    lua = work / "post.lua"
    lua.write_text(LUA)
    log = open(work / "servers.log", "w")
    results = []
    for model in args.models.split(","):
        body = work / f"{model}.body"
        if model in NO_MODEL:
            path, size = NO_MODEL[model]
            body.write_bytes(os.urandom(size))
            flags = ["-S", "nn"]
        else:
            graph_dir, dims, input_rel, expected_rel = MODELS[model]
            path = f"/infer/{Path(graph_dir).name}?dims={dims}"
            if input_rel:
                body.write_bytes((fixtures / input_rel).read_bytes())
            else:
                TINY_INPUT.tofile(body)
            flags = ["-S", "nn", "-S", f"nn-graph=onnx::{fixtures / graph_dir}"]
        wasinn_argv = [args.wasinn, "serve", "--addr", "{ADDR}", *flags, *args.wasinn_arg]
        if args.backend_dir:
            wasinn_argv += ["--backend-dir", args.backend_dir]
        hosts = {
            # Its defaults, the access log included (batched into servers.log): what a user runs.
            "wasinn": Server("wasinn", [*wasinn_argv, args.guest], dict(os.environ), log),
            # A 0.3 service built with Rust's std also imports WASI 0.2's cli and filesystem, which
            # `wasmtime serve` links for it only with -S cli (wasinn serve links them always).
            "wasmtime": Server("wasmtime", [args.wasmtime, "serve", "--addr", "{ADDR}", *flags,
                                            *(["-S", "cli"] if args.p3 else []), args.guest],
                               dict(os.environ, LD_LIBRARY_PATH=args.onnxruntime_libs), log),
        }
        try:
            answers = {}
            for name, server in hosts.items():
                status, answer = post(server.url(path), body)
                if status != 200:
                    raise RuntimeError(f"{name}: {status} {answer[:200]!r}")
                if model in NO_MODEL:
                    want = body.read_bytes() if path == "/echo" else b"hello\n"
                    if answer != want:
                        raise RuntimeError(f"{name}: {path} answered {len(answer)} bytes, not the {len(want)} expected")
                else:
                    answers[name] = scores(answer)
            if model in NO_MODEL:
                pass
            elif expected_rel:
                expected = np.fromfile(fixtures / expected_rel, dtype=np.float32)
                for name, got in answers.items():
                    if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
                        raise RuntimeError(f"{name}'s answer differs from the native framework's")
            if answers and not np.array_equal(answers["wasinn"], answers["wasmtime"]):
                diff = float(np.max(np.abs(answers["wasinn"] - answers["wasmtime"])))
                print(f"note: {model}: the hosts' answers differ by at most {diff:g}", file=sys.stderr)
            for c in map(int, args.concurrency.split(",")):
                rounds = {name: [] for name in hosts}
                for r in range(args.rounds):
                    order = list(hosts) if r % 2 == 0 else list(reversed(hosts))
                    for name in order:
                        run_wrk(hosts[name].url(path), body, c, 1, lua)  # warm: connections, caches
                        rounds[name].append(run_wrk(hosts[name].url(path), body, c, args.seconds, lua))
                row = {"model": model, "concurrency": c}
                for name, rs in rounds.items():
                    med = sorted(rs, key=lambda x: x["rps"])[len(rs) // 2]
                    row[name] = dict(med, rounds=[x["rps"] for x in rs])
                results.append(row)
                a, b = row["wasinn"], row["wasmtime"]
                print(f"{model} c={c}: wasinn {a['rps']:.1f} req/s p99 {fmt_ms(a['p99'])}; "
                      f"wasmtime {b['rps']:.1f} req/s p99 {fmt_ms(b['p99'])}; "
                      f"ratio {a['rps'] / max(b['rps'], 1e-9):.2f}", file=sys.stderr)
        finally:
            for server in hosts.values():
                server.stop()
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}",
        "seconds": args.seconds,
        "rounds": args.rounds,
        "title": ", WASI 0.3" if args.p3 else "",
        "script": "scripts/bench-p3.sh" if args.p3 else "scripts/bench-peers.sh",
        "guest": ("guest `p3_http_spec`, a `wasi:http@0.3.0` service in Rust on wasip3, the spec's wasi:nn only"
                  if args.p3 else "guest `http_classify`"),
    }
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    section = report(results, meta)
    print(section)
    if args.doc:
        write_doc(args.doc, section, args.section)


if __name__ == "__main__":
    main()
