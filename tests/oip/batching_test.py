#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Dynamic batching in `wasinn serve --oip-http/--oip-grpc`, end to end, with Triton's client.

A real `wasinn serve` (2 workers) batches three models: tiny_batch (tiny/model_batch.onnx, the
tiny model with a dynamic dim 0) from a --model-repository config.json (max_batch_size 64, 5 ms),
mobilenet_v2/model_batch.onnx and digits from --dynamic-batching. 64 concurrent single-row
requests (half tritonclient HTTP, half gRPC) each get what ONNX Runtime's Python API computes for
that row alone on the batch-1 model, while the server's statistics (execution_count,
batch_stats) and its metrics (wasinn_nn_computes_total) count fewer computes than requests.
Requests of several rows share batches too; one with more rows than max_batch_size is computed
alone. A repository model with Triton's own config.pbtxt (max_batch_size, dynamic_batching, input
and output) batches as configured and names the fields wasinn ignores in one warning; one whose
input dims are not the model's stops the start. Asking batching of a model without a batch dimension is a start error that says why;
an unknown model name or a bad number is a usage error. Run by ctest (oip.batching) with the
triton venv's python:

  batching_test.py --wasinn build/bin/wasinn --backend-dir build/lib/wasinn/backends --fixtures ~/.cache/wasinn/fixtures
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

try:
    import numpy as np
    import onnxruntime as ort
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
except ImportError as e:  # the venv scripts/remote-servers.sh installs is not there
    print(f"skipped: {e} (run with .deps/venv-triton-0.7.0/bin/python)")
    sys.exit(77)

from oip_server_process import parse_args, run_tests

ARGS = None
SERVER = None


def fixture(*parts):
    return os.path.join(ARGS.fixtures, *parts)


def serve(args, repo=None, wait=True):
    """A wasinn serve with these extra args: (process, http, grpc, metrics URL, stderr lines)."""
    cmd = [ARGS.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--oip-grpc", "127.0.0.1:0",
           "--backend-dir", ARGS.backend_dir, "--workers", "2", "--metrics-addr", "127.0.0.1:0", *args]
    if repo:
        cmd += ["--model-repository", repo]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    if not wait:
        return proc
    found, lines = {}, []
    deadline = time.time() + 120
    while time.time() < deadline and len(found) < 3:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("wasinn serve ended before listening:\n" + "".join(lines))
        lines.append(line)
        for key, pattern in (("http", r"\(REST\) on http://([^/]+)/v2"), ("grpc", r"\(gRPC\) on (\S+)"),
                             ("metrics", r"metrics at (http://\S+)")):
            m = re.search(pattern, line)
            if m:
                found[key] = m.group(1)
    threading.Thread(target=lambda: [lines.append(l) for l in proc.stderr], daemon=True).start()
    return proc, found["http"], found["grpc"], found["metrics"], lines


def start_error(args, repo=None):
    """The exit code and stderr of a wasinn serve that must not start."""
    proc = serve(args, repo, wait=False)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, err


def write_repo(models):
    """A --model-repository of {name: (model file, config.json dict)}."""
    repo = tempfile.mkdtemp(prefix="wasinn-batching-repo-")
    for name, (path, config) in models.items():
        os.makedirs(os.path.join(repo, name, "1"))
        shutil.copy(path, os.path.join(repo, name, "1", "model.onnx"))
        with open(os.path.join(repo, name, "config.json"), "w") as f:
            json.dump(config, f)
    return repo


class Server:
    def __init__(self):
        self.repo = write_repo({"tiny_batch": (fixture("tiny", "model_batch.onnx"),
                                               {"encoding": "onnx", "max_batch_size": 64, "max_queue_delay_us": 5000})})
        self.proc, self.http, self.grpc, self.metrics, self.lines = serve(
            ["--nn-preload", f"mobilenet:onnx:cpu:{fixture('mobilenet_v2', 'model_batch.onnx')}",
             "--nn-preload", f"digits:onnx:cpu:{fixture('digits', 'model.onnx')}",
             "--nn-preload", f"tiny:onnx:cpu:{fixture('tiny', 'model.onnx')}",
             "--dynamic-batching", "mobilenet=16:20000", "--dynamic-batching", "digits=8:5000"], self.repo)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=60)
        shutil.rmtree(self.repo, ignore_errors=True)
        return code


def ort_rows(path, name, rows):
    """What the batch-1 (or any) model file computes for each row alone: one run per row."""
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return [s.run(None, {name: row[np.newaxis]})[0] for row in rows]


def stats(model):
    s = httpclient.InferenceServerClient(url=SERVER.http).get_inference_statistics(model)["model_stats"][0]
    return s["inference_count"], s["execution_count"], s["batch_stats"]


def computes(model):
    text = urllib.request.urlopen(SERVER.metrics, timeout=30).read().decode()
    m = re.search(r'^wasinn_nn_computes_total\{[^}]*graph="%s"[^}]*\} (\d+)' % re.escape(model), text, re.M)
    return int(m.group(1)) if m else 0


def concurrently(model, input_name, inputs, output_name, http=None, grpc=None):
    """One request per array of `inputs`, all released at once from threads of their own,
    alternating tritonclient HTTP and gRPC (to SERVER's unless given); the answers in order."""
    answers = [None] * len(inputs)
    errors = []
    clients = [httpclient.InferenceServerClient(url=http or SERVER.http) if i % 2 == 0
               else grpcclient.InferenceServerClient(url=grpc or SERVER.grpc) for i in range(len(inputs))]
    start = threading.Barrier(len(inputs))

    def one(i):
        try:
            c, x = clients[i], inputs[i]
            mod = httpclient if i % 2 == 0 else grpcclient
            inp = mod.InferInput(input_name, list(x.shape), "FP32")
            inp.set_data_from_numpy(x, **({"binary_data": i % 4 == 0} if mod is httpclient else {}))
            start.wait()
            answers[i] = c.infer(model, [inp]).as_numpy(output_name)
        except Exception as e:  # noqa: BLE001 - reported by the test
            errors.append(f"request {i}: {e}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers, errors


class Batching(unittest.TestCase):
    def test_64_single_rows_equal_unbatched_in_fewer_computes(self):
        rows = np.random.RandomState(28).standard_normal((64, 4)).astype(np.float32)
        want = ort_rows(fixture("tiny", "model.onnx"), "x", rows)
        inferences0, executions0, batch_stats0 = stats("tiny_batch")
        computes0 = computes("tiny_batch")
        answers, errors = concurrently("tiny_batch", "x", [r[np.newaxis] for r in rows], "y")
        self.assertEqual(errors, [])
        for i in range(64):
            np.testing.assert_array_equal(answers[i], want[i], err_msg=f"row {i}")
        inferences, executions, batch_stats = stats("tiny_batch")
        self.assertEqual(inferences - inferences0, 64)
        self.assertLess(executions - executions0, 64)
        self.assertGreater(max(b["batch_size"] for b in batch_stats), 1)
        rows = lambda batches: sum(b["batch_size"] * b["compute_infer"]["count"] for b in batches)  # noqa: E731
        self.assertEqual(rows(batch_stats) - rows(batch_stats0), 64)  # every row in one batch
        self.assertLess(computes("tiny_batch") - computes0, 64)  # what the backend saw
        print(f"tiny_batch: 64 requests in {executions - executions0} computes; batch sizes "
              f"{sorted((b['batch_size'], b['compute_infer']['count']) for b in batch_stats)}", file=sys.stderr)

    def test_mobilenet_rows_equal_the_batch_1_model(self):
        images = np.random.RandomState(5).standard_normal((12, 3, 224, 224)).astype(np.float32)
        want = ort_rows(fixture("mobilenet_v2", "model.onnx"), "input", images)
        computes0 = computes("mobilenet")
        answers, errors = concurrently("mobilenet", "input", [im[np.newaxis] for im in images], "output")
        self.assertEqual(errors, [])
        for i in range(12):
            np.testing.assert_allclose(answers[i], want[i], rtol=1e-4, atol=1e-4, err_msg=f"image {i}")
        self.assertLess(computes("mobilenet") - computes0, 12)

    def test_several_rows_per_request(self):
        rng = np.random.RandomState(7)
        inputs = [rng.standard_normal((1 + i % 3, 4)).astype(np.float32) for i in range(24)]
        answers, errors = concurrently("tiny_batch", "x", inputs, "y")
        self.assertEqual(errors, [])
        bias = np.array([[1, 2, 3, 4]], dtype=np.float32)  # tiny is y = x + [1, 2, 3, 4]
        for x, y in zip(inputs, answers):
            np.testing.assert_array_equal(y, x + bias)

    def test_more_rows_than_max_batch_size_compute_alone(self):
        x = np.random.RandomState(3).standard_normal((20, 64)).astype(np.float32)  # digits batches 8 rows
        want = ort.InferenceSession(fixture("digits", "model.onnx"), providers=["CPUExecutionProvider"]).run(
            None, {"input": x})[0]
        _, executions0, _ = stats("digits")
        for c, mod in ((httpclient.InferenceServerClient(url=SERVER.http), httpclient),
                       (grpcclient.InferenceServerClient(url=SERVER.grpc), grpcclient)):
            inp = mod.InferInput("input", [20, 64], "FP32")
            inp.set_data_from_numpy(x)
            np.testing.assert_allclose(c.infer("digits", [inp]).as_numpy("logits"), want, rtol=1e-5, atol=1e-5)
        _, executions, batch_stats = stats("digits")
        self.assertEqual(executions - executions0, 2)
        self.assertIn(20, [b["batch_size"] for b in batch_stats])

    def test_config_says_triton_batching(self):
        cfg = httpclient.InferenceServerClient(url=SERVER.http).get_model_config("tiny_batch")
        self.assertEqual(cfg["max_batch_size"], 64)
        self.assertEqual(cfg["dynamic_batching"], {"max_queue_delay_microseconds": 5000})
        self.assertEqual(cfg["input"][0]["dims"], [4])  # without the batch dimension, as Triton's
        g = grpcclient.InferenceServerClient(url=SERVER.grpc).get_model_config("mobilenet").config
        self.assertEqual(g.max_batch_size, 16)
        self.assertEqual(g.dynamic_batching.max_queue_delay_microseconds, 20000)
        self.assertEqual(list(g.input[0].dims), [3, 224, 224])
        plain = httpclient.InferenceServerClient(url=SERVER.http).get_model_config("tiny")
        self.assertEqual(plain["max_batch_size"], 0)
        self.assertNotIn("dynamic_batching", plain)
        meta = httpclient.InferenceServerClient(url=SERVER.http).get_model_metadata("tiny_batch")
        self.assertEqual(meta["inputs"][0]["shape"], [-1, 4])  # metadata keeps the whole shape

    def test_unbatched_model_counts_one_execution_per_request(self):
        _, executions0, _ = stats("tiny")
        c = httpclient.InferenceServerClient(url=SERVER.http)
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(np.ones((1, 4), np.float32))
        for _ in range(3):
            c.infer("tiny", [inp])
        inferences, executions, batch_stats = stats("tiny")
        self.assertEqual(executions - executions0, 3)
        self.assertEqual([b["batch_size"] for b in batch_stats], [1])


class StartErrors(unittest.TestCase):
    def test_batching_a_fixed_batch_model_is_refused(self):
        code, err = start_error(["--nn-preload", f"tiny:onnx:cpu:{fixture('tiny', 'model.onnx')}",
                                 "--dynamic-batching", "tiny=16:1000"])
        self.assertNotEqual(code, 0)
        self.assertIn("model 'tiny'", err)
        self.assertIn("dynamic (-1) dimension 0", err)
        self.assertIn("input 'x' has shape [1, 4]", err)
        repo = write_repo({"fixed": (fixture("mobilenet_v2", "model.onnx"), {"max_batch_size": 8})})
        try:
            code, err = start_error([], repo)
        finally:
            shutil.rmtree(repo, ignore_errors=True)
        self.assertNotEqual(code, 0)
        self.assertIn("model 'fixed'", err)
        self.assertIn("input 'input' has shape [1, 3, 224, 224]", err)

    def test_usage_errors(self):
        preload = ["--nn-preload", f"digits:onnx:cpu:{fixture('digits', 'model.onnx')}"]
        for flag, says in (("digit=8", "no model 'digit' is registered; did you mean 'digits'? (the models: digits)"),
                           ("digits=0", "MAX_BATCH '0' is not a whole number from 1 to 65536"),
                           ("digits=8:soon", "DELAY 'soon' is not a duration: write a number and a unit, e.g. "
                                             "200ms"),
                           ("digits=8:11s", "DELAY '11s' is more than 10 s"),
                           ("digits", "expected NAME=MAX_BATCH[:DELAY]")):
            code, err = start_error([*preload, "--dynamic-batching", flag])
            self.assertEqual(code, 2, err)
            self.assertIn(says, err)


TINY_PBTXT = """name: "tiny_pbtxt"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ %s ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
dynamic_batching { max_queue_delay_microseconds: 20000 preferred_batch_size: [ 4, 8 ] }
instance_group [ { count: 1 kind: KIND_CPU } ]
"""


def pbtxt_repo(dims):
    """A --model-repository whose tiny_pbtxt (tiny/model_batch.onnx) has Triton's config.pbtxt."""
    repo = tempfile.mkdtemp(prefix="wasinn-pbtxt-repo-")
    os.makedirs(os.path.join(repo, "tiny_pbtxt", "1"))
    shutil.copy(fixture("tiny", "model_batch.onnx"), os.path.join(repo, "tiny_pbtxt", "1", "model.onnx"))
    with open(os.path.join(repo, "tiny_pbtxt", "config.pbtxt"), "w") as f:
        f.write(TINY_PBTXT % dims)
    return repo


class TritonConfigPbtxt(unittest.TestCase):
    """Triton's own config.pbtxt: max_batch_size and dynamic_batching batch as config.json's keys
    do, input/output are checked against the model, and the ignored fields are named at start."""

    def test_batches_as_configured_and_names_what_it_ignores(self):
        repo = pbtxt_repo("4")
        proc, http, grpc, _, lines = serve([], repo)
        try:
            warning = next((l for l in lines if "config.pbtxt: ignored" in l), "")
            self.assertIn("wasinn: warning: --model-repository: ", warning, "".join(lines))
            for field in ("instance_group.kind (line 7)", "dynamic_batching.preferred_batch_size",
                          "instance_group (wasinn's --workers sets the computes)"):
                self.assertIn(field, warning)
            cfg = httpclient.InferenceServerClient(url=http).get_model_config("tiny_pbtxt")
            self.assertEqual(cfg["max_batch_size"], 8)
            self.assertEqual(cfg["dynamic_batching"], {"max_queue_delay_microseconds": 20000})
            self.assertEqual(cfg["input"][0]["dims"], [4])
            rows = np.random.RandomState(11).standard_normal((16, 4)).astype(np.float32)
            answers, errors = concurrently("tiny_pbtxt", "x", [rows[i:i + 1] for i in range(16)], "y", http, grpc)
            self.assertEqual(errors, [])
            bias = np.array([[1, 2, 3, 4]], dtype=np.float32)  # tiny is y = x + [1, 2, 3, 4]
            for i in range(16):
                np.testing.assert_array_equal(answers[i], rows[i:i + 1] + bias)
            s = httpclient.InferenceServerClient(url=http).get_inference_statistics("tiny_pbtxt")["model_stats"][0]
            self.assertEqual(s["inference_count"], 16)
            self.assertLess(s["execution_count"], 16)  # batched
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
            shutil.rmtree(repo, ignore_errors=True)

    def test_an_input_the_model_does_not_take_stops_the_start(self):
        repo = pbtxt_repo("5")
        try:
            code, err = start_error([], repo)
        finally:
            shutil.rmtree(repo, ignore_errors=True)
        self.assertNotEqual(code, 0)
        self.assertIn("model 'tiny_pbtxt': ", err)
        self.assertIn("tiny_pbtxt/config.pbtxt: input 'x' has dims [5], the model's are [4]", err)


def main():
    global ARGS, SERVER
    ARGS, rest = parse_args()
    for f in (("tiny", "model_batch.onnx"), ("mobilenet_v2", "model_batch.onnx")):
        if not os.path.exists(fixture(*f)):
            print(f"skipped: {fixture(*f)} is missing (scripts/make_fixtures.py makes it)")
            return 77
    SERVER = Server()
    return run_tests(SERVER, rest)


if __name__ == "__main__":
    sys.exit(main())
