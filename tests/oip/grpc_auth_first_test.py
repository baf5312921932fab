#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve --oip-grpc --api-key` checks the key before it reads a call's message: 24
unauthenticated ~60 MB ModelInfer calls (no key, or a wrong one; 4 in flight at a time) are each
refused UNAUTHENTICATED with the usual messages, the server's RSS (/proc/PID/status) stays within
a small bound while they arrive and is back within 10% of where it was after them, every refusal
has its 401 access-log line and count, the probes still need no key, and then an authenticated
infer of the tiny MLP answers x + (1, 2, 3, 4) within a second. Plaintext, and over TLS with a CA
made by openssl at test time. Before the check ran at call start, gRPC read each 60 MB message
whole (--max-request-bytes, 64 MiB by default) before the handler refused it: RSS went from
491 MB to 1.21 GB and 874 MB stayed (issue 79). Run by ctest (tests/oip/CMakeLists.txt:
oip.grpc_auth_first), with Triton's client and grpcio from .deps/venv-triton-0.7.0.
"""
import os
import re
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

try:
    import grpc
    import numpy as np
    import tritonclient.grpc as grpcclient
    from tritonclient.grpc import service_pb2
except ImportError as e:  # the venv scripts/remote-servers.sh installs is not there
    print(f"skipped: {e} (run with .deps/venv-triton-0.7.0/bin/python)")
    sys.exit(77)

from oip_server_process import parse_args, run_unittests, start_serve

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from process_memory import mib, rss_bytes, settled_rss  # noqa: E402

ARGS = None
KEY = "sk-grpc-auth-first"
MESSAGE_BYTES = 60_000_000  # under --max-request-bytes' default (64 MiB): gRPC would read it whole
CALLS = 24
IN_FLIGHT = 4
# What the server may grow by while the calls arrive: what gRPC reads of a call before it is
# refused is bounded by HTTP/2's flow-control windows (measured: +0.3 MiB; with gRPC's BDP
# probing, which opens them to megabytes, +10 to 75 MiB; reading the messages: +620 MiB).
GROWTH_BOUND = 8 * 1024 * 1024
TINY_BIAS = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)  # scripts/fixtures/onnx_graphs.py: y = x + bias
INFER = "/inference.GRPCInferenceService/ModelInfer"
NO_KEY = "this server needs an API key: send it as the metadata 'authorization: Bearer KEY'"
WRONG_KEY = "the API key is not one this server takes"


class PeakRss:
    """The highest RSS of `pid` seen while it runs (a thread reading it every 10 ms)."""

    def __init__(self, pid):
        self.pid, self.peak, self._stop = pid, rss_bytes(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, rss_bytes(self.pid))

    def stop(self):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes(self.pid))
        return self.peak


def big_infer_request():
    """A ModelInfer request for the tiny model of MESSAGE_BYTES of raw input, serialized once (the
    calls send these bytes as they are, so the client holds one copy)."""
    r = service_pb2.ModelInferRequest(model_name="tiny")
    x = r.inputs.add(name="x", datatype="FP32")
    x.shape.extend([1, MESSAGE_BYTES // 4])
    r.raw_input_contents.append(bytes(MESSAGE_BYTES))
    return r.SerializeToString()


def counter(metrics, code):
    text = urllib.request.urlopen(metrics, timeout=10).read().decode()
    m = re.search(rf'^wasinn_http_requests_total\{{code="{code}"\}} (\d+)$', text, re.M)
    return int(m.group(1)) if m else 0


class AuthFirst:
    """The cases, for a transport the subclass names: TLS or not."""

    TLS = False

    @classmethod
    def setUpClass(cls):
        flags = []
        cls.ca = None
        if cls.TLS:
            from tls_files import make_tls_files
            f = make_tls_files(tempfile.mkdtemp(prefix="wasinn-grpc-auth-tls-"))
            flags = ["--tls-cert", f["server.pem"], "--tls-key", f["server.key"]]
            with open(f["ca.pem"], "rb") as ca:
                cls.ca = ca.read()
        cmd = [ARGS.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--oip-grpc", "127.0.0.1:0", "--metrics-addr",
               "127.0.0.1:0", "--backend-dir", ARGS.backend_dir, "--nn-preload",
               f"tiny:onnx:cpu:{ARGS.fixtures}/tiny/model.onnx", "--api-key", KEY, *flags]
        cls.proc, cls.lines, _, cls.grpc, cls.metrics = start_serve(cmd)
        if cls.TLS:
            assert any("(gRPC over TLS)" in line for line in cls.lines), "no 'gRPC over TLS' line"

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(timeout=60)
        cls.proc.stderr.close()

    def channel(self):
        # Either way no limit on the client's side: the server's is what the test is about.
        options = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
        if self.TLS:
            return grpc.secure_channel(self.grpc, grpc.ssl_channel_credentials(root_certificates=self.ca), options)
        return grpc.insecure_channel(self.grpc, options)

    def triton(self):
        if self.TLS:
            return grpcclient.InferenceServerClient(url=self.grpc, ssl=True, root_certificates=self.ca_file())
        return grpcclient.InferenceServerClient(url=self.grpc)

    def ca_file(self):
        path = os.path.join(tempfile.mkdtemp(prefix="wasinn-grpc-auth-ca-"), "ca.pem")
        with open(path, "wb") as f:
            f.write(self.ca)
        return path

    def authenticated_infer(self, client):
        x = np.array([[0.5, -1.5, 2.25, 8.0]], np.float32)
        inp = grpcclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(x)
        r = client.infer("tiny", [inp], headers={"authorization": f"Bearer {KEY}"}, client_timeout=10)
        np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)

    def test_unauthenticated_large_calls_are_refused_before_they_are_read(self):
        client = self.triton()
        self.assertTrue(client.is_server_live())  # the probes need no key
        self.assertTrue(client.is_server_ready())
        # One call of each kind first, so that what gRPC and the worker keep for good (threads,
        # their arenas, the connection) is in the baseline.
        self.authenticated_infer(client)
        payload = big_infer_request()
        channel = self.channel()
        infer = channel.unary_unary(INFER)  # no serializer: the payload's bytes go as they are
        with self.assertRaises(grpc.RpcError) as e:
            infer(b"", timeout=30)
        self.assertEqual(e.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
        refused_before = counter(self.metrics, 401)

        baseline = rss_bytes(self.proc.pid)
        peak = PeakRss(self.proc.pid)
        started = time.time()
        try:
            for wave in range(CALLS // IN_FLIGHT):
                calls = []
                for i in range(IN_FLIGHT):
                    wrong = (wave * IN_FLIGHT + i) % 2 == 1
                    metadata = (("authorization", "Bearer sk-wrong"),) if wrong else ()
                    calls.append((wrong, infer.future(payload, timeout=60, metadata=metadata)))
                for wrong, call in calls:
                    with self.assertRaises(grpc.RpcError) as e:
                        call.result()
                    self.assertEqual(e.exception.code(), grpc.StatusCode.UNAUTHENTICATED, e.exception.details())
                    self.assertEqual(e.exception.details(), WRONG_KEY if wrong else NO_KEY)
        finally:
            top = peak.stop()
        took = time.time() - started
        channel.close()
        after = settled_rss(self.proc.pid, baseline)  # back within 10%
        print(f"\n{'TLS' if self.TLS else 'plaintext'}: RSS {mib(baseline)} before, peak {mib(top)} during "
              f"{CALLS} calls ({took:.2f} s), {mib(after)} after", end=" ")
        self.assertLessEqual(top - baseline, GROWTH_BOUND, f"RSS grew from {mib(baseline)} to {mib(top)}")
        self.assertLessEqual(after, baseline * 1.1, f"RSS {mib(baseline)} before, {mib(after)} after")

        # The key still works, and at once.
        started = time.time()
        self.authenticated_infer(client)
        self.assertLess(time.time() - started, 1.0)
        # Every refusal counted as a 401 and logged as one (the method's path: the message, with
        # the model's name, was never read).
        self.assertEqual(counter(self.metrics, 401) - refused_before, CALLS)
        refusal = rf"gRPC {INFER} 401 in=0B .*: ({re.escape(NO_KEY)}|{WRONG_KEY})$"
        deadline = time.time() + 10  # the access log writes its lines in batches
        while len(re.findall(refusal, "".join(self.lines), re.M)) < CALLS + 1 and time.time() < deadline:
            time.sleep(0.05)
        text = "".join(self.lines)
        self.assertEqual(len(re.findall(refusal, text, re.M)), CALLS + 1)  # and the first, empty one
        self.assertNotIn("sk-wrong", text)
        self.assertNotIn(KEY, text)
        self.assertIsNone(self.proc.poll(), "the server died")

    def test_every_other_method_is_refused_without_the_key(self):
        client = self.triton()
        for call in (lambda: client.get_server_metadata(), lambda: client.get_model_metadata("tiny"),
                     lambda: client.get_model_repository_index()):
            with self.assertRaises(Exception) as e:
                call()
            self.assertIn("UNAUTHENTICATED", str(getattr(e.exception, "status", lambda: "")()))
        # A method the service does not have: refused the same (the key is checked before the
        # method is looked up).
        with self.channel() as channel:
            with self.assertRaises(grpc.RpcError) as e:
                channel.unary_unary("/inference.GRPCInferenceService/NoSuchMethod")(b"", timeout=30)
            self.assertEqual(e.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
        self.assertTrue(client.is_server_live())


class Plaintext(AuthFirst, unittest.TestCase):
    TLS = False


class Tls(AuthFirst, unittest.TestCase):
    TLS = True


def main():
    global ARGS
    ARGS, rest = parse_args()
    return run_unittests(rest)


if __name__ == "__main__":
    sys.exit(main())
