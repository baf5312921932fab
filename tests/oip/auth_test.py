#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve --oip-http/--oip-grpc --api-key` with Triton's own clients (tritonclient.http and
.grpc, from .deps/venv-triton-0.7.0): without a key or with a wrong one every call but the health
probes is refused (401 with `WWW-Authenticate: Bearer` and the protocol's {"error": "..."}; gRPC
UNAUTHENTICATED);
with the key the tiny MLP answers x + (1, 2, 3, 4) as before, over plain HTTP and, with
--tls-cert and a CA made by openssl at test time, over HTTPS and gRPC with TLS (and with
--tls-client-ca, only to a client with a certificate of that CA). Then `--oip-http --oip-grpc` with no
address listens on 127.0.0.1:8000 and :8001 only (skipped when those ports are taken, or the
machine has no non-loopback address to try). Run by ctest (tests/oip/CMakeLists.txt: oip.auth).
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import numpy as np
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    from tritonclient.utils import InferenceServerException
except ImportError as e:  # the venv scripts/remote-servers.sh installs is not there
    print(f"skipped: {e} (run with .deps/venv-triton-0.7.0/bin/python)")
    sys.exit(77)

from oip_server_process import Server, parse_args, run_tests, wait_logged

KEY = "sk-oip-test-key"
ARGS = None
SERVER = None
TINY_BIAS = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)  # scripts/fixtures/onnx_graphs.py: y = x + bias


def tiny_input(module):
    x = np.array([[0.5, -1.5, 2.25, 8.0]], np.float32)
    inp = module.InferInput("x", [1, 4], "FP32")
    inp.set_data_from_numpy(x)
    return x, inp


def assert_refused(test, c, client_module, header, status):
    """No key and a wrong key: metadata and inference are both refused with `status`."""
    for headers in (None, {header: "Bearer sk-wrong"}):
        with test.assertRaises(InferenceServerException) as e:
            c.get_model_metadata("digits", headers=headers)
        test.assertEqual(e.exception.status(), status)
        _, inp = tiny_input(client_module)
        with test.assertRaises(InferenceServerException) as e:
            c.infer("tiny", [inp], headers=headers)
        test.assertEqual(e.exception.status(), status)


class Rest(unittest.TestCase):
    def test_refused_without_the_key(self):
        c = httpclient.InferenceServerClient(url=SERVER.http)
        self.assertTrue(c.is_server_live())  # the probes need no key
        self.assertTrue(c.is_server_ready())
        assert_refused(self, c, httpclient, "Authorization", "401")

    def test_the_401s_shape(self):
        host, port = SERVER.http.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request("GET", "/v2/models/digits")
        r = conn.getresponse()
        body = json.loads(r.read())
        self.assertEqual(r.status, 401)
        self.assertTrue(r.getheader("WWW-Authenticate", "").startswith("Bearer"))
        self.assertTrue(r.getheader("X-Request-Id"))
        self.assertEqual(body["error"], "this server needs an API key: send it as 'Authorization: Bearer KEY'")

    def test_answers_with_the_key(self):
        c = httpclient.InferenceServerClient(url=SERVER.http)
        x, inp = tiny_input(httpclient)
        r = c.infer("tiny", [inp], headers={"Authorization": f"Bearer {KEY}"})
        np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)
        self.assertEqual(c.get_model_metadata("digits", headers={"Authorization": f"Bearer {KEY}"})["name"], "digits")
        # HTTP header names are case-insensitive: the lowercase form works too (docs/oip-server.md).
        r = c.infer("tiny", [inp], headers={"authorization": f"Bearer {KEY}"})
        np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)


class Grpc(unittest.TestCase):
    def test_unauthenticated_without_the_key(self):
        c = grpcclient.InferenceServerClient(url=SERVER.grpc)
        self.assertTrue(c.is_server_live())
        assert_refused(self, c, grpcclient, "authorization", "StatusCode.UNAUTHENTICATED")

    def test_answers_with_the_key(self):
        c = grpcclient.InferenceServerClient(url=SERVER.grpc)
        x, inp = tiny_input(grpcclient)
        r = c.infer("tiny", [inp], headers={"authorization": f"Bearer {KEY}"})
        np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)

    def test_an_uppercase_key_is_refused_by_grpc_itself(self):
        # gRPC metadata keys are lowercase: the client's gRPC library refuses "Authorization" before
        # anything is sent (INTERNAL "Invalid metadata"), whatever the server; docs/oip-server.md
        # shows the lowercase form for gRPC.
        c = grpcclient.InferenceServerClient(url=SERVER.grpc)
        _, inp = tiny_input(grpcclient)
        with self.assertRaises(InferenceServerException) as e:
            c.infer("tiny", [inp], headers={"Authorization": f"Bearer {KEY}"})
        self.assertEqual(e.exception.status(), "StatusCode.INTERNAL")
        self.assertIn("Invalid metadata", e.exception.message())


class Log(unittest.TestCase):
    def test_no_key_in_the_log_and_refusals_at_info(self):
        host, port = SERVER.http.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request("GET", "/v2/models/digits", headers={"Authorization": "Bearer sk-wrong"})
        self.assertEqual(conn.getresponse().status, 401)
        text = wait_logged(SERVER.lines, self, r"GET /v2/models/digits 401 ")
        self.assertNotIn(KEY, text)
        self.assertNotIn("sk-wrong", text)
        self.assertNotRegex(text, r"warning: .* 401 ")


def tls_files():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from tls_files import make_tls_files
    return make_tls_files(tempfile.mkdtemp(prefix="wasinn-oip-tls-"))


def start_serving(args, pattern):
    """`wasinn serve ARGS` and the first match of PATTERN (a group: the address) on its stderr."""
    proc = subprocess.Popen([ARGS.wasinn, "serve", *args], stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        m = re.search(pattern, line)
        if m:
            return proc, m.group(1)
    proc.terminate()
    proc.wait(timeout=60)
    raise AssertionError(f"no line matching {pattern!r}")


def stop_serving(proc):
    proc.terminate()
    proc.wait(timeout=60)
    proc.stderr.close()


class Tls(unittest.TestCase):
    """--tls-cert with a CA made by openssl at test time: Triton's HTTP client (ssl=True) and gRPC
    client (ssl=True) with the key get the same answer, without the key 401 and UNAUTHENTICATED;
    a client without TLS fails cleanly and the server goes on; --tls-client-ca admits only a client
    with a certificate of that CA."""

    MODEL = property(lambda self: ["--backend-dir", ARGS.backend_dir, "--nn-preload",
                                   f"tiny:onnx:cpu:{ARGS.fixtures}/tiny/model.onnx"])

    @staticmethod
    def https_client(address, f, client_cert=False):
        import gevent.ssl
        options = {"ca_certs": f["ca.pem"]}
        if client_cert:
            options.update(certfile=f["client.pem"], keyfile=f["client.key"])
        return httpclient.InferenceServerClient(url=address, ssl=True, ssl_options=options,
                                                ssl_context_factory=gevent.ssl.create_default_context)

    def test_rest_over_tls(self):
        f = tls_files()
        tls = ["--tls-cert", f["server.pem"], "--tls-key", f["server.key"]]
        proc, address = start_serving(["--oip-http", "127.0.0.1:0", "--api-key", KEY, *tls, *self.MODEL],
                                      r"\(REST\) on https://(\S+)/v2")
        try:
            c = self.https_client(address, f)
            self.assertTrue(c.is_server_live())
            x, inp = tiny_input(httpclient)
            r = c.infer("tiny", [inp], headers={"Authorization": f"Bearer {KEY}"})
            np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)
            with self.assertRaises(InferenceServerException) as e:
                c.infer("tiny", [inp])
            self.assertEqual(e.exception.status(), "401")
            # Plain HTTP to the TLS port: the handshake fails, the connection closes, no answer.
            host, port = address.rsplit(":", 1)
            plain = http.client.HTTPConnection(host, int(port), timeout=10)
            with self.assertRaises((http.client.HTTPException, OSError)):
                plain.request("GET", "/v2/health/live")
                plain.getresponse()
            plain.close()
            # A handshake of garbage, then the server still answers.
            with socket.create_connection((host, int(port)), timeout=10) as s:
                s.sendall(os.urandom(4096))
                s.settimeout(10)
                try:
                    while s.recv(4096):
                        pass
                except OSError:
                    pass
            r = self.https_client(address, f).infer("tiny", [inp], headers={"Authorization": f"Bearer {KEY}"})
            np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)
            self.assertIsNone(proc.poll(), "the server died")
        finally:
            stop_serving(proc)

    def test_rest_mutual_tls(self):
        f = tls_files()
        tls = ["--tls-cert", f["server.pem"], "--tls-key", f["server.key"], "--tls-client-ca", f["ca.pem"]]
        proc, address = start_serving(["--oip-http", "127.0.0.1:0", *tls, *self.MODEL], r"\(REST\) on https://(\S+)/v2")
        try:
            x, inp = tiny_input(httpclient)
            r = self.https_client(address, f, client_cert=True).infer("tiny", [inp])
            np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)
            with self.assertRaises(Exception):  # no client certificate: the handshake is refused
                self.https_client(address, f).infer("tiny", [inp])
        finally:
            stop_serving(proc)

    def test_grpc_over_tls(self):
        f = tls_files()
        tls = ["--tls-cert", f["server.pem"], "--tls-key", f["server.key"]]
        model = self.MODEL
        proc = subprocess.Popen([ARGS.wasinn, "serve", "--oip-grpc", "127.0.0.1:0", "--api-key", KEY, *tls, *model],
                                stderr=subprocess.PIPE, text=True)
        try:
            address = None
            deadline = time.time() + 60
            while address is None and time.time() < deadline:
                line = proc.stderr.readline()
                if not line:
                    break
                m = re.search(r"\(gRPC over TLS\) on (\S+)", line)
                address = m.group(1) if m else None
            self.assertIsNotNone(address, "no 'gRPC over TLS' line")
            g = grpcclient.InferenceServerClient(url=address, ssl=True, root_certificates=f["ca.pem"])
            x, inp = tiny_input(grpcclient)
            r = g.infer("tiny", [inp], headers={"authorization": f"Bearer {KEY}"})
            np.testing.assert_array_equal(r.as_numpy("y"), x + TINY_BIAS)
            with self.assertRaises(InferenceServerException) as e:
                g.infer("tiny", [inp])
            self.assertEqual(e.exception.status(), "StatusCode.UNAUTHENTICATED")
            plain = grpcclient.InferenceServerClient(url=address)  # no TLS: the handshake fails
            with self.assertRaises(InferenceServerException):
                plain.infer("tiny", [inp], headers={"authorization": f"Bearer {KEY}"}, client_timeout=10)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            proc.stderr.close()


def own_addresses():
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return []
    return [a for a in re.findall(r"\binet (\d+\.\d+\.\d+\.\d+)/", out) if not a.startswith("127.")]


class DefaultBind(unittest.TestCase):
    def test_loopback_unless_told(self):
        addresses = own_addresses()
        if not addresses:
            self.skipTest("this machine has no non-loopback IPv4 address")
        for port in (8000, 8001):
            s = socket.socket()
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", port))
            except OSError as e:
                self.skipTest(f"port {port}, a default, is taken here ({e})")
            finally:
                s.close()
        cmd = [ARGS.wasinn, "serve", "--oip-http", "--oip-grpc", "--backend-dir", ARGS.backend_dir,
               "--nn-preload", f"tiny:onnx:cpu:{ARGS.fixtures}/tiny/model.onnx"]
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        lines = []
        try:
            deadline = time.time() + 60
            while time.time() < deadline and sum("Serving the Open Inference Protocol" in l for l in lines) < 2:
                line = proc.stderr.readline()
                if not line:
                    break
                lines.append(line)
            text = "".join(lines)
            self.assertIn("(REST) on http://127.0.0.1:8000/v2", text)
            self.assertIn("(gRPC) on 127.0.0.1:8001", text)
            self.assertNotIn("reachable from other machines", text)
            for a in addresses:
                for port in (8000, 8001):
                    with self.assertRaises(OSError, msg=f"{a}:{port} answered"):
                        socket.create_connection((a, port), timeout=5).close()
            socket.create_connection(("127.0.0.1", 8000), timeout=5).close()
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            proc.stderr.close()


def main():
    global ARGS, SERVER
    ARGS, rest = parse_args()
    keys = tempfile.NamedTemporaryFile("w", prefix="wasinn-oip-keys-", delete=False)
    keys.write(f"# a key file\n{KEY}\n")
    keys.close()
    try:
        SERVER = Server(ARGS, extra=("--api-key-file", keys.name))
        return run_tests(SERVER, rest)
    finally:
        os.unlink(keys.name)


if __name__ == "__main__":
    sys.exit(main())
