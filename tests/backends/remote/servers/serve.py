#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Starts and stops the remote backend's test servers on free 127.0.0.1 ports (the ctest
fixtures of tests/backends/remote call it; standard library only).

  serve.py start KIND STATE [--http PORT --grpc PORT]   KIND: triton, mlserver, fake or fake_tls
  serve.py stop STATE [--kill]                           --kill: SIGKILL at once (a crash)

start launches the server in a session of its own, polls until it is ready (HTTP
/v2/health/ready and the gRPC port accept), and writes STATE, a JSON file the tests read:
{"kind", "pid", "http", "grpc", "log"}. When the server's venv was not installed (setup.sh runs
scripts/remote-servers.sh) it writes {"skip": "why"} instead and exits 0: the tests then skip with
that message. stop sends SIGTERM, waits, then SIGKILLs the session and removes the /tmp/folder*
workspaces a killed tritonserver leaves behind."""
import glob
import json
import os
import ssl
import signal
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("WASINN_CACHE", os.path.expanduser("~/.cache/wasinn"))
READY_S = 120


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def venv(kind):
    """The newest complete venv of KIND (its .version stamp is written last), or None."""
    found = sorted(d for d in glob.glob(os.path.join(CACHE, "deps", f"venv-{kind}-*"))
                   if os.path.isfile(os.path.join(d, ".version")))
    return found[-1] if found else None


def libdir(python):
    return subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_config_var('LIBDIR'))"],
                          capture_output=True, text=True, check=True).stdout.strip()


# The model models.py lists last: pytriton binds models one by one after tritonserver is up, and
# /v2/health/ready answers 200 before the first is loaded.
LAST_MODEL = "sleep_fp32"


def ready(http, grpc, model, tls=False):
    try:
        path = f"/v2/models/{model}/ready" if model else "/v2/health/ready"
        scheme = "https" if tls else "http"
        ctx = ssl._create_unverified_context() if tls else None  # a test CA the tests check
        with urllib.request.urlopen(f"{scheme}://127.0.0.1:{http}{path}", timeout=2, context=ctx) as r:
            if r.status != 200:
                return False
        if grpc:
            socket.create_connection(("127.0.0.1", grpc), timeout=2).close()
        return True
    except OSError:
        return False


def start(kind, state, http=None, grpc=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = HERE
    digits = os.path.join(os.environ.get("WASINN_FIXTURES", os.path.join(CACHE, "fixtures")), "digits", "model.onnx")
    if os.path.isfile(digits):
        env["WASINN_REMOTE_DIGITS"] = digits
    http = http or free_port()
    grpc = grpc or (free_port() if not kind.startswith("fake") else 0)
    log = state + ".log"
    if kind == "fake":
        cmd = [sys.executable, os.path.join(HERE, "fake_server.py"), str(http)]
    elif kind == "fake_tls":
        # A CA, the server's certificate for 127.0.0.1 and a client certificate, all signed by it.
        d = state + ".pki"
        os.makedirs(d, exist_ok=True)
        def openssl(*args):
            subprocess.run(["openssl", *args], check=True, capture_output=True)
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=wasinn test CA",
                "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.pem")
        for name, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
            openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN=wasinn test {name}",
                    "-keyout", f"{d}/{name}.key", "-out", f"{d}/{name}.csr")
            with open(f"{d}/{name}.ext", "w") as f:
                f.write(ext + "\n")
            openssl("x509", "-req", "-in", f"{d}/{name}.csr", "-CA", f"{d}/ca.pem", "-CAkey", f"{d}/ca.key",
                    "-CAcreateserial", "-days", "2", "-extfile", f"{d}/{name}.ext", "-out", f"{d}/{name}.pem")
        cmd = [sys.executable, os.path.join(HERE, "fake_server.py"), str(http), f"{d}/server.pem",
               f"{d}/server.key", f"{d}/ca.pem"]
    else:
        v = venv(kind)
        if not v:
            why = (f"the {kind} server is not installed (no complete {CACHE}/deps/venv-{kind}-*; "
                   "scripts/setup.sh installs it with scripts/remote-servers.sh)")
            json.dump({"skip": why}, open(state, "w"))
            print(f"serve.py: {why}: its tests will skip")
            return 0
        python = os.path.join(v, "bin", "python")
        # Triton's Python-backend stub must load the libpython of this interpreter, not Debian's.
        env["LD_LIBRARY_PATH"] = libdir(python) + ":" + env.get("LD_LIBRARY_PATH", "")
        if kind == "triton":
            cmd = [python, os.path.join(HERE, "triton_server.py"), str(http), str(grpc), str(free_port())]
        else:
            repo = state + ".repo"
            subprocess.run([python, os.path.join(HERE, "mlserver_runtime.py"), repo, str(http), str(grpc)],
                           env=env, check=True)
            cmd = [os.path.join(v, "bin", "mlserver"), "start", repo]
    tmp_before = sorted(glob.glob("/tmp/folder*"))
    proc = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True, cwd=os.path.dirname(os.path.abspath(state)))
    info = {"kind": kind, "pid": proc.pid, "http": http, "grpc": grpc, "log": log, "tmp_before": tmp_before}
    if kind == "fake_tls":
        info["pki"] = state + ".pki"
    json.dump(info, open(state, "w"))
    deadline = time.time() + READY_S
    while time.time() < deadline:
        if proc.poll() is not None:
            print(f"serve.py: the {kind} server exited with {proc.returncode}; its log:\n" + open(log).read()[-4000:])
            stop(state)  # its workspaces
            return 1
        if ready(http, grpc, None if kind.startswith("fake") else LAST_MODEL, tls=kind == "fake_tls"):
            print(f"serve.py: {kind} ready in {READY_S - (deadline - time.time()):.1f} s: http {http}, grpc {grpc}, pid {proc.pid}")
            return 0
        time.sleep(0.25)
    print(f"serve.py: the {kind} server was not ready within {READY_S} s; its log:\n" + open(log).read()[-4000:])
    stop(state)
    return 1


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def stop(state, kill=False):
    try:
        info = json.load(open(state))
    except (OSError, ValueError):
        return 0
    pid = info.get("pid")
    if not pid:
        return 0
    if not alive(pid):
        remove_workspaces(info)
        return 0
    os.kill(pid, signal.SIGKILL if kill else signal.SIGTERM)  # graceful: pytriton stops tritonserver
    for _ in range(0 if kill else 100):
        if not alive(pid):
            break
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.1)
    graceful = not alive(pid)
    try:
        os.killpg(pid, signal.SIGKILL)  # anything of the session that is left
    except ProcessLookupError:
        pass
    time.sleep(0.2)
    remove_workspaces(info)
    print(f"serve.py: stopped {info['kind']} (pid {pid}, {'gracefully' if graceful else 'killed'})")
    return 0


def remove_workspaces(info):
    """The /tmp/folder* workspaces of Triton's Python-backend stubs that appeared while this server
    ran: a killed tritonserver leaves them, and so did some graceful stops. (Another Triton started
    meanwhile on this machine would lose its own: the remote tests start one at a time.)"""
    if info.get("kind") != "triton":
        return
    for d in set(glob.glob("/tmp/folder*")) - set(info.get("tmp_before", [])):
        subprocess.run(["rm", "-rf", d])


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "start":
        http = int(a[a.index("--http") + 1]) if "--http" in a else None
        grpc = int(a[a.index("--grpc") + 1]) if "--grpc" in a else None
        rc = start(a[1], a[2], http, grpc)
        if rc != 0 and a[1] == "triton":
            # Once more: pytriton gives up on a model whose load outlasts its 60 s client timeout,
            # which a busy machine can cause (the log above says so).
            print("serve.py: starting triton once more")
            stop(a[2])
            rc = start(a[1], a[2], http, grpc)
        sys.exit(rc)
    if len(a) in (2, 3) and a[0] == "stop":
        sys.exit(stop(a[1], kill=a[2:] == ["--kill"]))
    print(__doc__)
    sys.exit(2)
