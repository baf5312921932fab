#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""deploy/kserve/'s ServingRuntime as the pods KServe makes of it, one per InferenceService on it.

  kserve_pod_spec.py check SOURCE_DIR
      The container KServe builds (the runtime's args then the InferenceService's, {{.Name}} made
      the InferenceService's name; ports merged by containerPort, as KServe's strategic merge does)
      against what routes traffic to it: Serverless (Knative: one port per pod, named '', http1 or
      h2c, 8080 when none is declared; queue-proxy's ports taken) and RawDeployment (KServe's
      Service: every declared port, or 8080). Every port wasinn listens on must be free in the pod,
      every routed port one wasinn serves with that protocol, and in RawDeployment every port
      wasinn serves the protocol on must be declared. No cluster, build or podman needed.
  kserve_pod_spec.py run SOURCE_DIR --wasinn BIN --fixtures DIR [--triton-python PY]
      Starts BIN with exactly each pod's args, in a network and mount namespace of its own
      (unshare: the manifest's ports free, /mnt/models a bind of a scratch repository, read-only):
      a flat repository (one model.onnx, as KServe's storage initializer leaves a single-file
      storageUri) served under the InferenceService's name (or the last --model-name, when the
      InferenceService's own args add one), and one in Triton's layout. Each routed
      port is asked what a client through KServe would ask: REST infer of a held-out digit (its
      label must be the argmax), gRPC (an HTTP/2 SETTINGS answer; a real infer with Triton's client
      when --triton-python is given); the metrics port answers. Exits 77 where unshare cannot run.

The constants below are read from KServe's and Knative's sources (docs/deployment.md, "KServe").
"""
import argparse
import glob
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import yaml

# Knative Serving, pkg/networking/constants.go and queue.go: the queue-proxy sidecar's ports, in
# every Serverless pod (validation refuses 8012, 8013, 8022, 9090, 9091 and 8008 as a user's port;
# 8112 is its HTTPS port with internal TLS).
QUEUE_PROXY_PORTS = {8008: "profiling", 8012: "HTTP/1 proxy", 8013: "HTTP/2 proxy", 8022: "admin",
                     8112: "HTTPS proxy", 9090: "autoscaler metrics", 9091: "user metrics"}
# KServe, pkg/constants: its agent (logger, batcher) and the queue-proxy's metrics aggregation.
KSERVE_POD_PORTS = {9081: "KServe's agent (logger, batcher)", 9088: "KServe's aggregated metrics"}
KNATIVE_PORT_NAMES = {"", "http1", "h2c"}  # knative k8s_validation.go validPortNames
DEFAULT_USER_PORT = 8080                    # Knative's and KServe's port when none is declared
MODEL_DIR = "/mnt/models"                   # KServe's DefaultModelLocalMountPath
RAW_MODES = {"RawDeployment", "Standard"}   # KServe 0.16 renamed RawDeployment Standard
SERVERLESS_MODES = {"Serverless", "Knative"}


def load(source):
    docs = []
    paths = sorted(glob.glob(os.path.join(source, "deploy", "kserve", "*.yaml")),
                   key=lambda p: (not p.endswith("servingruntime.yaml"), p))  # the runtime's own example first
    for path in paths:
        docs += [d for d in yaml.safe_load_all(open(path)) if d]
    runtime = next(d for d in docs if d["kind"] == "ServingRuntime" and d["metadata"]["name"] == "wasinn")
    services = [d for d in docs if d["kind"] == "InferenceService"
                and d["spec"]["predictor"].get("model", {}).get("runtime") == "wasinn"]
    return runtime, services


def pod_of(runtime, isvc):
    """(mode, args, ports) of the kserve-container KServe makes for isvc."""
    rc = runtime["spec"]["containers"][0]
    model = isvc["spec"]["predictor"]["model"]
    name = isvc["metadata"]["name"]
    # ReplacePlaceholders: a Go template over the InferenceService's ObjectMeta.
    args = [a.replace("{{.Name}}", name) for a in rc.get("args", []) + model.get("args", [])]
    ports = [dict(p) for p in rc.get("ports", [])]
    for p in model.get("ports", []):  # strategic merge, key containerPort
        same = [q for q in ports if q["containerPort"] == p["containerPort"]]
        if same:
            same[0].update(p)
        else:
            ports.append(dict(p))
    mode = (isvc["metadata"].get("annotations") or {}).get("serving.kserve.io/deploymentMode", "Serverless")
    return mode, args, ports


def flag_values(args):
    out = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            out[k] = v
        elif a.startswith("--"):
            out[a] = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("--") else None
            i += out[a] is not None
        i += 1
    return out


def listeners(args):
    """{port: (flag, protocol)} of what wasinn serve listens on with these args."""
    flags = flag_values(args)
    out = {}
    for flag, protocol, default in (("--oip-http", "http1", 8000), ("--oip-grpc", "h2c", 8001),
                                    ("--metrics-addr", "metrics", None)):
        if flag in flags:
            value = flags[flag]
            port = int(value.rsplit(":", 1)[1]) if value and ":" in value else default
            out[port] = (flag, protocol)
    return out


def routed_ports(mode, ports):
    """[(port, protocol)] that KServe/Knative send traffic to."""
    if mode in RAW_MODES:
        declared = ports or [{"containerPort": DEFAULT_USER_PORT}]
        return [(p["containerPort"], "h2c" if any(s in p.get("name", "") for s in ("grpc", "h2c")) else "http1")
                for p in declared]
    p = ports[0] if ports else {"containerPort": DEFAULT_USER_PORT}
    return [(p["containerPort"], "h2c" if p.get("name") == "h2c" else "http1")]


def check(source):
    runtime, services = load(source)
    problems = []
    rc = runtime["spec"]["containers"][0]
    flags = flag_values(rc["args"])
    if flags.get("--model-repository") != MODEL_DIR:
        problems.append(f"--model-repository is {flags.get('--model-repository')}, not {MODEL_DIR}, where KServe puts storageUri")
    if flags.get("--model-name") != "{{.Name}}":
        problems.append("--model-name is not {{.Name}} (the InferenceService's name, as KServe's runtimes' --model_name)")
    listening = listeners(rc["args"])
    for port, (flag, _) in sorted(listening.items()):
        taken = QUEUE_PROXY_PORTS.get(port) or KSERVE_POD_PORTS.get(port)
        if taken:
            problems.append(f"{flag} port {port} is taken in the pod: {taken}" +
                            (" (Knative's queue-proxy)" if port in QUEUE_PROXY_PORTS else ""))
    metrics = [p for p, (_, proto) in listening.items() if proto == "metrics"]
    annotations = runtime["spec"].get("annotations", {})
    if metrics and annotations.get("prometheus.kserve.io/port") != str(metrics[0]):
        problems.append(f"prometheus.kserve.io/port is {annotations.get('prometheus.kserve.io/port')}, "
                        f"but --metrics-addr listens on {metrics[0]}")
    if metrics and annotations.get("prometheus.kserve.io/path") != "/metrics":
        problems.append("prometheus.kserve.io/path is not /metrics, where --metrics-addr answers")
    if not services:
        problems.append("no InferenceService in deploy/kserve/ uses the runtime")
    for isvc in services:
        name = isvc["metadata"]["name"]
        mode, args, ports = pod_of(runtime, isvc)
        where = f"InferenceService {name} ({mode})"
        if mode not in RAW_MODES | SERVERLESS_MODES:
            problems.append(f"{where}: unknown deployment mode")
            continue
        if any("{{" in a for a in args):
            problems.append(f"{where}: a template KServe does not fill is left in the args: {args}")
        listening = listeners(args)
        if mode in SERVERLESS_MODES:
            if len(ports) > 1:
                problems.append(f"{where}: {len(ports)} container ports after KServe merges the runtime's and the "
                                "InferenceService's; Knative refuses more than one")
            for p in ports[:1]:
                if p.get("name", "") not in KNATIVE_PORT_NAMES:
                    problems.append(f"{where}: port name {p.get('name')!r} is refused by Knative ('', http1, h2c)")
                if p.get("protocol", "TCP") != "TCP":
                    problems.append(f"{where}: Knative takes TCP ports only")
                if p["containerPort"] in QUEUE_PROXY_PORTS:
                    problems.append(f"{where}: containerPort {p['containerPort']} is reserved by Knative")
        routed = routed_ports(mode, ports)
        for port, protocol in routed:
            served = listening.get(port)
            if not served:
                problems.append(f"{where}: traffic goes to port {port}, where wasinn does not listen")
            elif served[1] != protocol:
                problems.append(f"{where}: port {port} is routed as {protocol} but is wasinn's {served[0]} ({served[1]})")
        if mode in RAW_MODES:
            declared = {p for p, _ in routed}
            for port, (flag, protocol) in listening.items():
                if protocol != "metrics" and port not in declared:
                    problems.append(f"{where}: {flag} port {port} is not declared, so KServe's Service does not reach it")
        print(f"{where}: routes {', '.join(f'{p} ({proto})' for p, proto in routed)}; args: {' '.join(args)}")
    for line in problems:
        print("problem:", line)
    if not problems:
        print(f"{len(services)} InferenceService pod(s): every routed port is served, no port wasinn takes is the pod's")
    return 1 if problems else 0


# --- run: wasinn with the exact args, in namespaces of its own ---

def first_row(fixtures):
    with open(os.path.join(fixtures, "digits", "test_x.f32"), "rb") as f:
        row = list(struct.unpack("64f", f.read(256)))
    with open(os.path.join(fixtures, "digits", "test_y.u8"), "rb") as f:
        label = f.read(1)[0]
    return row, label


def http(url, body=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"} if body is not None else {})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.read()


def h2c_settings(port):
    """True when the port answers HTTP/2 with prior knowledge (Knative's h2c) with a SETTINGS frame."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        head = b""
        while len(head) < 9:
            chunk = s.recv(9 - len(head))
            if not chunk:
                return False
            head += chunk
        return head[3] == 0x04  # frame type SETTINGS


def inner(spec):
    """Inside unshare -rnm: /mnt/models is the scratch repository, loopback is up; run and ask."""
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/mnt"], check=True)
    os.makedirs(MODEL_DIR)
    subprocess.run(["mount", "--bind", spec["repo"], MODEL_DIR], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", MODEL_DIR], check=True)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    env = dict(os.environ, HOME=spec["home"], XDG_CONFIG_HOME=os.path.join(spec["home"], ".config"))
    proc = subprocess.Popen([spec["wasinn"], *spec["args"]], stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    want = {"REST": False, "gRPC": False, "metrics": False}
    deadline = time.time() + 60
    while time.time() < deadline and not all(want.values()):
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        for key, text in (("REST", "(REST) on"), ("gRPC", "(gRPC) on"), ("metrics", "metrics at")):
            want[key] |= text in line
    threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True).start()
    failures = []
    if not all(want.values()):
        proc.kill()
        print("wasinn did not start listening:\n" + "".join(lines))
        return 1
    row, label = first_row(spec["fixtures"])
    model = spec["model"]
    for port, protocol in spec["routed"]:
        try:
            if protocol == "http1":
                status, _ = http(f"http://127.0.0.1:{port}/v2/health/ready")
                _, meta = http(f"http://127.0.0.1:{port}/v2/models/{model}")
                _, answer = http(f"http://127.0.0.1:{port}/v2/models/{model}/infer",
                                 {"inputs": [{"name": "input", "datatype": "FP32", "shape": [1, 64], "data": row}]})
                data = json.loads(answer)["outputs"][0]["data"]
                argmax = data.index(max(data))
                print(f"  REST :{port} /v2/models/{model}/infer: argmax {argmax}, label {label}")
                if argmax != label or status != 200:
                    failures.append(f"REST :{port}: argmax {argmax} != label {label}")
            else:
                ok = h2c_settings(port)
                print(f"  gRPC :{port}: HTTP/2 with prior knowledge (h2c): {'SETTINGS' if ok else 'no answer'}")
                if not ok:
                    failures.append(f"gRPC :{port} does not answer h2c")
                if spec.get("triton_python"):
                    code = ("import sys, numpy as np, tritonclient.grpc as g\n"
                            "x = np.array([sys.argv[3:]], dtype=np.float32)\n"
                            "c = g.InferenceServerClient(sys.argv[1]); i = g.InferInput('input', [1, 64], 'FP32')\n"
                            "i.set_data_from_numpy(x); print(int(c.infer(sys.argv[2], [i]).as_numpy('logits').argmax()))")
                    out = subprocess.run([spec["triton_python"], "-c", code, f"127.0.0.1:{port}", model,
                                          *map(str, row)], capture_output=True, text=True, timeout=60)
                    got = out.stdout.strip()
                    print(f"  gRPC :{port} ModelInfer {model} (tritonclient): argmax {got}, label {label}")
                    if got != str(label):
                        failures.append(f"gRPC :{port}: argmax {got!r} != label {label}: {out.stderr[-400:]}")
        except (OSError, ValueError, KeyError) as e:
            failures.append(f"{protocol} :{port}: {e}")
    try:
        _, text = http(f"http://127.0.0.1:{spec['metrics']}/metrics")
        if b"wasinn_" not in text:
            failures.append("the metrics port answers without wasinn's metrics")
        else:
            print(f"  metrics :{spec['metrics']}/metrics: wasinn's")
    except OSError as e:
        failures.append(f"metrics :{spec['metrics']}: {e}")
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    if code != 0:
        failures.append(f"wasinn exited {code} after SIGTERM")
    for f in failures:
        print("  FAILED:", f)
    if failures:
        print("  --- wasinn's stderr ---\n" + "".join(lines[-30:]))
    return 1 if failures else 0


def run(source, wasinn, fixtures, triton_python):
    probe = subprocess.run(["unshare", "-rnm", "sh", "-c", "mount -t tmpfs tmpfs /mnt && ip link set lo up"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print("skipped: unshare -rnm cannot make the namespaces here:", probe.stderr.strip())
        return 77
    runtime, services = load(source)
    scratch = tempfile.mkdtemp(prefix="wasinn-kserve-pod-")
    os.chmod(scratch, 0o755)
    try:
        model = os.path.join(fixtures, "digits", "model.onnx")
        flat = os.path.join(scratch, "flat")  # s3://BUCKET/digits/model.onnx, as the storage initializer leaves it
        os.makedirs(flat)
        shutil.copy(model, os.path.join(flat, "model.onnx"))
        triton = os.path.join(scratch, "triton")
        os.makedirs(os.path.join(triton, "digits", "1"))
        shutil.copy(model, os.path.join(triton, "digits", "1", "model.onnx"))
        failed = 0
        for i, isvc in enumerate(services):
            mode, args, ports = pod_of(runtime, isvc)
            layouts = [("flat", flat, isvc["metadata"]["name"], [])]
            if i == 0:
                layouts.append(("Triton's layout", triton, "digits", []))
                # KServe appends an InferenceService's args to the runtime's: the last name counts.
                layouts.append(("flat, the InferenceService's args adding --model-name digits", flat, "digits",
                                ["--model-name", "digits"]))
            for layout, repo, served, more in layouts:
                spec = {"repo": repo, "home": scratch, "wasinn": wasinn, "args": args + more, "fixtures": fixtures,
                        "model": served, "routed": routed_ports(mode, ports),
                        "metrics": next(p for p, (_, proto) in listeners(args).items() if proto == "metrics"),
                        "triton_python": triton_python}
                with open(os.path.join(scratch, "spec.json"), "w") as f:
                    json.dump(spec, f)
                print(f"{isvc['metadata']['name']} ({mode}), {layout} in {MODEL_DIR}: wasinn {' '.join(args + more)}")
                sys.stdout.flush()
                code = subprocess.run(["unshare", "-rnm", sys.executable, os.path.abspath(__file__), "inner",
                                       os.path.join(scratch, "spec.json")]).returncode
                failed += code != 0
        print("every pod answered" if not failed else f"{failed} pod(s) failed")
        return 1 if failed else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["check", "run", "inner"])
    p.add_argument("source")
    p.add_argument("--wasinn")
    p.add_argument("--fixtures")
    p.add_argument("--triton-python")
    a = p.parse_args()
    if a.what == "check":
        return check(a.source)
    if a.what == "inner":
        with open(a.source) as f:
            return inner(json.load(f))
    if not (a.wasinn and a.fixtures):
        p.error("run needs --wasinn and --fixtures")
    if not os.path.exists(os.path.join(a.fixtures, "digits", "model.onnx")):
        print("skipped: no digits fixture in", a.fixtures)
        return 77
    triton_python = a.triton_python if a.triton_python and os.path.exists(a.triton_python) else None
    return run(a.source, a.wasinn, a.fixtures, triton_python)


if __name__ == "__main__":
    sys.exit(main())
