# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the same guests on wasinn and on Wasmtime's own CLI, whole process, and compares.

Called by scripts/bench-peers.sh, which builds both hosts first. Every case runs the same .wasm
with the same model files on both hosts, alternating runs (wasinn, Wasmtime, wasinn, ...) so
that the shared machine's drift lands on both; each case checks that both hosts give the same
answer before its times count. Writes a Markdown section (stdout, and docs/benchmarks.md
between <!-- bench:peers --> markers unless --no-doc) and the raw samples as JSON.
"""
import argparse
import dataclasses
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_doc  # noqa: E402


@dataclasses.dataclass
class Case:
    key: str
    title: str
    guest: str
    args: list
    check: str  # how both hosts' answers are compared: stdout, report, or output
    wasinn_flags: list = dataclasses.field(default_factory=list)
    wasmtime_flags: list = dataclasses.field(default_factory=list)
    expected: str = ""  # output: a fixture the outputs must also match (the native answer)
    per_inference: tuple = ()  # (key of the same case with one inference, inferences here)


def run_model_args(model, encoding, dims, input_file, repeat, target="cpu"):
    return ["--model", model, "--encoding", encoding, "--target", target,
            "--input", f"0:f32:{dims}:{input_file}", "--output", "0:/out/out.f32",
            "--repeat", str(repeat)]


DIGITS_ONNX = "/data/digits/model.onnx"
DIGITS_OV = "/data/digits/openvino/model.xml,/data/digits/openvino/model.bin"
MOBILENET_ONNX = "/data/mobilenet_v2/model.onnx"
MOBILENET_OV = "/data/mobilenet_v2/openvino/model.xml,/data/mobilenet_v2/openvino/model.bin"
TINY_ONNX = "/data/tiny/model.onnx"
DIGITS_REPORT_ARGS = ["--model", "/data/digits/model.onnx", "--x", "/data/digits/test_x.f32",
                      "--y", "/data/digits/test_y.u8"]
RUN_MODEL = "run_model_original_witx.wasm"
WIT_RUN_MODEL = "wit_run_model.component.wasm"


def wit_pair(one, many, inferences, model, name, dims, input_file, expected=""):
    """The component twin of inference_pair: wit_run_model (wasi:nn@0.2.0-rc-2024-10-28) loads the
    model by bytes and computes with a fresh input tensor each time, reading every output's data."""
    def case(key_title, repeat, per_inference=()):
        args = ["--model", model, "--encoding", "onnx", "--input", f"{name}:fp32:{dims}:{input_file}",
                "--output-dir", "/out", "--repeat", str(repeat), "--fetch", "each"]
        return Case(*key_title, WIT_RUN_MODEL, args, "wit_output", expected=expected, per_inference=per_inference)
    return [case(one, 1), case(many, inferences, (one[0], inferences))]


def inference_pair(one, many, inferences, model, encoding, dims, input_file, expected=""):
    """A run_model case of one inference and its twin of `inferences`: (key, title) each. The
    per-inference row subtracts the first from the second."""
    def case(key_title, repeat, per_inference=()):
        return Case(*key_title, RUN_MODEL, run_model_args(model, encoding, dims, input_file, repeat), "output",
                    expected=expected, per_inference=per_inference)
    return [case(one, 1), case(many, inferences, (one[0], inferences))]


def cases():
    row = "/data/digit_row.f32"
    img = "/data/mobilenet_v2/input.f32"
    expected = "mobilenet_v2/expected.f32"
    return [
        Case("empty", "a WASI guest that only prints its arguments", "echo_args.wasm",
             ["hello", "wasi-nn", "peers"], "stdout"),
        Case("empty_nocache", "the same, both compile caches off", "echo_args.wasm",
             ["hello", "wasi-nn", "peers"], "stdout", ["--no-cache"], ["-C", "cache=n"]),
        *inference_pair(("digits_1", "one digit inference, whole process (ONNX Runtime)"),
                        ("digits_100k", "100,001 digit inferences in one guest (ONNX Runtime)"), 100001,
                        DIGITS_ONNX, "onnx", "1x64", row),
        *inference_pair(("mobilenet_ort_1", "one mobilenet_v2 inference (ONNX Runtime)"),
                        ("mobilenet_ort", "101 mobilenet_v2 inferences (ONNX Runtime)"), 101,
                        MOBILENET_ONNX, "onnx", "1x3x224x224", img, expected),
        *inference_pair(("mobilenet_ov_1", "one mobilenet_v2 inference (OpenVINO)"),
                        ("mobilenet_ov", "101 mobilenet_v2 inferences (OpenVINO)"), 101,
                        MOBILENET_OV, "openvino", "1x3x224x224", img, expected),
        *inference_pair(("digits_ov_1", "one digit inference (OpenVINO)"),
                        ("digits_ov_10k", "10,001 digit inferences (OpenVINO)"), 10001,
                        DIGITS_OV, "openvino", "1x64", row),
        *wit_pair(("mobilenet_wit_1", "component: one mobilenet_v2 inference (ONNX Runtime)"),
                  ("mobilenet_wit", "component: 101 mobilenet_v2 inferences (ONNX Runtime)"), 101,
                  MOBILENET_ONNX, "input", "1x3x224x224", img, expected),
        *wit_pair(("tiny_wit_1", "component: one tiny-model inference (ONNX Runtime)"),
                  ("tiny_wit_100k", "component: 100,001 tiny-model inferences (ONNX Runtime)"), 100001,
                  TINY_ONNX, "x", "1x4", "/data/tiny_x.f32"),
        Case("rust_06", "the Rust `wasi-nn` 0.6 digits guest (450 rows)", "compat_wasi_nn_06.wasm",
             DIGITS_REPORT_ARGS, "report"),
        Case("rust_06_nocache", "the same, both compile caches off", "compat_wasi_nn_06.wasm",
             DIGITS_REPORT_ARGS, "report", ["--no-cache"], ["-C", "cache=n"]),
        Case("wamr_c", "WAMR's C guest ABI (`wasi_ephemeral_nn` layout), digits", "compat_wamr_ephemeral.wasm",
             DIGITS_REPORT_ARGS, "report"),
    ]


def run_once(argv, env, out_dir):
    """Runs argv to completion; returns (wall seconds, exit code, stdout, stderr)."""
    for f in out_dir.iterdir():
        f.unlink()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return wall, os.waitstatus_to_exitcode(status), out.read().decode(errors="replace"), \
            err.read().decode(errors="replace")


def peak_rss_kib(argv, env, out_dir):
    """Peak RSS of one run, read by GNU time: a child spawned by this Python would count this
    Python's own RSS in its peak (the kernel keeps the peak of the image it replaced at exec)."""
    with tempfile.NamedTemporaryFile(mode="r") as report:
        _, code, out, err = run_once(["/usr/bin/time", "-f", "%M", "-o", report.name, *argv], env, out_dir)
        if code != 0:
            raise RuntimeError(f"exit {code}: {(err or out).strip()[-400:]}")
        return int(report.read().split()[-1])


class Hosts:
    def __init__(self, args, data_dir, out_dir, link_dir):
        self.args, self.data, self.out = args, data_dir, out_dir
        # Wasmtime links ONNX Runtime dynamically, and looks for OpenVINO's C library at run time
        # under the unversioned name libopenvino_c.so, which the PyPI wheel does not ship.
        ov_c = sorted(pathlib.Path(args.openvino_libs).glob("libopenvino_c.so*"))
        if ov_c:
            (link_dir / "libopenvino_c.so").symlink_to(ov_c[0].resolve())
        self.wasmtime_env = dict(os.environ)
        self.wasmtime_env["LD_LIBRARY_PATH"] = ":".join(
            p for p in (args.onnxruntime_libs, str(link_dir), args.openvino_libs,
                        os.environ.get("LD_LIBRARY_PATH", "")) if p)
        self.wasinn_env = dict(os.environ)

    def argv(self, host, case):
        guest = str(pathlib.Path(self.args.guests) / case.guest)
        dirs = ["--dir", f"{self.data}::/data", "--dir", f"{self.out}::/out"]
        if host == "wasinn":
            return [self.args.wasinn, "run", *case.wasinn_flags, *dirs, guest, *case.args]
        return [self.args.wasmtime, "run", "-S", "nn", *case.wasmtime_flags, *dirs, guest, *case.args]

    def env(self, host):
        return self.wasinn_env if host == "wasinn" else self.wasmtime_env


def answer_of(case, code, out, out_dir):
    """What a run answered, in a form compared across hosts (None: the run failed)."""
    if code != 0:
        return None
    if case.check == "stdout":
        return out
    if case.check == "report":
        lines = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)
        return {k: lines.get(k) for k in ("predictions", "accuracy", "logits0")}
    if case.check == "wit_output":  # wit_run_model writes each output as /out/<name>.bin
        found = sorted(out_dir.glob("*.bin"))
        return np.fromfile(found[0], dtype=np.float32) if len(found) == 1 else None
    path = out_dir / "out.f32"
    return np.fromfile(path, dtype=np.float32) if path.exists() else None


def same_answer(case, a, b, fixtures):
    """Both hosts answered alike (and, where a native answer is stored, like it). Returns why not."""
    if case.check == "stdout":
        return "" if a == b else f"stdout differs: {a!r} vs {b!r}"
    if case.check == "report":
        if a["predictions"] != b["predictions"] or a["accuracy"] != b["accuracy"]:
            return f"predictions differ: {a} vs {b}"
        la, lb = (np.array(x["logits0"].split(), dtype=np.float32) for x in (a, b))
        return "" if np.allclose(la, lb, rtol=1e-5, atol=1e-5) else f"logits differ: {la} vs {lb}"
    if a.shape != b.shape:
        return f"output sizes differ: {a.size} vs {b.size} floats"
    if not np.allclose(a, b, rtol=1e-4, atol=1e-4) or a.argmax() != b.argmax():
        return f"outputs differ by up to {np.abs(a - b).max()}"
    if case.expected:
        want = np.fromfile(pathlib.Path(fixtures) / case.expected, dtype=np.float32)
        if not np.allclose(a, want, rtol=1e-3, atol=1e-3):
            return f"outputs differ from the native answer by up to {np.abs(a - want).max()}"
    return ""


RSS_RUNS = 3


def measure(hosts, case, runs, fixtures):
    """Warm-up, `runs` alternating timed runs per host, then RSS_RUNS runs each under GNU time."""
    samples = {"wasinn": [], "wasmtime": []}
    answers = {}
    for host in ("wasinn", "wasmtime"):  # warm-up: fills each host's compile cache
        _, code, out, err = run_once(hosts.argv(host, case), hosts.env(host), hosts.out)
        answers[host] = answer_of(case, code, out, hosts.out)
        if answers[host] is None:
            return {"error": f"{host} failed (exit {code}): {(err or out).strip()[-400:]}"}
    why = same_answer(case, answers["wasinn"], answers["wasmtime"], fixtures)
    if why:
        return {"error": "answers differ: " + why}
    for i in range(runs):
        for host in ("wasinn", "wasmtime") if i % 2 == 0 else ("wasmtime", "wasinn"):
            wall, code, out, err = run_once(hosts.argv(host, case), hosts.env(host), hosts.out)
            if code != 0:
                return {"error": f"{host} failed on run {i} (exit {code}): {(err or out).strip()[-400:]}"}
            samples[host].append(wall)
    result = {}
    for host, walls in samples.items():
        rss = [peak_rss_kib(hosts.argv(host, case), hosts.env(host), hosts.out) for _ in range(RSS_RUNS)]
        result[host] = {"wall_s": walls, "maxrss_kib": rss, "median_wall_s": statistics.median(walls),
                        "median_maxrss_kib": statistics.median(rss)}
    return result


def fmt_time(s):
    return f"{s * 1e3:.1f} ms" if s >= 0.0995 else f"{s * 1e3:.2f} ms"


def fmt_us(s):
    return f"{s * 1e6:.2f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def report(results, all_cases, meta):
    lines = [f"`{meta['wasinn_version']}` against Wasmtime's CLI `{meta['wasmtime_version']}` "
             f"(`wasmtime run -S nn`, ONNX Runtime and OpenVINO backends); load average before: "
             f"{' '.join(meta['loadavg'])}; {meta['runs']} runs per host and "
             f"case, alternating, after one warm-up run each (compile caches warm unless the case says off); "
             f"wall: median; peak RSS: median of {RSS_RUNS} more runs under GNU time; "
             f"{meta['date']}.", "",
             "| case | wasinn wall | Wasmtime wall | wall ratio | wasinn peak RSS | Wasmtime peak RSS | RSS ratio |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for c in all_cases:
        r = results.get(c.key)
        if r is None:
            continue
        if "error" in r:
            lines.append(f"| {c.title} | – | – | – | – | – | {r['error'][:160]} |")
            continue
        w, m = r["wasinn"], r["wasmtime"]
        lines.append(f"| {c.title} | {fmt_time(w['median_wall_s'])} | {fmt_time(m['median_wall_s'])} | "
                     f"{w['median_wall_s'] / m['median_wall_s']:.2f} | {w['median_maxrss_kib'] / 1024:.1f} MiB | "
                     f"{m['median_maxrss_kib'] / 1024:.1f} MiB | {w['median_maxrss_kib'] / m['median_maxrss_kib']:.2f} |")
    per = []
    for c in all_cases:
        if not c.per_inference or c.key not in results or c.per_inference[0] not in results:
            continue
        many, single = results[c.key], results[c.per_inference[0]]
        if "error" in many or "error" in single:
            continue
        n = c.per_inference[1]
        each = {h: (many[h]["median_wall_s"] - single[h]["median_wall_s"]) / (n - 1) for h in ("wasinn", "wasmtime")}
        per.append(f"| {c.title} | {fmt_us(each['wasinn'])} | {fmt_us(each['wasmtime'])} | "
                   f"{each['wasinn'] / each['wasmtime']:.2f} |")
    if per:
        lines += ["", "Per inference: (median wall of N inferences − median wall of one) / (N − 1), per host.", "",
                  "| case | wasinn | Wasmtime | ratio |", "|---|---:|---:|---:|", *per]
    return "\n".join(lines) + "\n"


def prepare_data(fixtures, data_dir):
    """Copies the fixtures the guests read into one directory both hosts preopen as /data.
    Copies, not links: both hosts refuse a symlink that leaves the preopened directory."""
    fixtures = pathlib.Path(fixtures)
    for rel in ("digits/model.onnx", "digits/test_x.f32", "digits/test_y.u8", "digits/openvino/model.xml",
                "digits/openvino/model.bin", "mobilenet_v2/model.onnx", "mobilenet_v2/input.f32",
                "mobilenet_v2/openvino/model.xml", "mobilenet_v2/openvino/model.bin", "tiny/model.onnx"):
        (data_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fixtures / rel, data_dir / rel)
    row = np.fromfile(fixtures / "digits/test_x.f32", dtype=np.float32)[:64]
    row.tofile(data_dir / "digit_row.f32")
    np.array([0.5, -1.5, 2.25, 8.0], dtype=np.float32).tofile(data_dir / "tiny_x.f32")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wasinn", required=True)
    p.add_argument("--wasmtime", required=True)
    p.add_argument("--guests", required=True, help="directory of the built guests (.wasm)")
    p.add_argument("--fixtures", required=True)
    p.add_argument("--onnxruntime-libs", required=True, help="directory of libonnxruntime.so for Wasmtime")
    p.add_argument("--openvino-libs", required=True, help="directory of libopenvino_c.so for Wasmtime")
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--cases", default="", help="comma-separated case keys (default: all)")
    p.add_argument("--json", help="write raw samples here")
    p.add_argument("--doc", help="write the section into this Markdown file")
    args = p.parse_args()

    all_cases = cases()
    wanted = set(filter(None, args.cases.split(",")))
    unknown = wanted - {c.key for c in all_cases}
    if unknown:
        p.error(f"unknown case(s) {', '.join(sorted(unknown))}; known: {', '.join(c.key for c in all_cases)}")
    chosen = [c for c in all_cases if not wanted or c.key in wanted]
    for c in list(chosen):  # a per-inference row needs its one-inference case too
        if c.per_inference and not any(x.key == c.per_inference[0] for x in chosen):
            chosen.insert(chosen.index(c), next(x for x in all_cases if x.key == c.per_inference[0]))

    results = {}
    with tempfile.TemporaryDirectory(prefix="wasinn-peers-") as tmp:
        data_dir, out_dir, link_dir = (pathlib.Path(tmp, d) for d in ("data", "out", "libs"))
        for d in (data_dir, out_dir, link_dir):
            d.mkdir()
        prepare_data(args.fixtures, data_dir)
        hosts = Hosts(args, data_dir, out_dir, link_dir)
        version = {h: subprocess.run([getattr(args, h), "--version"], capture_output=True, text=True,
                                     env=hosts.env(h)).stdout.strip() for h in ("wasinn", "wasmtime")}
        meta = {"runs": args.runs, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "wasinn_version": version["wasinn"], "wasmtime_version": version["wasmtime"],
                "loadavg": open("/proc/loadavg").read().split()[:3]}
        for i, c in enumerate(chosen, 1):
            print(f"[{i}/{len(chosen)}] {c.key}: {c.title} ...", file=sys.stderr, flush=True)
            results[c.key] = measure(hosts, c, args.runs, args.fixtures)
            r = results[c.key]
            if "error" in r:
                print(f"    {r['error']}", file=sys.stderr)
            else:
                print(f"    wasinn {fmt_time(r['wasinn']['median_wall_s'])}, "
                      f"Wasmtime {fmt_time(r['wasmtime']['median_wall_s'])}", file=sys.stderr)
    section = report(results, all_cases, meta)
    print(section)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    if args.doc:
        bench_doc.write_sections(pathlib.Path(args.doc), {"peers": section})
    return 1 if any("error" in r for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
