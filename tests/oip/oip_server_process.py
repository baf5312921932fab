# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The `wasinn serve --oip-http/--oip-grpc` process the OIP tests share (standard library only, so
that both the Triton and the MLServer venv's tests import it): the tiny MLP from a Triton-style
--model-repository (versions 1 and 3, a config.json), the digits MLP and the types fixtures from
--nn-preload, REST and gRPC on free ports read back from its stderr; and what every OIP test's
main does: its arguments (parse_args) and running its cases against a server (run_tests)."""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest
import time

MAX_REQUEST_BYTES = 1_000_000


def start_serve(cmd):
    """Starts `wasinn serve` (cmd) and reads its REST, gRPC and metrics addresses from its stderr;
    returns (process, the stderr lines, http, grpc, metrics), the lines kept growing by a thread."""
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    lines = []
    http = grpc = metrics = None
    deadline = time.time() + 60
    while time.time() < deadline and not (http and grpc and metrics):
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("wasinn serve ended before listening:\n" + "".join(lines))
        lines.append(line)
        if m := re.search(r"\(REST\) on https?://([^/]+)/v2", line):
            http = m.group(1)
        if m := re.search(r"\(gRPC[^)]*\) on (\S+)", line):
            grpc = m.group(1)
        if m := re.search(r"metrics at (http://\S+)", line):
            metrics = m.group(1)
    threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True).start()
    return proc, lines, http, grpc, metrics


class Server:
    def __init__(self, args, extra=()):
        f = args.fixtures
        self.repo = tempfile.mkdtemp(prefix="wasinn-oip-repo-")
        os.makedirs(os.path.join(self.repo, "tiny", "3"))
        os.makedirs(os.path.join(self.repo, "tiny", "1"))
        shutil.copy(os.path.join(f, "tiny", "model.onnx"), os.path.join(self.repo, "tiny", "3", "model.onnx"))
        shutil.copy(os.path.join(f, "tiny", "model.onnx"), os.path.join(self.repo, "tiny", "1", "model.onnx"))
        with open(os.path.join(self.repo, "tiny", "config.json"), "w") as c:
            json.dump({"encoding": "onnx", "target": "cpu"}, c)
        cmd = [args.wasinn, "serve", "--oip-http", "127.0.0.1:0", "--oip-grpc", "127.0.0.1:0",
               "--backend-dir", args.backend_dir, "--model-repository", self.repo,
               "--nn-preload", f"digits:onnx:cpu:{f}/digits/model.onnx",
               "--nn-preload", f"identity:onnx:cpu:{f}/types/identity_all.onnx",
               "--nn-preload", f"two_inputs:onnx:cpu:{f}/types/two_inputs.onnx",
               "--nn-preload", f"scale:onnx:cpu:{f}/types/scale_by_scalar.onnx",
               "--max-request-bytes", str(MAX_REQUEST_BYTES), "--workers", "4", "--metrics-addr", "127.0.0.1:0", *extra]
        self.proc, self.lines, self.http, self.grpc, self.metrics = start_serve(cmd)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=60)
        shutil.rmtree(self.repo, ignore_errors=True)
        return code


def wait_logged(lines, test, *patterns, timeout=10):
    """Until every pattern matches a line of `lines` (a server's stderr, read on a thread of its
    own), then asserts they do: the log writes its info lines in batches (--log-flush-interval,
    50 ms), so a request's line can come a while after its answer."""
    deadline = time.time() + timeout
    while True:
        text = "".join(lines)
        if all(re.search(p, text) for p in patterns) or time.time() >= deadline:
            break
        time.sleep(0.05)
    for p in patterns:
        test.assertRegex(text, p)
    return text


def parse_args(*extra):
    """--wasinn, --backend-dir, --fixtures and the `extra` flags (all required); returns the
    arguments and what is left for unittest."""
    p = argparse.ArgumentParser()
    for name in ("--wasinn", "--backend-dir", "--fixtures", *extra):
        p.add_argument(name, required=True)
    return p.parse_known_args()


def run_unittests(rest):
    """Runs the test module's cases (unittest, ARGS already parsed): 0 when every one passed, else 1."""
    result = unittest.main(argv=[sys.argv[0], *rest], exit=False, verbosity=2).result
    return 0 if result.wasSuccessful() else 1


def run_tests(server, rest):
    """Runs the test module's cases against `server` (anything with stop() -> exit code and
    lines: its stderr), then stops it with SIGTERM. 0 when every case passed and it stopped
    cleanly; else 1, with the end of its stderr."""
    try:
        result = unittest.main(argv=[sys.argv[0], *rest], exit=False, verbosity=2).result
    finally:
        code = server.stop()
    if code != 0:
        print("wasinn serve exited with", code, "after SIGTERM:\n" + "".join(server.lines[-20:]))
        return 1
    if not result.wasSuccessful():
        print("--- wasinn serve's stderr (last 40 lines) ---\n" + "".join(server.lines[-40:]))
        return 1
    return 0
