#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hostile clients of `wasinn serve`'s own HTTP front (hyper + rustls; issue 79), with a key and,
where it matters, TLS: after every attack an authenticated /ok of the http_faults guest is answered
within a second, the attack's connections are gone, and the server's RSS is back within 10% of what
it was after a first, warming request.

    hostile_http_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests [options]

Cases (ctest runs each as serve.hostile-http.CASE):
  framing     request-smuggling primitives end the connection with one answer, nothing after them
              read as a request: two Content-Lengths that differ and "Transfer-Encoding : chunked"
              are 400s; Content-Length with Transfer-Encoding: chunked is read by its chunks and the
              connection closed (RFC 9112, 6.1); two Authorization headers: 400; HTTP/1.1 without
              Host: 400, HTTP/1.0 without Host: served
  slow-401    a trickled body after its 401 (no key): the connection is closed, never held
  handshakes  100 TLS connections that never start their handshake: a real client is answered
              within a second, and they are closed within --header-timeout
  query-key   a key sent in the query string (?api_key=...) is not in the access log

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import argparse
import os
import re
import shutil
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import check, run_cases  # noqa: E402
from process_memory import mib, rss_bytes, settled_rss, unchecked_reason  # noqa: E402
from serve_test import Context, closed_within, log, open_raw, request, wait_line  # noqa: E402

KEY = "sk-hostile-test"
AUTH = {"Authorization": f"Bearer {KEY}"}


def get_ok(server, tls_context=None):
    """An authenticated GET /ok: (status, body)."""
    if tls_context is None:
        r = request(server, "GET", "/ok", headers=AUTH, timeout=10)
        return r.status, r.body
    import http.client
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=tls_context, timeout=10)
    conn.request("GET", "/ok", headers=AUTH)
    answer = conn.getresponse()
    status, body = answer.status, answer.read()
    conn.close()
    return status, body


def warmed(server, tls_context=None):
    """The server after 32 authenticated /oks, 8 at a time (its guest compiled, every worker thread's
    heap warm: a cold server grows by a few MiB over its first requests), with the RSS every later
    attack is held to."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: get_ok(server, tls_context), range(32)))
    check(all(a == (200, b"ok") for a in answers), f"the warming /oks: {set(answers)}")
    server.rss_baseline = rss_bytes(server.proc.pid)
    log(f"warm: RSS {mib(server.rss_baseline)}")
    return server


def answered_in_time(server, what, tls_context=None):
    """An authenticated /ok is answered within a second (its time logged), and the RSS is back
    within 10% of the warm server's."""
    started = time.monotonic()
    status, body = get_ok(server, tls_context)
    took = time.monotonic() - started
    log(f"after {what}: /ok {status} in {took:.3f} s")
    check((status, body) == (200, b"ok") and took < 1.0, f"after {what}: {status} {body!r} in {took:.2f} s")
    if unchecked_reason():
        return log(f"after {what}: RSS not checked: {unchecked_reason()}")
    after = settled_rss(server.proc.pid, server.rss_baseline)
    log(f"after {what}: RSS {mib(after)} (warm: {mib(server.rss_baseline)})")
    check(after <= server.rss_baseline * 1.1, f"after {what}: RSS {mib(after)}, warm {mib(server.rss_baseline)}")


def exchange(server, raw, wait=5):
    """Sends RAW on a new connection; everything the server sends until it closes (or WAIT s)."""
    s = open_raw(server, raw)
    s.settimeout(0.5)
    got = b""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    s.close()
    return got


def statuses(answer):
    return [int(m) for m in re.findall(rb"HTTP/1\.[01] (\d{3})", answer)]


def case_framing(ctx):
    with ctx.server("http_faults", ["--api-key", KEY]) as server:
        warmed(server)
        auth = f"Authorization: Bearer {KEY}\r\n".encode()
        smuggled = b"GET /ok HTTP/1.1\r\nHost: x\r\n" + auth + b"\r\n"
        attacks = {
            "Content-Length with Transfer-Encoding: chunked":
                b"POST /ok HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"0\r\n\r\n" + smuggled,
            "two Content-Lengths that differ":
                b"POST /ok HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: 0\r\nContent-Length: 40\r\n\r\n"
                + smuggled,
            "'Transfer-Encoding : chunked'":
                b"POST /ok HTTP/1.1\r\nHost: x\r\n" + auth + b"Transfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n"
                + smuggled,
            "two Authorization headers":
                b"GET /ok HTTP/1.1\r\nHost: x\r\n" + auth + b"Authorization: Bearer other\r\n\r\n" + smuggled,
            "HTTP/1.1 without Host": b"GET /ok HTTP/1.1\r\n" + auth + b"Connection: close\r\n\r\n",
        }
        for what, raw in attacks.items():
            answer = exchange(server, raw)
            got = statuses(answer)
            log(f"{what}: {got} {answer[:120]!r}")
            # hyper takes Content-Length with Transfer-Encoding by its chunks and closes after the
            # answer (RFC 9112, 6.1): one answer, the connection closed, the tail never a request.
            closed_after_one = got == [200] and b"connection: close" in answer.lower() and "Content-Length" in what
            check(got == [400] or closed_after_one,
                  f"{what}: answered {got}, expected one 400 (or one answer and close) and nothing read after it: "
                  f"{answer!r}")
            answered_in_time(server, what)
        answer = exchange(server, b"GET /ok HTTP/1.0\r\n" + auth + b"\r\n")
        check(statuses(answer) == [200] and answer.endswith(b"ok"), f"HTTP/1.0 without Host: {answer!r}")


def case_slow_401(ctx):
    with ctx.server("http_faults", ["--api-key", KEY, "--header-timeout", "2s"]) as server:
        warmed(server)
        s = open_raw(server, b"POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nx")
        s.settimeout(0.5)
        started = time.monotonic()
        got, closed = b"", False
        while time.monotonic() - started < 20:
            try:
                s.sendall(b"x")
            except OSError:
                closed = True
                break
            try:
                chunk = s.recv(65536)
                if not chunk:
                    closed = True
                    break
                got += chunk
            except socket.timeout:
                pass
            except OSError:
                closed = True
                break
        took = time.monotonic() - started
        s.close()
        log(f"a trickled body without a key: {statuses(got)} and closed={closed} after {took:.1f} s")
        check(statuses(got) == [401] and closed and took < 10, f"the slow body's connection: {got!r}, {took:.1f} s")
        answered_in_time(server, "a trickled body after its 401")


def case_handshakes(ctx):
    import ssl
    from tls_files import make_tls_files
    f = make_tls_files(os.path.join(ctx.tmp, "tls"))
    args = ["--tls-cert", f["server.pem"], "--tls-key", f["server.key"], "--api-key", KEY, "--header-timeout", "2s"]
    with ctx.server("http_faults", args) as server:
        tls = ssl.create_default_context(cafile=f["ca.pem"])
        warmed(server, tls)
        idle = [open_raw(server) for _ in range(100)]
        answered_in_time(server, "100 connections that never start their handshake", tls)
        closed = closed_within(idle, 2 + 5)
        for s in idle:
            s.close()
        check(closed == 100, f"{closed} of 100 never-handshaking connections closed within --header-timeout 2s + 5 s")
        answered_in_time(server, "the never-handshaking connections' close", tls)


def case_query_key(ctx):
    with ctx.server("http_faults", ["--api-key", KEY]) as server:
        secret = "sk-in-the-query-string"
        r = request(server, "GET", f"/ok?api_key={secret}&x=1", headers=AUTH)
        check(r.status == 200, f"/ok with a query: {r!r}")
        line = wait_line(server, r"GET /ok\?")
        check(line is not None and "api_key=REDACTED&x=1" in line, f"the access line: {line!r}")
        with server.lock:
            leaked = [l for l in server.lines if secret in l]
        check(not leaked, f"the key is in the output: {leaked}")


CASES = {"framing": case_framing, "slow-401": case_slow_401, "handshakes": case_handshakes,
         "query-key": case_query_key}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True)
    p.add_argument("--fixtures", default=os.path.expanduser("~/.cache/wasinn/fixtures"))
    p.add_argument("--backend-dir")
    args = p.parse_args()
    args.server, args.flavor, args.ort_lib_dir = None, "wasinn", None
    ctx = Context(args)
    status = run_cases(CASES, [args.case], ctx)
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
