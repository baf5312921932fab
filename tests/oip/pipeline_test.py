#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Pipelines (`wasinn serve --oip-* --pipeline NAME=COMPONENT`, wit/wasinn-pipeline) end to end.

A real `wasinn serve` serves mobilenet_v2 (--nn-preload) and two pipeline components built with
the guests: pipeline_classify (raw UINT8 [224, 224, 3] image bytes in, normalised, mobilenet_v2
through wasi:nn, softmax, top 5 out) and pipeline_faults (refuses, fails, traps, spins or answers
wrongly on request). Triton's Python client (HTTP and gRPC) checks the pipeline's metadata and
config, that its top 5 equal the same steps done with numpy and ONNX Runtime's Python API on the
same image, concurrent requests, the request checks, and that a guest's failure is the protocol's
error and never the server's end. Then the start-time errors of --pipeline, and a pipeline from a
--model-repository (NAME/VERSION/model.wasm).

  pipeline_test.py --wasinn build/bin/wasinn --backend-dir ... --fixtures ~/.cache/wasinn/fixtures --guests build/guests
"""
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import sys
import unittest

try:
    import numpy as np
    import onnxruntime as ort
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    from tritonclient.utils import InferenceServerException
except ImportError as e:  # the venv scripts/remote-servers.sh installs is not there
    print(f"skipped: {e} (run with .deps/venv-triton-0.7.0/bin/python)")
    sys.exit(77)

from oip_server_process import Server, parse_args, run_tests, wait_logged

ARGS = None
SERVER = None
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
TIMEOUT_MS = 3000


def guest(name):
    return os.path.join(ARGS.guests, f"{name}.component.wasm")


def the_image():
    """The mobilenet fixture's normalised input, turned back into bytes."""
    x = np.fromfile(os.path.join(ARGS.fixtures, "mobilenet_v2", "input.f32"), np.float32).reshape(3, 224, 224)
    hwc = (x.transpose(1, 2, 0) * STD + MEAN) * 255
    return np.clip(np.rint(hwc), 0, 255).astype(np.uint8)


def native_top5(image):
    """The pipeline's steps with numpy and ONNX Runtime's Python API."""
    x = ((image.astype(np.float32) / np.float32(255) - MEAN) / STD).transpose(2, 0, 1)[None].copy()
    s = ort.InferenceSession(os.path.join(ARGS.fixtures, "mobilenet_v2", "model.onnx"), providers=["CPUExecutionProvider"])
    logits = s.run(None, {"input": x})[0][0].astype(np.float64)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    top = np.argsort(-logits, kind="stable")[:5]
    return top.astype(np.int64), p[top].astype(np.float32)


def clients():
    return [httpclient.InferenceServerClient(url=SERVER.http), grpcclient.InferenceServerClient(url=SERVER.grpc)]


def infer(c, model, name, array, datatype, binary=True):
    mod = httpclient if isinstance(c, httpclient.InferenceServerClient) else grpcclient
    i = mod.InferInput(name, list(array.shape), datatype)
    if mod is httpclient:
        i.set_data_from_numpy(array, binary_data=binary)
    else:
        i.set_data_from_numpy(array)
    return c.infer(model, [i])


class Classify(unittest.TestCase):
    def test_metadata_and_config(self):
        for c in clients():
            m = c.get_model_metadata("classify")
            m = m if isinstance(m, dict) else {"name": m.name, "platform": m.platform,
                                               "inputs": [{"name": t.name, "datatype": t.datatype, "shape": list(t.shape)} for t in m.inputs],
                                               "outputs": [{"name": t.name, "datatype": t.datatype, "shape": list(t.shape)} for t in m.outputs]}
            self.assertEqual(m["platform"], "wasinn_pipeline")
            self.assertEqual(m["inputs"], [{"name": "image", "datatype": "UINT8", "shape": [224, 224, 3]}])
            self.assertEqual(m["outputs"], [{"name": "classes", "datatype": "INT64", "shape": [5]},
                                            {"name": "scores", "datatype": "FP32", "shape": [5]}])
            self.assertTrue(c.is_model_ready("classify"))
        cfg = clients()[0].get_model_config("classify")
        self.assertEqual(cfg["backend"], "wasinn_pipeline")
        index = [m["name"] for m in clients()[0].get_model_repository_index()]
        self.assertIn("classify", index)

    def test_top5_equals_the_same_steps_done_natively(self):
        image = the_image()
        want_classes, want_scores = native_top5(image)
        for c in clients():
            for binary in (True, False):
                r = infer(c, "classify", "image", image, "UINT8", binary)
                np.testing.assert_array_equal(r.as_numpy("classes"), want_classes)
                np.testing.assert_allclose(r.as_numpy("scores"), want_scores, rtol=1e-4, atol=1e-6)
        # Best first (the fixture's weights are random, so the probabilities are all near 1/1000).
        self.assertTrue(np.all(np.diff(want_scores) <= 0))

    def test_concurrent_requests_each_get_their_own_answer(self):
        rng = np.random.default_rng(3)
        images = [the_image()] + [rng.integers(0, 256, size=(224, 224, 3), dtype=np.uint8) for _ in range(5)]
        want = [native_top5(im)[0] for im in images]

        def one(k):
            c = clients()[k % 2]
            return k, infer(c, "classify", "image", images[k % len(images)], "UINT8").as_numpy("classes")

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for k, got in pool.map(one, range(24)):
                np.testing.assert_array_equal(got, want[k % len(images)])

    def test_requests_that_do_not_fit_are_400(self):
        c = clients()[0]
        cases = [
            (("image", np.zeros((224, 224, 3), np.float32), "FP32"), "has datatype FP32; pipeline 'classify' takes UINT8"),
            (("image", np.zeros((224, 224, 4), np.uint8), "UINT8"), "has shape [224, 224, 4]"),
            (("picture", np.zeros((224, 224, 3), np.uint8), "UINT8"), "has no input 'picture' (its inputs: image)"),
        ]
        for (name, array, datatype), message in cases:
            with self.assertRaises(InferenceServerException) as e:
                infer(c, "classify", name, array, datatype)
            self.assertEqual(e.exception.status(), "400")
            self.assertIn(message, e.exception.message())
        with self.assertRaises(InferenceServerException) as e:
            c.infer("classify", [])
        self.assertIn("needs the input 'image'", e.exception.message())
        with self.assertRaises(InferenceServerException) as e:
            c.infer("classify", [httpclient.InferInput("image", [224, 224, 3], "UINT8").set_data_from_numpy(the_image())],
                    outputs=[httpclient.InferRequestedOutput("labels")])
        self.assertIn("has no output 'labels' (its outputs: classes, scores)", e.exception.message())

    def test_one_output_by_name(self):
        r = clients()[0].infer("classify", [httpclient.InferInput("image", [224, 224, 3], "UINT8").set_data_from_numpy(the_image())],
                               outputs=[httpclient.InferRequestedOutput("scores")])
        self.assertIsNone(r.as_numpy("classes"))
        self.assertEqual(r.as_numpy("scores").shape, (5,))


class Faults(unittest.TestCase):
    def mode(self, c, m):
        return infer(c, "faults", "mode", np.array([m], np.int32), "INT32")

    def expect(self, m, http_status, grpc_status, text):
        for c in clients():
            with self.assertRaises(InferenceServerException) as e:
                self.mode(c, m)
            self.assertEqual(e.exception.status(), http_status if isinstance(c, httpclient.InferenceServerClient) else grpc_status)
            self.assertIn(text, e.exception.message())
            # The server and the pipeline go on.
            self.assertEqual(int(self.mode(c, 0).as_numpy("echo")[0]), 0)

    def test_answers(self):
        for c in clients():
            self.assertEqual(int(self.mode(c, 0).as_numpy("echo")[0]), 0)

    def test_invalid_input_is_400(self):
        self.expect(1, "400", "StatusCode.INVALID_ARGUMENT", "mode 1 is refused as invalid input")

    def test_failed_is_500(self):
        self.expect(2, "500", "StatusCode.INTERNAL", "mode 2 fails")

    def test_a_wasi_nn_error_inside_is_the_guests_to_report(self):
        self.expect(6, "500", "StatusCode.INTERNAL", "load-by-name no-such-model failed")

    def test_a_trap_is_500_and_only_ends_that_instance(self):
        self.expect(3, "500", "StatusCode.INTERNAL", "the pipeline failed: the guest trapped")

    def test_an_output_that_does_not_fit_its_dims_is_500(self):
        self.expect(5, "500", "StatusCode.INTERNAL", "the pipeline's output 'echo' has 3 bytes, not the 4")

    def test_a_spinning_guest_is_stopped_at_the_deadline(self):
        self.expect(4, "504", "StatusCode.DEADLINE_EXCEEDED", f"the pipeline ran past its deadline ({TIMEOUT_MS} ms)")
        # The access log says the deadline cut them, over REST and gRPC alike.
        wait_logged(SERVER.lines, self, r"POST /v2/models/faults/infer 504 .*cut:timeout",
                    r"gRPC /inference.GRPCInferenceService/ModelInfer model=faults 504 .*cut:timeout")


class Drain(unittest.TestCase):
    def test_requests_still_running_at_the_drains_end_are_logged_cut_shutdown(self):
        """A spinning pipeline over REST and over gRPC when SIGTERM comes, --shutdown-timeout 500ms:
        both are logged as cut by the server before it exits, not lost."""
        cmd = [ARGS.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--oip-grpc", "127.0.0.1:0", "--backend-dir",
               ARGS.backend_dir, "--pipeline", f"faults={guest('pipeline_faults')}", "--request-timeout", "20s",
               "--shutdown-timeout", "500ms"]
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        lines, addresses = [], {}
        try:
            while len(addresses) < 2:
                line = proc.stderr.readline()
                self.assertTrue(line, "the server ended before it listened:\n" + "".join(lines))
                lines.append(line)
                m = re.search(r"\((REST|gRPC)\) on (?:http://)?([^/\s]+)", line)
                if m:
                    addresses[m.group(1)] = m.group(2)
            spinning = [httpclient.InferenceServerClient(url=addresses["REST"], network_timeout=30),
                        grpcclient.InferenceServerClient(url=addresses["gRPC"])]
            pool = concurrent.futures.ThreadPoolExecutor(2)
            calls = [pool.submit(infer, c, "faults", "mode", np.array([4], np.int32), "INT32") for c in spinning]
            time.sleep(1.0)  # both are computing
            proc.send_signal(signal.SIGTERM)
            _, rest = proc.communicate(timeout=30)
            text = "".join(lines) + rest
            self.assertRegex(text, r"POST /v2/models/faults/infer 503 .*cut:shutdown")
            self.assertRegex(text, r"gRPC /inference.GRPCInferenceService/ModelInfer model=faults \d+ .*cut:shutdown")
            for call in calls:
                with self.assertRaises(Exception):  # the server went away under them
                    call.result(timeout=30)
            pool.shutdown()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


class StartErrors(unittest.TestCase):
    def start(self, *args):
        cmd = [ARGS.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--backend-dir", ARGS.backend_dir, *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    def test_errors_name_the_flag_and_what_to_do(self):
        core = os.path.join(ARGS.guests, "classify_digits.wasm")
        cases = [
            (["--pipeline", "classify"], "--pipeline 'classify': expected NAME=COMPONENT"),
            (["--pipeline", "a/b=x.wasm"], "expected NAME=COMPONENT"),
            (["--pipeline", f"p={core}"], "is a core module; a pipeline is a component that exports wasinn:pipeline/model"),
            (["--pipeline", f"p={guest('wit_library')}"], "exports no wasinn:pipeline/model@0.1.0"),
            (["--pipeline", "p=/no/such.wasm"], "/no/such.wasm"),
            (["--pipeline", f"p={guest('pipeline_faults')}", "--pipeline", f"p={guest('pipeline_faults')}"],
             "the name 'p' is already served"),
        ]
        for args, message in cases:
            r = self.start(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(message, r.stderr, args)
        r = subprocess.run([ARGS.wasinn, "serve", "--pipeline", f"p={guest('pipeline_faults')}", guest("pipeline_faults")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--pipeline is for --oip-http/--oip-grpc", r.stderr)

    def test_a_model_the_pipeline_loads_must_be_registered(self):
        # pipeline_classify's models export names mobilenet_v2: without it the start fails at once,
        # rather than serving a pipeline whose every request is a 500.
        f = ARGS.fixtures
        r = self.start("--pipeline", f"classify={guest('pipeline_classify')}")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--pipeline classify: it loads the model 'mobilenet_v2', which is not registered (register it "
                      "with --nn-preload mobilenet_v2:ENCODING:TARGET:PATH", r.stderr)
        self.assertIn("the models: none)", r.stderr)
        self.assertNotIn("Serving", r.stderr)
        r = self.start("--nn-preload", f"mobilenet_v1:onnx:cpu:{f}/mobilenet_v2/model.onnx",
                       "--pipeline", f"classify={guest('pipeline_classify')}")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("'mobilenet_v2', which is not registered; did you mean 'mobilenet_v1'?", r.stderr)
        # The same for a pipeline from a --model-repository (NAME/VERSION/model.wasm).
        repo = tempfile.mkdtemp(prefix="wasinn-pipeline-repo-")
        try:
            os.makedirs(os.path.join(repo, "classify", "1"))
            shutil.copy(guest("pipeline_classify"), os.path.join(repo, "classify", "1", "model.wasm"))
            r = self.start("--model-repository", repo)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--pipeline classify: it loads the model 'mobilenet_v2', which is not registered", r.stderr)
        finally:
            shutil.rmtree(repo, ignore_errors=True)

    def test_a_repository_pipeline_cannot_batch(self):
        repo = tempfile.mkdtemp(prefix="wasinn-pipeline-repo-")
        try:
            os.makedirs(os.path.join(repo, "faults", "1"))
            shutil.copy(guest("pipeline_faults"), os.path.join(repo, "faults", "1", "model.wasm"))
            with open(os.path.join(repo, "faults", "config.json"), "w") as c:
                c.write('{"max_batch_size": 4}')
            r = self.start("--model-repository", repo)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("'faults' is a pipeline (model.wasm): dynamic batching (max_batch_size) is for models", r.stderr)
            r = self.start("--pipeline", f"p={guest('pipeline_faults')}", "--dynamic-batching", "p=4")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--dynamic-batching 'p=4': 'p' is a pipeline: dynamic batching is for models", r.stderr)
        finally:
            shutil.rmtree(repo, ignore_errors=True)

    def test_a_repository_pipeline_alone_is_enough_to_serve(self):
        repo = tempfile.mkdtemp(prefix="wasinn-pipeline-repo-")
        try:
            os.makedirs(os.path.join(repo, "faults", "2"))
            shutil.copy(guest("pipeline_faults"), os.path.join(repo, "faults", "2", "model.wasm"))
            r = subprocess.Popen([ARGS.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--backend-dir", ARGS.backend_dir,
                                  "--model-repository", repo], stderr=subprocess.PIPE, text=True)
            try:
                line = r.stderr.readline()
                self.assertIn("(1 model)", line)
                c = httpclient.InferenceServerClient(url=re.search(r"http://([^/]+)/v2", line).group(1))
                m = c.get_model_metadata("faults")
                self.assertEqual((m["platform"], m["versions"]), ("wasinn_pipeline", ["2"]))
                i = httpclient.InferInput("mode", [1], "INT32")
                i.set_data_from_numpy(np.array([0], np.int32))
                self.assertEqual(int(c.infer("faults", [i], model_version="2").as_numpy("echo")[0]), 0)
            finally:
                r.terminate()
                r.wait(timeout=60)
        finally:
            shutil.rmtree(repo, ignore_errors=True)


def main():
    global ARGS, SERVER
    ARGS, rest = parse_args("--guests")
    for g in ("pipeline_classify", "pipeline_faults"):
        if not os.path.exists(guest(g)):
            print(f"skipped: {guest(g)} was not built (component guests need node and jco)")
            return 77
    f = ARGS.fixtures
    SERVER = Server(ARGS, ["--nn-preload", f"mobilenet_v2:onnx:cpu:{f}/mobilenet_v2/model.onnx",
                           "--pipeline", f"classify={guest('pipeline_classify')}",
                           "--pipeline", f"faults={guest('pipeline_faults')}",
                           "--request-timeout", f"{TIMEOUT_MS}ms"])
    return run_tests(SERVER, rest)


if __name__ == "__main__":
    sys.exit(main())
