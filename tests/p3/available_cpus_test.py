#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""wasinn's defaults follow the CPUs the process may use (include/wasinn/available_cpus.h): its
affinity and its cgroup's CPU quota, not the machine's cores, which a container limited to a few
CPUs of a large host would otherwise run a busy-polling lane, and a framework thread, on each of.

`wasinn serve`'s lanes (threads `wasinn-http-N`, one per worker for reused WASI 0.3 instances, guest
p3_http_spec) are counted in /proc, and each server answers /hello:

  plain       as many lanes as CPUs in this process's affinity (and under its quota)
  affinity    `taskset -c CPU`: one lane
  quota       in a cgroup v1 `cpu` group of its own with a quota of 1 CPU, then 1.5 CPUs (rounded
              up: 2): 1 lane, then min(2, CPUs) lanes
  frameworks  in that group with a quota of 1 CPU of a machine with more, each framework whose
              own default reads no quota (ONNX Runtime, OpenVINO, libtorch, TensorFlow) is asked
              for 1 thread (ONNX Runtime's own session trace shows a pool of 1; the others' plugins
              say so at debug), and each classifies a held-out digit as its label; outside the
              group their defaults stay theirs
  The cgroup cases skip, saying so, where no cgroup v1 cpu hierarchy is writable (not root, or
  cgroup v2 only); `frameworks` also on a 1-CPU machine.

  available_cpus_test.py --wasinn BIN --guests DIR [--backend-dir DIR --fixtures DIR]
"""
import argparse
import contextlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import Skipped, check, run_cases  # noqa: E402
from serve_test import Server, log, request  # noqa: E402

LANE = re.compile(r"^wasinn-http-\d+$")
CGROUP_V1_CPU = "/sys/fs/cgroup/cpu"


def lanes(server):
    task_dir = f"/proc/{server.proc.pid}/task"
    names = []
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            continue  # a thread that ended meanwhile
    return sum(1 for n in names if LANE.match(n))


def serve_and_count(ctx, prefix, what):
    """The lanes of a server once each has served a request. A lane's thread names itself when it
    first runs, which on a loaded machine (or in a throttled cgroup) can come after the server says
    it serves; connections go to the lanes in turn, so one more /hello than the machine has CPUs
    (more lanes than that is wrong anyway) reaches every lane, and a lane that answered has run."""
    with Server([*prefix, ctx.args.wasinn, "serve", "-S", "nn"], [], ctx.guest, name=what) as server:
        for _ in range((os.cpu_count() or 1) + 1):
            r = request(server, "POST", "/hello", body=b"x")
            check(r.status == 200 and r.body == b"hello\n", f"{what}: /hello answered {r.status} {r.body[:80]!r}")
        return lanes(server)


def case_plain(ctx):
    cpus = len(os.sched_getaffinity(0))
    got = serve_and_count(ctx, [], "plain")
    # A quota on this test's own cgroup may allow fewer than the affinity does.
    check(1 <= got <= cpus, f"{got} lanes for {cpus} CPUs in the affinity")
    log(f"plain: {got} lanes, {cpus} CPUs in the affinity")


def case_affinity(ctx):
    cpu = min(os.sched_getaffinity(0))
    got = serve_and_count(ctx, ["taskset", "-c", str(cpu)], "affinity")
    check(got == 1, f"taskset -c {cpu}: {got} lanes, expected 1")
    log(f"affinity: taskset -c {cpu} gave {got} lane")


@contextlib.contextmanager
def quota_group():
    """A cgroup v1 `cpu` group of this test's own: yields set(quota_us) and the command prefix
    that runs a program in it (a shell joins the group, then becomes the program: the same pid)."""
    if not os.path.isdir(CGROUP_V1_CPU) or not os.access(CGROUP_V1_CPU, os.W_OK):
        raise Skipped(f"no writable cgroup v1 cpu hierarchy at {CGROUP_V1_CPU}")
    group = f"{CGROUP_V1_CPU}/wasinn-available-cpus-{os.getpid()}"
    try:
        os.mkdir(group)
    except OSError as e:
        raise Skipped(f"cannot make a cgroup under {CGROUP_V1_CPU}: {e}")

    def set_quota(quota_us):
        with open(f"{group}/cpu.cfs_period_us", "w") as f:
            f.write("100000")
        with open(f"{group}/cpu.cfs_quota_us", "w") as f:
            f.write(str(quota_us))

    try:
        yield set_quota, ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh"]
    finally:
        os.rmdir(group)  # empty again: each program in it has ended and was waited for


def case_quota(ctx):
    with quota_group() as (set_quota, join):
        cpus = len(os.sched_getaffinity(0))
        for quota, want in ((100000, 1), (150000, min(2, cpus))):
            set_quota(quota)
            got = serve_and_count(ctx, join, f"quota {quota / 100000:g} CPUs")
            check(got == want, f"a quota of {quota / 100000:g} CPUs: {got} lanes, expected {want}")
            log(f"quota: {quota / 100000:g} CPUs gave {got} lanes")


# backend: (encoding, model files under the fixtures, the plugin's debug line when it asks for 1 thread)
FRAMEWORKS = {
    "onnxruntime": ("onnx", ["digits/model.onnx"], "intra_op_threads 1 (unset)"),
    "openvino": ("openvino", ["digits/openvino/model.xml", "digits/openvino/model.bin"], "num_threads 1 (unset)"),
    "pytorch": ("pytorch", ["digits/model.pt"], "num_threads 1 (unset)"),
    "tensorflow": ("tensorflow", ["tensorflow/digits_frozen.pb"], "intra_op_threads 1 (unset)"),
}
ORT_POOL = re.compile(r"intra_op_param:OrtThreadPoolParams \{ thread_pool_size: (\d+)")


def classify_row0(ctx, prefix, backend):
    """run_model on the held-out set's first digit: (its argmax, the run's stderr)."""
    encoding, files, _ = FRAMEWORKS[backend]
    work = tempfile.mkdtemp(prefix="wasinn-cpus-")
    try:
        with open(os.path.join(ctx.args.fixtures, "digits", "test_x.f32"), "rb") as f:
            row = f.read(64 * 4)
        with open(os.path.join(work, "row0.f32"), "wb") as f:
            f.write(row)
        models = ",".join(f"/f/{m}" for m in files)
        cmd = [*prefix, ctx.args.wasinn, "run", "--log-level", "debug", "--backend-dir", ctx.args.backend_dir,
               "--dir", f"{ctx.args.fixtures}::/f", "--dir", f"{work}::/w",
               os.path.join(ctx.args.guests, "run_model.wasm"), "--model", models, "--encoding", encoding,
               "--input", "0:f32:1x64:/w/row0.f32", "--output", "0:/w/out.f32"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"{backend}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
        with open(os.path.join(work, "out.f32"), "rb") as f:
            data = f.read()
        out = struct.unpack(f"{len(data) // 4}f", data)
        return max(range(len(out)), key=out.__getitem__), r.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


def this_process_is_limited():
    """Whether this test itself runs on fewer CPUs than the machine's (an affinity, or a quota on its
    own cgroup, as in a CI container): then a plain run is limited too. Best effort: a parent
    group's quota is not looked for."""
    if len(os.sched_getaffinity(0)) < os.cpu_count():
        return True
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if controllers == "":
                files = [f"/sys/fs/cgroup{path}/cpu.max", "/sys/fs/cgroup/cpu.max"]
            elif "cpu" in controllers.split(","):
                files = [f"{CGROUP_V1_CPU}{path}/cpu.cfs_quota_us", f"{CGROUP_V1_CPU}/cpu.cfs_quota_us"]
            else:
                continue
            for name in files:
                try:
                    with open(name) as q:
                        quota = q.read().split()[0]
                except OSError:
                    continue
                if quota not in ("max", "-1"):
                    return True
                break
    return False


def case_frameworks(ctx):
    if not ctx.args.backend_dir or not ctx.args.fixtures:
        raise Skipped("needs --backend-dir and --fixtures")
    if len(os.sched_getaffinity(0)) < 2:
        raise Skipped("a quota of 1 CPU limits nothing on a machine of 1")
    with open(os.path.join(ctx.args.fixtures, "digits", "test_y.u8"), "rb") as f:
        label = f.read(1)[0]
    for backend, (_, _, said) in FRAMEWORKS.items():
        if not os.path.exists(os.path.join(ctx.args.backend_dir, f"libwasinn_backend_{backend}.so")):
            log(f"{backend}: not built here, left out")
            continue
        got, plain = classify_row0(ctx, [], backend)
        check(got == label, f"{backend}: digit 0 classified as {got}, its label is {label}")
        unlimited = not this_process_is_limited()
        check(not unlimited or said not in plain, f"{backend} without a quota said {said!r}: a default was changed")
        with quota_group() as (set_quota, join):
            set_quota(100000)
            got, limited = classify_row0(ctx, join, backend)
        check(got == label, f"{backend} in 1 CPU: digit 0 classified as {got}, its label is {label}")
        check(said in limited, f"{backend} in 1 CPU: no {said!r} at debug:\n{limited[-3000:]}")
        if backend == "onnxruntime":
            pools = ORT_POOL.findall(plain), ORT_POOL.findall(limited)
            check(pools[1] == ["1"] and (not unlimited or pools[0] == ["0"]),
                  f"ONNX Runtime's intra-op pool sizes (plain, 1 CPU): {pools}, expected ORT's default (0) and 1")
        log(f"{backend}: 1 thread asked for in a quota of 1 CPU, none outside; digit 0 is {label} in both")


CASES = {"plain": case_plain, "affinity": case_affinity, "quota": case_quota, "frameworks": case_frameworks}


class Ctx:
    def __init__(self, args):
        self.args = args
        self.guest = os.path.join(args.guests, "p3_http_spec.wasm")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True, help="the build's guests directory (p3_http_spec.wasm)")
    p.add_argument("--backend-dir", help="the build's backend plugins (case frameworks)")
    p.add_argument("--fixtures", help="the test models (case frameworks)")
    p.add_argument("--case", choices=sorted(CASES) + ["all"], default="all")
    args = p.parse_args()
    if not shutil.which("taskset"):
        print("SKIP: no taskset (util-linux)")
        return 77
    return run_cases(CASES, list(CASES) if args.case == "all" else [args.case], Ctx(args))


if __name__ == "__main__":
    sys.exit(main())
