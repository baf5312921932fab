#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""wasinn serve --oip-http/--oip-grpc against Triton (PyPI nvidia-pytriton) and MLServer, all
three serving the same ONNX models through ONNX Runtime, measured by Triton's perf_analyzer.

Called by scripts/bench-oip.sh (which builds wasinn and checks the dependencies); standard
library only. The three servers run at once, each with the same compute parallelism (--instances
computes at once, --intra-op-threads ORT threads each); every measurement point (model, protocol,
concurrency) runs on the three servers back to back, so the shared machine's drift lands on all
of them. Before any time counts each server must answer a known input correctly (tiny:
x + [1, 2, 3, 4]; mobilenet_v2: PyTorch's logits within 1e-3). Writes a Markdown section per
batching mode into docs/benchmarks.md (<!-- bench:oip-batching-off/on --> markers, through
scripts/bench_doc.py) unless --no-doc, and the raw numbers as JSON.
"""
import argparse
import array
import csv
import datetime
import glob
import json
import os
import pathlib
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "backends" / "remote" / "servers"))
import bench_doc  # noqa: E402
import serve as remote_servers  # noqa: E402  (free_port, venv, libdir, ready, remove_workspaces)

SERVERS = ("wasinn", "triton", "mlserver")
TITLES = {"wasinn": "wasinn", "triton": "Triton", "mlserver": "MLServer"}
# Protocols as perf_analyzer drives them: HTTP with the binary tensor extension (its default),
# HTTP with JSON tensors (MLServer has no binary extension), gRPC (MLServer's gRPC has no
# ModelConfig, which perf_analyzer needs first).
PROTOCOLS = {"http": "HTTP binary", "json": "HTTP JSON", "grpc": "gRPC"}
SUPPORTS = {"wasinn": {"http", "json", "grpc"}, "triton": {"http", "json", "grpc"}, "mlserver": {"json"}}


def log(msg):
    print(f"[bench-oip {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def http_json(url, body=None, timeout=60):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def wait_ready(http, models, proc, what, timeout=180):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before it was ready")
        if all(remote_servers.ready(http, None, m) for m in models):
            return
        time.sleep(0.5)
    raise RuntimeError(f"{what} was not ready within {timeout} s")


class Server:
    """One server process (a session of its own), its REST and gRPC ports and its log."""

    def __init__(self, kind, models, args, workdir):
        self.kind, self.models, self.workdir = kind, models, workdir
        self.log_path = os.path.join(workdir, f"{kind}.log")
        self.http_port = self.grpc_port = None
        self.tmp_before = sorted(glob.glob("/tmp/folder*"))
        getattr(self, f"_start_{kind}")(args)
        wait_ready(self.http_port, [m["name"] for m in models], self.proc, kind)
        self.version = http_json(f"http://127.0.0.1:{self.http_port}/v2").get("version", "?")

    def _spawn(self, cmd, env=None):
        self.proc = subprocess.Popen(cmd, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True, cwd=self.workdir)

    def _start_wasinn(self, args):
        repo = os.path.join(self.workdir, "wasinn-repo")
        for m in self.models:
            os.makedirs(os.path.join(repo, m["name"], "1"))
            os.symlink(m["path"], os.path.join(repo, m["name"], "1", "model.onnx"))
            config = {"encoding": "onnx", "target": "cpu",
                      "config": {"intra_op_threads": args.intra_op_threads}}
            if m["max_batch_size"]:
                config.update(max_batch_size=m["max_batch_size"], max_queue_delay_us=m["max_queue_delay_us"])
            with open(os.path.join(repo, m["name"], "config.json"), "w") as f:
                json.dump(config, f)
        self.http_port, self.grpc_port = remote_servers.free_port(), remote_servers.free_port()
        # -q: no access-log line per request (the others log none either).
        self._spawn([args.wasinn, "serve", "-q", "--oip-http", f"127.0.0.1:{self.http_port}",
                     "--oip-grpc", f"127.0.0.1:{self.grpc_port}", "--backend-dir", args.backend_dir,
                     "--model-repository", repo, "--workers", str(args.instances), "--max-queue", "256"])

    def _python_env(self, python):
        env = dict(os.environ, PYTHONPATH=str(HERE))
        # Triton's Python-backend stub must load this interpreter's libpython, not Debian's.
        env["LD_LIBRARY_PATH"] = remote_servers.libdir(python) + ":" + env.get("LD_LIBRARY_PATH", "")
        return env

    def _spec(self, args):
        path = os.path.join(self.workdir, f"{self.kind}-spec.json")
        with open(path, "w") as f:
            json.dump({"models": self.models, "instances": args.instances,
                       "intra_op_threads": args.intra_op_threads}, f)
        return path

    def _start_triton(self, args):
        python = os.path.join(remote_servers.venv("triton"), "bin", "python")
        self.http_port, self.grpc_port = remote_servers.free_port(), remote_servers.free_port()
        self._spawn([python, str(HERE / "triton_onnx.py"), self._spec(args), str(self.http_port),
                     str(self.grpc_port), str(remote_servers.free_port())], self._python_env(python))

    def _start_mlserver(self, args):
        v = remote_servers.venv("mlserver")
        python = os.path.join(v, "bin", "python")
        env = self._python_env(python)
        repo = os.path.join(self.workdir, "mlserver-repo")
        self.http_port, self.grpc_port = remote_servers.free_port(), remote_servers.free_port()
        subprocess.run([python, str(HERE / "mlserver_onnx.py"), repo, self._spec(args), str(self.http_port),
                        str(self.grpc_port)], env=env, check=True)
        self._spawn([os.path.join(v, "bin", "mlserver"), "start", repo], env)

    def url(self, protocol):
        return f"127.0.0.1:{self.grpc_port if protocol == 'grpc' else self.http_port}"

    def cpu_seconds(self):
        """User+system CPU of the whole process tree so far (to show idle servers stay idle)."""
        total = 0
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                fields = open(stat).read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == self.proc.pid:  # its session (started with start_new_session)
                total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # what is left of its session
        except ProcessLookupError:
            pass
        if self.kind == "triton":
            remote_servers.remove_workspaces({"kind": "triton", "tmp_before": self.tmp_before})


def read_f32(path):
    a = array.array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a.tolist()


def check_answer(server, model, fixtures):
    """One JSON infer of a known input; the answer must be the known one."""
    x, shape, want, tol = known_input(model, fixtures)
    meta = http_json(f"http://127.0.0.1:{server.http_port}/v2/models/{model['name']}")
    body = {"inputs": [{"name": meta["inputs"][0]["name"], "datatype": "FP32", "shape": shape, "data": x}]}
    out = http_json(f"http://127.0.0.1:{server.http_port}/v2/models/{model['name']}/infer", body)
    got = out["outputs"][0]["data"]
    got = [v for row in got for v in row] if got and isinstance(got[0], list) else got
    worst = max(abs(a - b) for a, b in zip(got, want)) if len(got) == len(want) else float("inf")
    if worst > tol:
        raise RuntimeError(f"{server.kind} answered {model['name']} wrongly: max |diff| {worst} > {tol}")


def executions(server, model):
    """(inferences, executions) from Triton's statistics extension, or None (MLServer has none):
    with batching on, fewer executions than inferences show that requests were batched."""
    try:
        stats = http_json(f"http://127.0.0.1:{server.http_port}/v2/models/{model['name']}/stats")
        s = stats["model_stats"][0]
        return int(s["inference_count"]), int(s["execution_count"])
    except (OSError, ValueError, KeyError, IndexError):
        return None


def known_input(model, fixtures):
    """(data, shape, expected answer, tolerance) of one row of the model."""
    if model["fixture"] == "tiny":
        x = [0.5, -1.0, 2.25, 8.0]
        return x, [1, 4], [v + d for v, d in zip(x, (1, 2, 3, 4))], 0.0
    d = os.path.join(fixtures, "mobilenet_v2")
    return read_f32(os.path.join(d, "input.f32")), [1, 3, 224, 224], read_f32(os.path.join(d, "expected.f32")), 1e-3


def pa_input_file(server, model, fixtures, workdir):
    """perf_analyzer's --input-data: the fixture's real input (its default, random bits, gives
    NaNs that JSON cannot carry and denormals that slow a CPU down). Its shape leaves the batch
    dimension out when the server's configuration has max_batch_size > 0."""
    config = http_json(f"http://127.0.0.1:{server.http_port}/v2/models/{model['name']}/config")
    data, shape, _, _ = known_input(model, fixtures)
    if config.get("max_batch_size", 0) > 0:
        shape = shape[1:]
    name = config["input"][0]["name"]
    path = os.path.join(workdir, f"input-{server.kind}-{model['name']}.json")
    with open(path, "w") as f:
        json.dump({"data": [{name: {"content": data, "shape": shape}}]}, f)
    return ["--input-data", path]


def perf_analyzer(args, server, model, protocol, concurrency, workdir, input_args):
    report = os.path.join(workdir, f"pa-{server.kind}-{model['name']}-{protocol}-{concurrency}.csv")
    cmd = [args.perf_analyzer, "-m", model["name"], "-u", server.url(protocol),
           "-i", "grpc" if protocol == "grpc" else "http", "--concurrency-range", str(concurrency),
           "--max-trials", str(args.max_trials), "-f", report, *input_args]
    time_args = ["--measurement-mode", "time_windows", "--measurement-interval", str(args.window_ms)]
    count_args = ["--measurement-mode", "count_windows", "--measurement-request-count", "5000"]
    if protocol == "json":
        cmd += ["--input-tensor-format", "json", "--output-tensor-format", "json"]
    # A tight stability bound first; the machine is shared and noisy, so once more with a loose
    # one (marked in the table) rather than no number. At 15,000+ requests/s on this loaded
    # machine perf_analyzer's time windows sometimes never end (it keeps sending, its memory
    # grows; only wasinn on tiny gets there): after such a run, windows of a request count.
    attempts = [(args.stability, False, time_args)]
    for i in range(2):
        stability, loose, mode_args = attempts[i] if i < len(attempts) else (1000, True, time_args)
        try:
            os.unlink(report)
        except FileNotFoundError:
            pass
        limit = 30 + 4 * args.max_trials * args.window_ms / 1000
        try:
            p = subprocess.run(cmd + mode_args + ["--stability-percentage", str(stability)], capture_output=True,
                               text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            alive = remote_servers.ready(server.http_port, None, model["name"])
            last = [f"perf_analyzer did not finish in {limit:.0f} s (the server {'still answers' if alive else 'does not answer'})"]
            log("  " + last[0] + "; once more with count windows")
            attempts.append((1000, True, count_args))
            continue
        if p.returncode == 0 and os.path.exists(report):
            row = list(csv.DictReader(open(report)))[0]
            return {"throughput": float(row["Inferences/Second"]), "p50_us": int(row["p50 latency"]),
                    "p99_us": int(row["p99 latency"]), "loose": loose, "mode": mode_args[1]}
        last = (p.stdout + p.stderr).strip().splitlines()[-3:]
        log(f"  perf_analyzer exited {p.returncode} at stability {stability}%: {' | '.join(last)}")
    return {"error": " | ".join(last)}


def models_for(batching, args):
    out = []
    for fixture in args.models:
        path = os.path.join(args.fixtures, fixture, "model_batch.onnx" if batching else "model.onnx")
        if not os.path.isfile(path):
            raise SystemExit(f"bench_oip.py: {path} is missing" +
                             (" (the dynamic-batch fixtures come with the batching work: merge main and "
                              "run scripts/make_fixtures.py)" if batching else ""))
        out.append({"name": fixture, "fixture": fixture, "path": path,
                    "max_batch_size": args.max_batch_size if batching else 0,
                    "max_queue_delay_us": args.max_queue_delay_us if batching else 0})
    return out


def run_mode(args, batching):
    mode = "on" if batching else "off"
    models = models_for(batching, args)
    workdir = tempfile.mkdtemp(prefix=f"wasinn-bench-oip-{mode}-")
    servers, results = {}, []
    load_before = open("/proc/loadavg").read().split()[:3]
    try:
        for kind in args.servers:
            log(f"batching {mode}: starting {kind}")
            t0 = time.time()
            servers[kind] = Server(kind, models, args, workdir)
            log(f"  {kind} {servers[kind].version} ready in {time.time() - t0:.1f} s (http {servers[kind].http_port}, "
                f"grpc {servers[kind].grpc_port})")
        for kind, s in servers.items():
            for m in models:
                check_answer(s, m, args.fixtures)
        log("every server answers both models correctly")
        idle = {k: s.cpu_seconds() for k, s in servers.items()}
        time.sleep(3)
        idle = {k: (s.cpu_seconds() - idle[k]) / 3 for k, s in servers.items()}
        log("idle CPU (cores busy) while waiting 3 s: " + ", ".join(f"{k} {v:.2f}" for k, v in idle.items()))
        inputs = {(k, m["name"]): pa_input_file(s, m, args.fixtures, workdir) for k, s in servers.items() for m in models}
        points = [(m, p, c) for m in models for p in args.protocols for c in args.concurrency]
        for i, (m, protocol, c) in enumerate(points, 1):
            for kind, s in servers.items():
                if protocol not in SUPPORTS[kind]:
                    continue
                r = perf_analyzer(args, s, m, protocol, c, workdir, inputs[(kind, m["name"])])
                r.update(server=kind, model=m["name"], protocol=protocol, concurrency=c, batching=mode)
                results.append(r)
                said = (f"{r['throughput']:.1f} infer/s, p99 {r['p99_us'] / 1000:.2f} ms" + (" (loose)" if r["loose"] else "")
                        if "throughput" in r else f"FAILED: {r['error']}")
                log(f"[{i}/{len(points)}] {m['name']} {PROTOCOLS[protocol]} c={c} {kind}: {said}")
        versions = {k: s.version for k, s in servers.items()}
        counts = {}
        for kind, s in servers.items():
            for m in models:
                c = executions(s, m)
                if c:
                    counts[f"{kind}/{m['name']}"] = c
                    log(f"{kind} {m['name']}: {c[0]} inferences in {c[1]} executions")
    finally:
        for s in servers.values():
            s.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    load_after = open("/proc/loadavg").read().split()[:3]
    return {"batching": mode, "models": models, "results": results, "versions": versions, "idle_cpu": idle,
            "executions": counts,
            "load_before": load_before, "load_after": load_after,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def fmt_rate(r):
    if not r:
        return "–"
    if "throughput" not in r:
        return "failed"
    return f"{r['throughput']:.1f}" + ("\\*" if r["loose"] else "") + ("†" if r.get("mode") == "count_windows" else "")


def fmt_p99(r):
    return f"{r['p99_us'] / 1000:.2f}" if r and "p99_us" in r else "–"


def ratio(a, b):
    if not a or not b or "throughput" not in a or "throughput" not in b or not b["throughput"]:
        return "–"
    return f"{a['throughput'] / b['throughput']:.2f}"


def ort_versions(args):
    """ONNX Runtime's version in wasinn's plugin (the library it links) and in each venv."""
    out = {}
    lib = os.path.join(args.backend_dir, "libwasinn_backend_onnxruntime.so")
    ldd = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    m = re.search(r"libonnxruntime\.so\S* => (\S+)", ldd)
    if m:
        v = re.search(r"\.so\.(\d+\.\d+\.\d+)$", os.path.realpath(m.group(1)))
        out["wasinn"] = v.group(1) if v else "?"
    for kind in ("triton", "mlserver"):
        python = os.path.join(remote_servers.venv(kind) or "", "bin", "python")
        if os.path.exists(python):
            out[kind] = subprocess.run([python, "-c", "import onnxruntime; print(onnxruntime.__version__)"],
                                       capture_output=True, text=True).stdout.strip() or "?"
    return out


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def markdown(run, args, wasinn_version, ort):
    by = {(r["server"], r["model"], r["protocol"], r["concurrency"]): r for r in run["results"]}
    v = run["versions"]
    batch = ("off: every request computed alone" if run["batching"] == "off" else
             f"on: max_batch_size {args.max_batch_size}, max queue delay {args.max_queue_delay_us} µs, "
             "on the dynamic-batch fixtures (`model_batch.onnx`)")
    lines = [
        f"Dynamic batching {batch}. {run['date']}; {os.cpu_count()} × {cpu_name()}, shared with other "
        f"jobs (load average before {' '.join(run['load_before'])}, after {' '.join(run['load_after'])}); "
        f"perf_analyzer runs on the same cores. `{wasinn_version}` (ONNX Runtime {ort.get('wasinn', '?')}, C API) "
        f"against Triton {v.get('triton', '?')} (nvidia-pytriton 0.7.0; onnxruntime {ort.get('triton', '?')}, "
        f"Python API) and MLServer {v.get('mlserver', '?')} (a custom runtime; onnxruntime "
        f"{ort.get('mlserver', '?')}, Python API). Each server: "
        f"{args.instances} computes at once, {args.intra_op_threads} ORT thread each. perf_analyzer "
        f"2.51.0, sync clients, {args.window_ms} ms windows until 3 are within {args.stability}% "
        "(\\*: not stable within the trials; the loose bound's number; †: time windows that never ended, "
        "measured again in windows of 5,000 requests). Throughput in inferences/s, "
        "p99 latency in ms; ratios are wasinn's throughput over the other's.",
        "",
        "| model | protocol | conc. | wasinn infer/s | wasinn p99 | Triton infer/s | Triton p99 | "
        "MLServer infer/s | MLServer p99 | wasinn/Triton | wasinn/MLServer |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in run["models"]:
        for p in args.protocols:
            for c in args.concurrency:
                w, t, ml = (by.get((k, m["name"], p, c)) for k in SERVERS)
                lines.append(f"| {m['name']} | {PROTOCOLS[p]} | {c} | {fmt_rate(w)} | {fmt_p99(w)} | {fmt_rate(t)} | "
                             f"{fmt_p99(t)} | {fmt_rate(ml)} | {fmt_p99(ml)} | {ratio(w, t)} | {ratio(w, ml)} |")
    if run["executions"]:
        lines += ["", "Inferences in executions over the whole run (Triton's statistics; MLServer has none): " +
                  "; ".join(f"{k} {i} in {e}" for k, (i, e) in sorted(run["executions"].items())) + "."]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--wasinn", required=True)
    p.add_argument("--backend-dir", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--perf-analyzer", required=True)
    p.add_argument("--batching", choices=("off", "on", "both"), default="off",
                   help="dynamic batching: on uses the fixtures' model_batch.onnx (a dynamic dim 0)")
    p.add_argument("--servers", default=",".join(SERVERS), help="of " + ", ".join(SERVERS))
    p.add_argument("--models", default="tiny,mobilenet_v2", help="fixtures: tiny, mobilenet_v2")
    p.add_argument("--protocols", default="http,json,grpc", help="of http (binary tensors), json, grpc")
    p.add_argument("--concurrency", default="1,8,32")
    p.add_argument("--instances", type=int, default=os.cpu_count() or 2,
                   help="computes at once in every server (default: the machine's cores)")
    p.add_argument("--intra-op-threads", type=int, default=1, help="ONNX Runtime threads per compute")
    p.add_argument("--window-ms", type=int, default=1500, help="perf_analyzer's measurement window")
    p.add_argument("--stability", type=int, default=30, help="percent three windows must agree within")
    p.add_argument("--max-trials", type=int, default=4, help="windows before a point counts as unstable")
    p.add_argument("--max-batch-size", type=int, default=32, help="with batching on, in every server")
    p.add_argument("--max-queue-delay-us", type=int, default=500, help="with batching on, in every server")
    p.add_argument("--json", help="raw results to this file")
    p.add_argument("--doc", help="the Markdown file to update (docs/benchmarks.md)")
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs, CSVs)")
    args = p.parse_args()
    args.wasinn, args.backend_dir = os.path.abspath(args.wasinn), os.path.abspath(args.backend_dir)
    args.servers = [s for s in args.servers.split(",") if s]
    args.models = [m for m in args.models.split(",") if m]
    args.protocols = [x for x in args.protocols.split(",") if x]
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    for s in args.servers:
        if s not in SERVERS:
            p.error(f"unknown server {s}: {', '.join(SERVERS)}")
        if s != "wasinn" and not remote_servers.venv(s):
            p.error(f"no {s} venv (scripts/remote-servers.sh {s} installs it)")
    for x in args.protocols:
        if x not in PROTOCOLS:
            p.error(f"unknown protocol {x}: {', '.join(PROTOCOLS)}")
    wasinn_version = (subprocess.run([args.wasinn, "--version"], capture_output=True, text=True).stdout.strip()
                      if "wasinn" in args.servers else "wasinn")
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.batching]
    t0 = time.time()
    runs = [run_mode(args, b) for b in modes]
    log(f"done in {time.time() - t0:.0f} s")
    ort = ort_versions(args)
    sections = {f"oip-batching-{r['batching']}": markdown(r, args, wasinn_version, ort) for r in runs}
    for name, body in sections.items():
        print(f"\n### {name}\n\n{body}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)
    if args.doc:
        bench_doc.write_sections(pathlib.Path(args.doc), sections)
        log(f"updated {args.doc}: " + ", ".join(sections))
    failed = [r for run in runs for r in run["results"] if "error" in r]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
