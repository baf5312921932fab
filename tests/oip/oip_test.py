#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve --oip-http/--oip-grpc` end to end, with the ecosystem's own clients.

A real `wasinn serve` (REST and gRPC on free ports, read back from its stderr) serves the tiny
MLP from a Triton-style --model-repository and the digits MLP and the types fixtures from
--nn-preload; Triton's Python client (tritonclient.http and .grpc, from .deps/venv-triton-0.7.0)
checks metadata, infer (JSON, binary extension, gRPC raw and typed contents), every datatype the
types fixtures cover, errors in the protocol's shape, the repository, configuration and
statistics extensions, and a clean SIGTERM. Answers equal ONNX Runtime's Python API on the same
model files. Run by ctest (tests/oip/CMakeLists.txt) with the triton venv's python:

  oip_test.py --wasinn build/wasinn --backend-dir build/lib/wasinn/backends --fixtures ~/.cache/wasinn/fixtures
"""
import http.client
import json
import os
import re
import signal
import sys
import threading
import time
import unittest

try:
    import ml_dtypes
    import numpy as np
    import onnxruntime as ort
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    from tritonclient.grpc import service_pb2, service_pb2_grpc
    from tritonclient.utils import InferenceServerException
except ImportError as e:  # the venv scripts/remote-servers.sh installs is not there
    print(f"skipped: {e} (run with .deps/venv-triton-0.7.0/bin/python)")
    sys.exit(77)

from oip_server_process import MAX_REQUEST_BYTES, Server, parse_args, run_tests, wait_logged

ARGS = None
SERVER = None  # the Server every test shares


def ort_run(path, feeds):
    s = ort.InferenceSession(os.path.join(ARGS.fixtures, path), providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(None, feeds)))


def http_client():
    return httpclient.InferenceServerClient(url=SERVER.http)


def grpc_client():
    return grpcclient.InferenceServerClient(url=SERVER.grpc)


def raw_http(method, path, body=None, headers=None):
    host, port = SERVER.http.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data, r


class Health(unittest.TestCase):
    def test_live_ready_metadata(self):
        for c in (http_client(), grpc_client()):
            self.assertTrue(c.is_server_live())
            self.assertTrue(c.is_server_ready())
            for m in ("tiny", "digits", "identity"):
                self.assertTrue(c.is_model_ready(m))
            self.assertFalse(c.is_model_ready("nosuch")) if c.__module__.startswith("tritonclient.http") else None
        meta = http_client().get_server_metadata()
        self.assertEqual(meta["name"], "wasinn")
        self.assertIn("binary_tensor_data", meta["extensions"])
        g = grpc_client().get_server_metadata()
        self.assertEqual(g.name, "wasinn")

    def test_model_metadata(self):
        m = http_client().get_model_metadata("tiny")
        self.assertEqual(m["name"], "tiny")
        self.assertEqual(m["versions"], ["3"])  # the highest version directory
        self.assertEqual(m["inputs"], [{"name": "x", "datatype": "FP32", "shape": [1, 4]}])
        self.assertEqual(m["outputs"], [{"name": "y", "datatype": "FP32", "shape": [1, 4]}])
        d = grpc_client().get_model_metadata("digits")
        self.assertEqual(d.inputs[0].name, "input")
        self.assertEqual(list(d.inputs[0].shape), [-1, 64])  # a dynamic dimension
        self.assertEqual(d.outputs[0].datatype, "FP32")
        ident = http_client().get_model_metadata("identity")
        self.assertEqual([i["datatype"] for i in ident["inputs"]],
                         ["FP16", "FP32", "FP64", "BF16", "UINT8", "INT32", "INT64"])
        self.assertEqual(http_client().get_model_metadata("tiny", model_version="3")["name"], "tiny")
        status, body, _ = raw_http("GET", "/v2/models/tiny/versions/1")
        self.assertEqual(status, 404)
        self.assertIn("error", json.loads(body))

    def test_config_and_stats(self):
        cfg = http_client().get_model_config("digits")
        self.assertEqual(cfg["max_batch_size"], 0)
        self.assertEqual(cfg["input"][0]["data_type"], "TYPE_FP32")
        self.assertEqual(cfg["input"][0]["dims"], [-1, 64])
        g = grpc_client().get_model_config("digits")
        self.assertEqual(g.config.input[0].dims, [-1, 64])
        self.assertEqual(g.config.output[0].name, "logits")
        x = np.ones((1, 4), np.float32)
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(x)
        http_client().infer("tiny", [inp])
        st = http_client().get_inference_statistics("tiny")["model_stats"][0]
        self.assertEqual(st["name"], "tiny")
        self.assertGreaterEqual(st["inference_stats"]["success"]["count"], 1)
        gs = grpc_client().get_inference_statistics("tiny").model_stats[0]
        self.assertGreaterEqual(gs.inference_stats.success.count, 1)
        self.assertGreaterEqual(gs.execution_count, 1)


class Infer(unittest.TestCase):
    def test_tiny_json_and_binary_http(self):
        x = np.array([[0.5, -1.0, 2.0, 3.25]], np.float32)
        want = ort_run("tiny/model.onnx", {"x": x})["y"]
        for binary_in in (False, True):
            for binary_out in (False, True):
                inp = httpclient.InferInput("x", [1, 4], "FP32")
                inp.set_data_from_numpy(x, binary_data=binary_in)
                out = httpclient.InferRequestedOutput("y", binary_data=binary_out)
                r = http_client().infer("tiny", [inp], outputs=[out], request_id="r1")
                np.testing.assert_allclose(r.as_numpy("y"), want, rtol=1e-6)
                self.assertEqual(r.get_response()["id"], "r1")
                self.assertEqual(r.get_response()["model_version"], "3")

    def test_digits_grpc_against_ort_and_labels(self):
        f = ARGS.fixtures
        x = np.fromfile(os.path.join(f, "digits", "test_x.f32"), np.float32).reshape(-1, 64)[:16]
        labels = np.fromfile(os.path.join(f, "digits", "test_y.u8"), np.uint8)[:16]
        want = ort_run("digits/model.onnx", {"input": x})["logits"]
        inp = grpcclient.InferInput("input", list(x.shape), "FP32")
        inp.set_data_from_numpy(x)
        r = grpc_client().infer("digits", [inp])
        got = r.as_numpy("logits")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        self.assertGreaterEqual((got.argmax(1) == labels).mean(), 0.9)
        # the same over REST, JSON both ways
        hin = httpclient.InferInput("input", list(x.shape), "FP32")
        hin.set_data_from_numpy(x, binary_data=False)
        hr = http_client().infer("digits", [hin], outputs=[httpclient.InferRequestedOutput("logits", binary_data=False)])
        np.testing.assert_allclose(hr.as_numpy("logits"), want, rtol=1e-5, atol=1e-5)

    def test_every_type(self):
        rng = np.random.default_rng(7)
        arrays = {
            "f16": rng.standard_normal((2, 3)).astype(np.float16),
            "f32": rng.standard_normal((2, 3)).astype(np.float32),
            "f64": rng.standard_normal((2, 3)),
            "bf16": np.array([[1.5, -2.0, 0.25], [3.0, 100.0, -0.125]], ml_dtypes.bfloat16),
            "u8": rng.integers(0, 255, (2, 3)).astype(np.uint8),
            "i32": rng.integers(-2**31, 2**31 - 1, (2, 3)).astype(np.int32),
            "i64": rng.integers(-2**62, 2**62, (2, 3)).astype(np.int64),
        }
        dt = {"f16": "FP16", "f32": "FP32", "f64": "FP64", "bf16": "BF16", "u8": "UINT8", "i32": "INT32", "i64": "INT64"}
        for mod, client in ((httpclient, http_client()), (grpcclient, grpc_client())):
            for binary in ((False, True) if mod is httpclient else (True,)):
                inputs = []
                for t, a in arrays.items():
                    i = mod.InferInput(f"in_{t}", [2, 3], dt[t])
                    if mod is httpclient:
                        i.set_data_from_numpy(a, binary_data=binary or t == "bf16")  # tritonclient: BF16 binary only
                    else:
                        i.set_data_from_numpy(a)
                    inputs.append(i)
                outputs = None
                if mod is httpclient:
                    outputs = [httpclient.InferRequestedOutput(f"out_{t}", binary_data=binary or t == "bf16") for t in arrays]
                r = client.infer("identity", inputs, outputs=outputs)
                for t, a in arrays.items():
                    got = r.as_numpy(f"out_{t}")
                    self.assertEqual(got.shape, (2, 3), t)
                    np.testing.assert_array_equal(got.astype(a.dtype), a, err_msg=f"{t} binary={binary}")

    def test_requested_outputs_only(self):
        a = np.array([[1, 2, 3]], np.float32)
        b = np.array([[4, 5, 6]], np.int64)
        want = ort_run("types/two_inputs.onnx", {"a": a, "b": b})
        ia, ib = httpclient.InferInput("a", [1, 3], "FP32"), httpclient.InferInput("b", [1, 3], "INT64")
        ia.set_data_from_numpy(a)
        ib.set_data_from_numpy(b)
        r = http_client().infer("two_inputs", [ia, ib], outputs=[httpclient.InferRequestedOutput("b_times_2")])
        self.assertEqual([o["name"] for o in r.get_response()["outputs"]], ["b_times_2"])
        np.testing.assert_array_equal(r.as_numpy("b_times_2"), want["b_times_2"])
        r = http_client().infer("two_inputs", [ia, ib])
        self.assertEqual([o["name"] for o in r.get_response()["outputs"]], ["sum", "b_times_2"])
        np.testing.assert_array_equal(r.as_numpy("sum"), want["sum"])

    def test_dynamic_and_scalar_shapes(self):
        x = np.arange(5, dtype=np.float32)
        s = np.array(3, np.int64)
        want = ort_run("types/scale_by_scalar.onnx", {"x": x, "s": s})
        ix, isc = grpcclient.InferInput("x", [5], "FP32"), grpcclient.InferInput("s", [], "INT64")
        ix.set_data_from_numpy(x)
        isc.set_data_from_numpy(s)
        r = grpc_client().infer("scale", [ix, isc])
        np.testing.assert_allclose(r.as_numpy("y"), want["y"])
        np.testing.assert_allclose(r.as_numpy("total"), want["total"])

    def test_grpc_typed_contents(self):
        client = grpc_client()  # owns the channel
        stub = service_pb2_grpc.GRPCInferenceServiceStub(client._channel)
        req = service_pb2.ModelInferRequest(model_name="tiny")
        t = req.inputs.add(name="x", datatype="FP32", shape=[1, 4])
        t.contents.fp32_contents.extend([0.5, -1.0, 2.0, 3.25])
        resp = stub.ModelInfer(req)
        got = np.frombuffer(resp.raw_output_contents[0], np.float32).reshape(1, 4)
        want = ort_run("tiny/model.onnx", {"x": np.array([[0.5, -1.0, 2.0, 3.25]], np.float32)})["y"]
        np.testing.assert_allclose(got, want, rtol=1e-6)

    def test_concurrent_requests(self):
        x = np.random.default_rng(1).standard_normal((64, 1, 4)).astype(np.float32)
        want = [ort_run("tiny/model.onnx", {"x": row})["y"] for row in x[:1]]
        errors = []

        def one(i):
            try:
                c = grpc_client() if i % 2 else http_client()
                mod = grpcclient if i % 2 else httpclient
                inp = mod.InferInput("x", [1, 4], "FP32")
                inp.set_data_from_numpy(x[i])
                got = c.infer("tiny", [inp]).as_numpy("y")
                ref = ort_run("tiny/model.onnx", {"x": x[i]})["y"] if i else want[0]
                np.testing.assert_allclose(got, ref, rtol=1e-6)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))
        threads = [threading.Thread(target=one, args=(i,)) for i in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])


class Errors(unittest.TestCase):
    def http_error(self, call):
        with self.assertRaises(InferenceServerException) as cm:
            call()
        return cm.exception

    def test_unknown_model(self):
        e = self.http_error(lambda: http_client().get_model_metadata("nosuch"))
        self.assertEqual(e.status(), "404")
        self.assertIn("unknown model 'nosuch'", e.message())
        e = self.http_error(lambda: grpc_client().get_model_metadata("nosuch"))
        self.assertEqual(e.status(), "StatusCode.NOT_FOUND")
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(np.zeros((1, 4), np.float32))
        e = self.http_error(lambda: http_client().infer("nosuch", [inp]))
        self.assertEqual(e.status(), "404")
        status, body, _ = raw_http("POST", "/v2/models/nosuch/infer", body=b"{}")
        self.assertEqual(status, 404)
        self.assertEqual(list(json.loads(body)), ["error"])

    def test_wrong_shape(self):
        for mod, c, code in ((httpclient, http_client(), "400"), (grpcclient, grpc_client(), "StatusCode.INVALID_ARGUMENT")):
            inp = mod.InferInput("x", [1, 5], "FP32")
            inp.set_data_from_numpy(np.zeros((1, 5), np.float32))
            e = self.http_error(lambda: c.infer("tiny", [inp]))
            self.assertEqual(e.status(), code)
            self.assertIn("shape", e.message())
        # data that does not fill the shape it claims
        body = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4], "data": [1, 2, 3]}]})
        status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=body)
        self.assertEqual(status, 400)
        self.assertIn("elements", json.loads(data)["error"])

    def test_wrong_datatype(self):
        for mod, c, code in ((httpclient, http_client(), "400"), (grpcclient, grpc_client(), "StatusCode.INVALID_ARGUMENT")):
            inp = mod.InferInput("x", [1, 4], "INT32")
            inp.set_data_from_numpy(np.zeros((1, 4), np.int32))
            e = self.http_error(lambda: c.infer("tiny", [inp]))
            self.assertEqual(e.status(), code)
            inp = mod.InferInput("x", [1, 4], "UINT16")
            inp.set_data_from_numpy(np.zeros((1, 4), np.uint16))
            e = self.http_error(lambda: c.infer("tiny", [inp]))
            self.assertEqual(e.status(), code)
            self.assertIn("UINT16", e.message())
            # types in the protocol's words, never wasinn's (f64, f32)
            inp = mod.InferInput("x", [1, 4], "FP64")
            inp.set_data_from_numpy(np.zeros((1, 4), np.float64))
            e = self.http_error(lambda: c.infer("tiny", [inp]))
            self.assertEqual(e.status(), code)
            self.assertIn("input 'x' is FP64, but the model takes FP32; the model's inputs are x (FP32 [1, 4])",
                          e.message())

    def test_misnamed_input_is_named_before_its_data(self):
        # a short data array under a wrong name: the name is the mistake to report
        body = json.dumps({"inputs": [{"name": "nope", "datatype": "FP32", "shape": [1, 4], "data": [1, 2]}]})
        status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=body)
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(data)["error"],
                         "the model has no input named 'nope'; the model's inputs are x (FP32 [1, 4])")
        client = grpc_client()  # owns the channel
        req = service_pb2.ModelInferRequest(model_name="tiny")
        t = req.inputs.add(name="nope", datatype="FP32", shape=[1, 4])
        t.contents.fp32_contents.extend([1.0, 2.0])
        with self.assertRaises(Exception) as cm:
            service_pb2_grpc.GRPCInferenceServiceStub(client._channel).ModelInfer(req)
        self.assertEqual(cm.exception.code().name, "INVALID_ARGUMENT")
        self.assertEqual(cm.exception.details(),
                         "the model has no input named 'nope'; the model's inputs are x (FP32 [1, 4])")

    def test_syntax_error_says_where(self):
        status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=b'{"inputs": [{"name": "x",, }]}')
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(data)["error"], "the request is not valid JSON: syntax error at byte 26 "
                         "(line 1, column 26): unexpected ','; expected string literal")
        status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=b'[]')
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(data)["error"], "the request is a JSON array, not an object")

    def test_body_too_large(self):
        x = np.zeros((4000, 64), np.float32)  # 1,024,000 bytes > --max-request-bytes
        inp = httpclient.InferInput("input", list(x.shape), "FP32")
        inp.set_data_from_numpy(x, binary_data=True)
        e = self.http_error(lambda: http_client().infer("digits", [inp]))
        self.assertEqual(e.status(), "413")
        self.assertIn("--max-request-bytes", e.message())
        g = grpcclient.InferInput("input", list(x.shape), "FP32")
        g.set_data_from_numpy(x)
        e = self.http_error(lambda: grpc_client().infer("digits", [g]))
        self.assertEqual(e.status(), "StatusCode.RESOURCE_EXHAUSTED")

    def test_malformed_requests(self):
        cases = [
            b"not json",
            b"[]",
            b'{"inputs": 3}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, -4], "data": []}]}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4], "data": [1, 2, 3, "a"]}]}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4]}]}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [99999999999, 99999999999, 99999999999], "data": []}]}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4], "parameters": {"binary_data_size": 16}}]}',
            b'{"inputs": [{"name": "nope", "datatype": "FP32", "shape": [1, 4], "data": [1, 2, 3, 4]}]}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4], "data": [1, 2, 3, 4]}], "outputs": [{"name": "zz"}]}',
            b'{"inputs": [{"name": "x", "datatype": "BYTES", "shape": [1], "data": ["a"]}]}',
            b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4], "data": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]}',
        ]
        for body in cases:
            status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=body)
            self.assertEqual(status, 400, body)
            self.assertIsInstance(json.loads(data)["error"], str)
        # a header length past the body
        status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=b"{}",
                                   headers={"Inference-Header-Content-Length": "99"})
        self.assertEqual(status, 400)
        # binary bytes no input claims
        js = b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4], "data": [1, 2, 3, 4]}]}'
        status, data, _ = raw_http("POST", "/v2/models/tiny/infer", body=js + b"\0" * 8,
                                   headers={"Inference-Header-Content-Length": str(len(js))})
        self.assertEqual(status, 400)
        self.assertIn("claims", json.loads(data)["error"])


class Repository(unittest.TestCase):
    def test_index_unload_load(self):
        c, g = http_client(), grpc_client()
        names = {m["name"]: m for m in c.get_model_repository_index()}
        self.assertEqual(names["tiny"]["state"], "READY")
        self.assertEqual(names["tiny"]["version"], "3")
        self.assertIn("digits", names)
        c.unload_model("tiny")
        self.assertFalse(c.is_model_ready("tiny"))
        self.assertFalse(g.is_model_ready("tiny"))
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(np.zeros((1, 4), np.float32))
        with self.assertRaises(InferenceServerException) as cm:
            c.infer("tiny", [inp])
        self.assertEqual(cm.exception.status(), "503")
        idx = {m.name: m for m in g.get_model_repository_index().models}
        self.assertEqual(idx["tiny"].state, "UNAVAILABLE")
        g.load_model("tiny")
        self.assertTrue(c.is_model_ready("tiny"))
        c.infer("tiny", [inp])
        with self.assertRaises(InferenceServerException) as cm:
            g.load_model("nosuch")
        self.assertEqual(cm.exception.status(), "StatusCode.NOT_FOUND")


class InFrontOfAServer(unittest.TestCase):
    """A second wasinn serves the first one's model through the remote backend (a wasinn in front
    of a cluster): the remote plugin and the server share one registration of inference.proto."""

    def test_remote_models_over_both_transports(self):
        import subprocess
        cmd = [ARGS.wasinn, "serve", "--oip-grpc", "127.0.0.1:0", "--oip-http", "127.0.0.1:0",
               "--backend-dir", ARGS.backend_dir,
               "--nn-remote", f"via_grpc=grpc://{SERVER.grpc}/models/tiny",
               "--nn-remote", f"via_http=http://{SERVER.http}/models/tiny"]
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        try:
            front_http = front_grpc = None
            lines = []
            while not (front_http and front_grpc):
                line = proc.stderr.readline()
                self.assertTrue(line, "front server ended:\n" + "".join(lines))
                lines.append(line)
                m = re.search(r"\(REST\) on http://([^/]+)/v2", line)
                front_http = m.group(1) if m else front_http
                m = re.search(r"\(gRPC\) on (\S+)", line)
                front_grpc = m.group(1) if m else front_grpc
            x = np.array([[0.5, -1.0, 2.0, 3.25]], np.float32)
            want = ort_run("tiny/model.onnx", {"x": x})["y"]
            for name in ("via_grpc", "via_http"):
                meta = httpclient.InferenceServerClient(url=front_http).get_model_metadata(name)
                self.assertEqual(meta["inputs"][0]["shape"], [1, 4])
                inp = grpcclient.InferInput("x", [1, 4], "FP32")
                inp.set_data_from_numpy(x)
                got = grpcclient.InferenceServerClient(url=front_grpc).infer(name, [inp]).as_numpy("y")
                np.testing.assert_allclose(got, want, rtol=1e-6)
        finally:
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(timeout=60), 0)
            proc.stderr.close()


def start_front(extra):
    """A wasinn serve of its own (REST only) with mobilenet_v2, whose compute takes milliseconds."""
    import subprocess
    model = os.path.join(ARGS.fixtures, "mobilenet_v2", "model.onnx")
    cmd = [ARGS.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--backend-dir", ARGS.backend_dir,
           "--metrics-addr", "127.0.0.1:0", "--nn-preload", f"mobilenet:onnx:cpu:{model}", *extra]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    lines = []
    metrics = None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("wasinn serve ended:\n" + "".join(lines))
        lines.append(line)
        m = re.search(r"metrics at (http://\S+)", line)
        metrics = m.group(1) if m else metrics
        m = re.search(r"\(REST\) on http://([^/]+)/v2", line)
        if m:
            threading.Thread(target=lambda: [lines.append(x) for x in proc.stderr], daemon=True).start()
            return proc, m.group(1), lines, metrics


def in_flight(metrics):
    import urllib.request
    text = urllib.request.urlopen(metrics, timeout=30).read().decode()
    m = re.search(r"^wasinn_http_requests_in_flight (\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def mobilenet_infer(url, results, start):
    """One request, sent when every thread waiting on `start` (a Barrier) has its input ready."""
    x = np.fromfile(os.path.join(ARGS.fixtures, "mobilenet_v2", "input.f32"), np.float32).reshape(1, 3, 224, 224)
    inp = httpclient.InferInput("input", [1, 3, 224, 224], "FP32")
    inp.set_data_from_numpy(x)
    client = httpclient.InferenceServerClient(url=url, network_timeout=120)
    start.wait()
    try:
        r = client.infer("mobilenet", [inp])
        want = np.fromfile(os.path.join(ARGS.fixtures, "mobilenet_v2", "expected.f32"), np.float32)
        results.append(("200", bool(np.allclose(r.as_numpy("output").ravel(), want, rtol=1e-3, atol=1e-3))))
    except InferenceServerException as e:
        results.append((e.status(), e.message()))
    except Exception as e:  # noqa: BLE001 - a connection the server never accepted
        results.append(("error", repr(e)))


class Limits(unittest.TestCase):
    def test_full_queue_is_503_and_the_rest_are_right(self):
        proc, url, lines, _ = start_front(["--workers", "1", "--max-queue", "0"])
        try:
            results = []
            start = threading.Barrier(12)
            threads = [threading.Thread(target=mobilenet_infer, args=(url, results, start)) for _ in range(12)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            codes = [r[0] for r in results]
            self.assertIn("503", codes, results)  # one worker, no queue: some were turned away
            self.assertIn("200", codes, results)
            self.assertTrue(all(r[1] is True for r in results if r[0] == "200"), results)
            self.assertTrue(all("queue is full" in r[1] for r in results if r[0] == "503"), results)
        finally:
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(timeout=60), 0)

    def test_sigterm_finishes_the_requests_in_progress(self):
        proc, url, lines, metrics = start_front(["--workers", "1", "--max-queue", "16"])
        results = []
        start = threading.Barrier(6)
        threads = [threading.Thread(target=mobilenet_infer, args=(url, results, start)) for _ in range(6)]
        for t in threads:
            t.start()
        deadline = time.time() + 30
        while in_flight(metrics) < 2 and time.time() < deadline:
            time.sleep(0.005)
        running = in_flight(metrics)
        proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join()
        self.assertEqual(proc.wait(timeout=60), 0, "".join(lines))
        # Every request in progress at SIGTERM got its whole, right answer.
        ok = [r for r in results if r[0] == "200"]
        self.assertGreaterEqual(len(ok), min(running, 2), results)
        self.assertTrue(all(r[1] is True for r in ok), results)
        # The rest were refused: never accepted, or reached the server after SIGTERM (503), as a
        # thread still connecting when the signal came does.
        self.assertFalse([r for r in results if r[0] not in ("200", "error") and r != ("503", "the server is stopping")],
                         results)


class Metrics(unittest.TestCase):
    def test_wasi_nn_and_request_metrics(self):
        import urllib.request
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(np.zeros((1, 4), np.float32))
        http_client().infer("tiny", [inp])
        text = urllib.request.urlopen(SERVER.metrics, timeout=30).read().decode()
        self.assertRegex(text, r'wasinn_http_requests_total\{code="200"\} [1-9]')
        self.assertRegex(text, r'wasinn_nn_computes_total\{[^}]*graph="tiny"[^}]*\} [1-9]')


class AccessLog(unittest.TestCase):
    def test_one_line_per_request(self):
        raw_http("GET", "/v2/models/digits")
        grpc_client().get_model_metadata("digits")
        wait_logged(SERVER.lines, self, r"GET /v2/models/digits 200 in=0B out=\d+B",
                    r"gRPC /inference.GRPCInferenceService/ModelMetadata model=digits 200")


def main():
    global ARGS, SERVER
    ARGS, rest = parse_args()
    SERVER = Server(ARGS)
    return run_tests(SERVER, rest)


if __name__ == "__main__":
    sys.exit(main())
