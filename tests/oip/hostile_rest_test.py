#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The OIP server's REST front (`wasinn serve --oip-http`, civetweb) against a hostile client, plaintext
and TLS (issue 79): raw sockets do what an attacker did, and after each attack Triton's own client
(tritonclient.http, from .deps/venv-triton-0.7.0) with the key gets the tiny MLP's x + (1, 2, 3, 4)
within a second.

- slow clients, keyed or not (--header-timeout 2s here): an idle connection is closed at the header
  timeout; headers trickled a byte at a time get 408 then; a body trickled without the key gets its
  401 and the close at once (it was read on for ever), 20 such connections against --max-connections
  20 leave nothing open; with the key a trickled body gets 408 at the least rate (the timeout, plus a
  second per KiB), a body at 3 KiB/s that takes twice the timeout is served; each cut is logged
  cut:timeout;
- over TLS: 100 TCP connections that never start their handshake against --max-connections 20 are
  counted from the handshake's start: 80 are closed at once, the 20 at the header timeout; within
  a limit of 150 they are counted and a real client is answered while they are open; TLS 1.2 with
  AES128-SHA or AES256-GCM-SHA384 (no forward secrecy) is refused;
- request smuggling: Content-Length with Transfer-Encoding, two Content-Lengths, a length that is not
  digits, `Transfer-Encoding : chunked`, a folded header line are 400 with `Connection: close`, and
  what followed is never answered as a request; two Authorization headers are 400; HTTP/1.1 without
  Host is 400, HTTP/1.0 without it is served;
- after each attack the server's RSS is back within 10% of what it was warm (16 requests in);
- the 401 is the protocol's {"error": "..."} (tritonclient raises it as its error), a key sent in the
  query string does not reach the access log, and made-up paths take no label of
  wasinn_http_route_requests_total.

Run by ctest (tests/oip/CMakeLists.txt: oip.hostile_rest).
"""
import http.client
import json
import os
import re
import select
import socket
import ssl
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

try:
    import numpy as np
    import tritonclient.http as httpclient
    from tritonclient.utils import InferenceServerException
except ImportError as e:  # the venv scripts/remote-servers.sh installs is not there
    print(f"skipped: {e} (run with .deps/venv-triton-0.7.0/bin/python)")
    sys.exit(77)

from oip_server_process import Server, parse_args, run_unittests, wait_logged

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from process_memory import mib, rss_bytes, settled_rss, unchecked_reason  # noqa: E402

ARGS = None
KEY = "sk-hostile-rest-key"
HEADER_TIMEOUT = 2.0  # the plaintext server's --header-timeout: short, so that the cuts come soon
LIMIT = 20
TINY_BIAS = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)  # scripts/fixtures/onnx_graphs.py: y = x + bias
AUTH = f"Authorization: Bearer {KEY}\r\n".encode()


def tls_files():
    from tls_files import make_tls_files
    return make_tls_files(tempfile.mkdtemp(prefix="wasinn-hostile-tls-"))


class Front:
    """A `wasinn serve --oip-http` (oip_server_process.Server) with --api-key and the flags given, and
    what the attacks need of it: raw connections (TLS ones when tls is given), its gauges, a client."""

    def __init__(self, *flags, tls=None):
        self.tls = tls
        self.keys = tempfile.NamedTemporaryFile("w", prefix="wasinn-hostile-keys-", delete=False)
        self.keys.write(KEY + "\n")
        self.keys.close()
        extra = ["--api-key-file", self.keys.name, *flags]
        if tls:
            extra += ["--tls-cert", tls["server.pem"], "--tls-key", tls["server.key"]]
        self.server = Server(ARGS, extra=extra)
        self.host, port = self.server.http.rsplit(":", 1)
        self.port = int(port)
        self.warm()

    def stop(self):
        code = self.server.stop()
        os.unlink(self.keys.name)
        return code

    def context(self):
        return ssl.create_default_context(cafile=self.tls["ca.pem"])

    def connect(self, handshake=True):
        s = socket.create_connection((self.host, self.port), timeout=10)
        if self.tls and handshake:
            s = self.context().wrap_socket(s, server_hostname="127.0.0.1")
        return s

    def gauge(self, name):
        text = urllib.request.urlopen(self.server.metrics, timeout=10).read().decode()
        m = re.search(rf"^{name} (\d+)$", text, re.M)
        return int(m.group(1)) if m else None

    def metrics_text(self):
        return urllib.request.urlopen(self.server.metrics, timeout=10).read().decode()

    def wait_gauge(self, test, name, want, within=10):
        """Until gauge `name` satisfies want(value) (polled, at most `within` seconds)."""
        deadline = time.time() + within
        value = self.gauge(name)
        while not want(value) and time.time() < deadline:
            time.sleep(0.05)
            value = self.gauge(name)
        test.assertTrue(want(value), f"{name} = {value}")
        return value

    def client(self):
        if not self.tls:
            return httpclient.InferenceServerClient(url=self.server.http)
        import gevent.ssl
        return httpclient.InferenceServerClient(url=self.server.http, ssl=True,
                                                ssl_options={"ca_certs": self.tls["ca.pem"]},
                                                ssl_context_factory=gevent.ssl.create_default_context)

    def infer(self):
        """The tiny MLP through Triton's client, with the key: (its answer, seconds taken)."""
        c = self.client()
        x = np.array([[0.5, -1.5, 2.25, 8.0]], np.float32)
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(x)
        started = time.time()
        r = c.infer("tiny", [inp], headers={"Authorization": f"Bearer {KEY}"})
        took = time.time() - started
        y = r.as_numpy("y")
        c.close()
        np.testing.assert_array_equal(y, x + TINY_BIAS)
        return y, took

    def warm(self):
        """16 requests (civetweb's threads and the model's first runs warm), then the RSS every attack
        is held to."""
        for _ in range(16):
            self.infer()
        self.rss_baseline = rss_bytes(self.server.proc.pid)

    def assert_served(self, test, during_attack=False):
        """The tiny MLP's answer within a second; once the attack is over, the RSS back within 10% of
        the warm server's."""
        _, took = self.infer()
        test.assertLess(took, 1.0, "an authenticated request after the attack took this long")
        if during_attack or unchecked_reason():
            return
        after = settled_rss(self.server.proc.pid, self.rss_baseline)
        test.assertLessEqual(after, self.rss_baseline * 1.1,
                             f"RSS {mib(after)} after the attack, {mib(self.rss_baseline)} warm")


def read_until_closed(sock, within):
    """What the server sent until it closed the connection, and how long that took (at most about
    `within`: past it the read stops and the test's assertion on the time fails)."""
    started = time.time()
    data = b""
    sock.settimeout(0.2)
    while time.time() - started < within:
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
            break
        if not chunk:
            break
        data += chunk
    return data, time.time() - started


def answers(data):
    """The status codes of the HTTP answers in `data`, in order."""
    return [int(m.group(1)) for m in re.finditer(rb"HTTP/1\.[01] (\d{3}) ", data)]


class Trickle(threading.Thread):
    """Sends `data` to `sock` a byte every `interval` seconds, until it is all sent, the socket fails
    or stop() (each byte at most once: the loop is bounded by len(data))."""

    def __init__(self, sock, data, interval):
        super().__init__(daemon=True)
        self.sock, self.data, self.interval = sock, data, interval
        self.stopped = threading.Event()

    def run(self):
        for i in range(len(self.data)):
            if self.stopped.wait(self.interval):
                return
            try:
                self.sock.sendall(self.data[i:i + 1])
            except (OSError, ssl.SSLError, ValueError):
                return

    def stop(self):
        self.stopped.set()


def infer_body(padding=0):
    """A JSON infer request for the tiny MLP, padded with `padding` spaces."""
    request = {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32", "data": [0.5, -1.5, 2.25, 8.0]}]}
    return json.dumps(request).encode() + b" " * padding


class Attacks:
    """The attacks both fronts get (the mixin of Plain and Tls: self.front is the server, self.TIMEOUT
    its --header-timeout in seconds)."""

    def trickled_body_with_key(self):
        f = self.front
        # The earlier requests' connections gone first: on a loaded machine the server may not have
        # seen their close yet, and one more than --max-connections is closed unanswered.
        f.wait_gauge(self, "wasinn_http_connections_open", lambda n: n == 0)
        s = f.connect()
        s.sendall(b"POST /v2/models/tiny/infer HTTP/1.1\r\nHost: wasinn\r\n" + AUTH +
                  b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
        trickle = Trickle(s, b"{" * 200, 0.5)
        trickle.start()
        data, took = read_until_closed(s, within=self.TIMEOUT + 10)
        trickle.stop()
        s.close()
        self.assertEqual(answers(data), [408], data)
        self.assertIn(b"Connection: close", data)
        self.assertIn(b"slower than 1 KiB/s", data)
        # Cut at the least rate: the timeout (and a millisecond per byte), not at once, not for ever.
        self.assertGreater(took, self.TIMEOUT - 0.3)
        self.assertLess(took, self.TIMEOUT + 5)
        wait_logged(f.server.lines, self,
                    r"POST /v2/models/tiny/infer 408 .* cut:timeout: the request's body came slower")
        f.assert_served(self)

    def smuggling(self):
        f = self.front
        host = b"Host: wasinn\r\n"
        smuggled = b"GET /v2/smuggled HTTP/1.1\r\n" + host + AUTH + b"\r\n"
        cases = {
            "Content-Length and Transfer-Encoding":
                b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
            "two Content-Lengths": b"Content-Length: 0\r\nContent-Length: %d\r\n\r\n" % len(smuggled) + smuggled,
            "a length that is not digits": b"Content-Length: 4x\r\n\r\nabcd" + smuggled,
            "whitespace before the colon": b"Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled,
            "a folded header line": b"X-Folded: a\r\n Content-Length: 5\r\n\r\n" + smuggled,
            "a Transfer-Encoding other than chunked": b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled,
        }
        for name, rest in cases.items():
            with self.subTest(name):
                s = f.connect()
                s.sendall(b"POST /v2/models/tiny/infer HTTP/1.1\r\n" + host + AUTH + rest)
                data, took = read_until_closed(s, within=5)
                s.close()
                self.assertEqual(answers(data), [400], data)  # one answer: the tail is not a request
                self.assertIn(b"Connection: close", data)
                self.assertLess(took, 3)
        text = wait_logged(f.server.lines, self, r"POST /v2/models/tiny/infer 400 .*Content-Length and Transfer")
        self.assertNotIn("/v2/smuggled", text)
        f.assert_served(self)


class Plain(unittest.TestCase, Attacks):
    TIMEOUT = HEADER_TIMEOUT

    @classmethod
    def setUpClass(cls):
        cls.front = Front("--header-timeout", f"{HEADER_TIMEOUT:g}s", "--max-connections", str(LIMIT))

    @classmethod
    def tearDownClass(cls):
        assert cls.front.stop() == 0

    def test_idle_connection_closed_at_the_header_timeout(self):
        s = self.front.connect()
        data, took = read_until_closed(s, within=HEADER_TIMEOUT + 10)
        s.close()
        self.assertEqual(data, b"")
        self.assertGreater(took, HEADER_TIMEOUT - 0.3)
        self.assertLess(took, HEADER_TIMEOUT + 5)
        self.front.assert_served(self)

    def test_trickled_headers_get_408(self):
        s = self.front.connect()
        s.sendall(b"POST /v2/models/tiny/infer HTTP/1.1\r\nHost: wasinn\r\n")
        trickle = Trickle(s, b"X-Slow: " + b"a" * 200, 0.25)  # a byte each time: civetweb alone waited on
        trickle.start()
        data, took = read_until_closed(s, within=HEADER_TIMEOUT + 10)
        trickle.stop()
        s.close()
        self.assertEqual(answers(data), [408], data)
        self.assertIn(b"--header-timeout", data)
        self.assertLess(took, HEADER_TIMEOUT + 5)
        wait_logged(self.front.server.lines, self, r"408 .* cut:timeout: the request's headers did not arrive")
        self.front.assert_served(self)

    def test_trickled_bodies_without_the_key_leave_nothing_open(self):
        """The issue's attack: --max-connections trickled bodies with no key made every client 503."""
        f = self.front
        socks = []
        for _ in range(LIMIT):
            s = f.connect()
            s.sendall(b"POST /v2/models/tiny/infer HTTP/1.1\r\nHost: wasinn\r\nContent-Length: 1000000\r\n\r\n{")
            socks.append(s)
        trickles = [Trickle(s, b"{" * 100, 0.5) for s in socks]
        for t in trickles:
            t.start()
        try:
            for s in socks:
                data, took = read_until_closed(s, within=5)
                self.assertEqual(answers(data), [401], data)
                self.assertLess(took, 3, "the 401's connection was kept open")
        finally:
            for t in trickles:
                t.stop()
            for s in socks:
                s.close()
        f.wait_gauge(self, "wasinn_http_connections_open", lambda n: n == 0)
        self.assertTrue(f.client().is_server_live())
        f.assert_served(self)

    def test_trickled_body_with_the_key_gets_408(self):
        self.trickled_body_with_key()

    def test_a_slow_body_above_the_least_rate_is_served(self):
        """12 KiB at 3 KiB/s takes twice the header timeout and is within the least rate."""
        f = self.front
        body = infer_body(padding=12 * 1024)
        s = f.connect()
        s.sendall(b"POST /v2/models/tiny/infer HTTP/1.1\r\nHost: wasinn\r\nConnection: close\r\n" + AUTH +
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
        started = time.time()
        for i in range(0, len(body), 256):
            s.sendall(body[i:i + 256])
            time.sleep(256 / 3072)
        sending = time.time() - started
        data, _ = read_until_closed(s, within=10)
        s.close()
        self.assertGreater(sending, HEADER_TIMEOUT)
        self.assertEqual(answers(data), [200], data)
        self.assertEqual(json.loads(data.split(b"\r\n\r\n", 1)[1])["outputs"][0]["data"], [1.5, 0.5, 5.25, 12.0])

    def test_smuggling_is_400_and_closes(self):
        self.smuggling()

    def test_headers_for_the_key_and_the_host(self):
        f = self.front
        cases = [
            (b"GET /v2 HTTP/1.1\r\nHost: wasinn\r\n" + AUTH + AUTH + b"\r\n", 400, b"Authorization headers"),
            (b"GET /v2/health/live HTTP/1.1\r\n\r\n", 400, b"needs a Host"),
            (b"GET /v2/health/live HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, b"Host headers"),
            (b"GET /v2/health/live HTTP/1.0\r\n\r\n", 200, b""),
            (b"GET /v2 HTTP/1.0\r\n" + AUTH + b"\r\n", 200, b'"name":"wasinn"'),
        ]
        for request, status, said in cases:
            with self.subTest(request=request):
                s = f.connect()
                s.sendall(request)
                data, _ = read_until_closed(s, within=HEADER_TIMEOUT + 5)
                s.close()
                self.assertEqual(answers(data), [status], data)
                self.assertIn(said, data)
        f.assert_served(self)

    def test_the_401_is_the_protocols_error(self):
        f = self.front
        conn = http.client.HTTPConnection(f.host, f.port, timeout=10)
        conn.request("GET", "/v2/models/tiny")
        r = conn.getresponse()
        body = json.loads(r.read())
        conn.close()
        self.assertEqual(r.status, 401)
        self.assertTrue(r.getheader("WWW-Authenticate", "").startswith("Bearer realm="))
        self.assertIsInstance(body["error"], str)
        x = np.zeros((1, 4), np.float32)
        inp = httpclient.InferInput("x", [1, 4], "FP32")
        inp.set_data_from_numpy(x)
        with self.assertRaises(InferenceServerException) as e:  # not a TypeError in the client's error path
            f.client().infer("tiny", [inp], headers={"Authorization": "Bearer sk-wrong"})
        self.assertEqual(e.exception.status(), "401")
        self.assertIn("API key", e.exception.message())
        f.assert_served(self)

    def test_a_key_in_the_query_is_not_logged(self):
        f = self.front
        for query, headers, status in (("?api_key=sk-query-secret-1", {"Authorization": f"Bearer {KEY}"}, 200),
                                       ("?key=sk-query-secret-2&x=1", {}, 401)):
            conn = http.client.HTTPConnection(f.host, f.port, timeout=10)
            conn.request("GET", "/v2/models/tiny" + query, headers=headers)
            r = conn.getresponse()
            r.read()
            conn.close()
            self.assertEqual(r.status, status)
        text = wait_logged(f.server.lines, self, r"GET /v2/models/tiny 200 ", r"GET /v2/models/tiny 401 ")
        self.assertNotIn("sk-query-secret", text)

    def test_made_up_paths_take_no_route_label(self):
        f = self.front
        for i in range(120):  # past the 100 labels kept
            conn = http.client.HTTPConnection(f.host, f.port, timeout=10)
            headers = {"Authorization": f"Bearer {KEY}"} if i % 2 else {}
            conn.request("GET", f"/v2/models/made-up-{i}/infer" if i % 2 else f"/v2/made-up-{i}", headers=headers)
            r = conn.getresponse()
            r.read()
            conn.close()
            self.assertIn(r.status, (401, 405))
        conn = http.client.HTTPConnection(f.host, f.port, timeout=10)
        conn.request("GET", "/v2/models/tiny", headers={"Authorization": f"Bearer {KEY}"})
        self.assertEqual(conn.getresponse().status, 200)
        conn.close()
        deadline = time.time() + 10
        text = f.metrics_text()
        while 'route="/v2/models/tiny"' not in text and time.time() < deadline:
            time.sleep(0.05)
            text = f.metrics_text()
        self.assertIn('wasinn_http_route_requests_total{route="/v2/models/tiny",outcome="completed"}', text)
        self.assertNotIn("made-up", text)
        self.assertRegex(text, r'wasinn_http_route_requests_total\{route="other",outcome="completed"\} \d+')
        f.assert_served(self)


class Tls(unittest.TestCase, Attacks):
    """HTTPS with --max-connections 20 and a 4 s header timeout (the refused connections' close must
    come well before it)."""
    TIMEOUT = 4.0

    @classmethod
    def setUpClass(cls):
        cls.files = tls_files()
        cls.front = Front("--header-timeout", f"{cls.TIMEOUT:g}s", "--max-connections", str(LIMIT), tls=cls.files)

    @classmethod
    def tearDownClass(cls):
        assert cls.front.stop() == 0

    def test_connections_that_never_handshake_count_and_close(self):
        f = self.front
        f.wait_gauge(self, "wasinn_http_connections_open", lambda n: n == 0)
        refused = f.gauge("wasinn_http_connections_refused_total")
        started = time.time()
        idle = [f.connect(handshake=False) for _ in range(100)]
        try:
            # 80 refused: closed at once, before any handshake; 20 counted, closed at the timeout.
            f.wait_gauge(self, "wasinn_http_connections_refused_total", lambda n: n >= refused + 80, within=10)
            self.assertLess(time.time() - started, self.TIMEOUT - 1)
            self.assertEqual(f.gauge("wasinn_http_connections_open"), LIMIT)
            open_socks = set(idle)
            deadline = time.time() + self.TIMEOUT + 10
            while open_socks and time.time() < deadline:
                readable, _, _ = select.select(list(open_socks), [], [], 0.2)
                for s in readable:
                    try:
                        if s.recv(1) == b"":
                            open_socks.discard(s)
                    except OSError:
                        open_socks.discard(s)
            self.assertEqual(len(open_socks), 0, "connections the server kept past its header timeout")
            self.assertGreater(time.time() - started, self.TIMEOUT - 0.5)
        finally:
            for s in idle:
                s.close()
        f.wait_gauge(self, "wasinn_http_connections_open", lambda n: n == 0)
        f.assert_served(self)

    def test_tls_1_2_without_forward_secrecy_is_refused(self):
        f = self.front
        for cipher in ("AES128-SHA", "AES256-GCM-SHA384"):
            with self.subTest(cipher):
                context = f.context()
                context.maximum_version = ssl.TLSVersion.TLSv1_2
                context.set_ciphers(cipher + ":@SECLEVEL=0")
                with self.assertRaises(ssl.SSLError) as e:
                    with context.wrap_socket(f.connect(handshake=False), server_hostname="127.0.0.1"):
                        pass
                self.assertIn("handshake failure", str(e.exception).lower().replace("_", " "))
        context = f.context()
        context.maximum_version = ssl.TLSVersion.TLSv1_2
        with context.wrap_socket(f.connect(handshake=False), server_hostname="127.0.0.1") as s:
            self.assertTrue(s.cipher()[0].startswith("ECDHE-"), s.cipher())
        with f.connect() as s:
            self.assertEqual(s.version(), "TLSv1.3")
        f.assert_served(self)

    def test_trickled_body_with_the_key_gets_408(self):
        self.trickled_body_with_key()

    def test_smuggling_is_400_and_closes(self):
        self.smuggling()


class TlsWithinTheLimit(unittest.TestCase):
    def test_a_client_is_answered_while_100_connections_wait_for_their_handshake(self):
        f = Front("--header-timeout", "20s", "--max-connections", "150", tls=tls_files())
        try:
            # Round 1 also warms what 100 connections at once start (civetweb's threads, their heaps);
            # round 2 must leave nothing more behind.
            for round in (1, 2):
                idle = [f.connect(handshake=False) for _ in range(100)]
                try:
                    f.wait_gauge(self, "wasinn_http_connections_open", lambda n: n == 100)
                    f.assert_served(self, during_attack=True)
                    self.assertGreaterEqual(f.gauge("wasinn_http_connections_open"), 100)
                finally:
                    for s in idle:
                        s.close()
                f.wait_gauge(self, "wasinn_http_connections_open", lambda n: n == 0)
                if round == 1:
                    f.rss_baseline = rss_bytes(f.server.proc.pid)
            f.assert_served(self)
        finally:
            self.assertEqual(f.stop(), 0)


def main():
    global ARGS
    ARGS, rest = parse_args()
    return run_unittests(rest)


if __name__ == "__main__":
    sys.exit(main())
