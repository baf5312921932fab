#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve`'s default --workers is the CPUs the process may use (include/wasinn/available_cpus.h):
its affinity and its cgroup's CPU quota, not the machine's cores, which a container limited to a
few CPUs of a large host would otherwise run a busy-polling lane on each of.

The server's lanes (threads `wasinn-http-N`, one per worker for reused WASI 0.3 instances, guest
p3_http_spec) are counted in /proc, and each server answers /hello:

  plain     as many lanes as CPUs in this process's affinity (and under its quota)
  affinity  `taskset -c CPU`: one lane
  quota     in a cgroup v1 `cpu` group of its own with a quota of 1 CPU, then 1.5 CPUs (rounded
            up: 2): 1 lane, then min(2, CPUs) lanes; skipped, saying so, where no cgroup v1 cpu
            hierarchy is writable (not root, or cgroup v2 only)

  available_cpus_test.py --wasinn BIN --guests DIR
"""
import argparse
import os
import re
import shutil
import sys

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
    with Server([*prefix, ctx.args.wasinn, "serve", "-S", "nn"], [], ctx.guest, name=what) as server:
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


def case_quota(ctx):
    if not os.path.isdir(CGROUP_V1_CPU) or not os.access(CGROUP_V1_CPU, os.W_OK):
        raise Skipped(f"no writable cgroup v1 cpu hierarchy at {CGROUP_V1_CPU}")
    group = f"{CGROUP_V1_CPU}/wasinn-available-cpus-{os.getpid()}"
    try:
        os.mkdir(group)
    except OSError as e:
        raise Skipped(f"cannot make a cgroup under {CGROUP_V1_CPU}: {e}")
    try:
        cpus = len(os.sched_getaffinity(0))
        # The shell joins the group, then becomes the server (the same pid, counted above).
        join = ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh"]
        for quota, want in ((100000, 1), (150000, min(2, cpus))):
            with open(f"{group}/cpu.cfs_period_us", "w") as f:
                f.write("100000")
            with open(f"{group}/cpu.cfs_quota_us", "w") as f:
                f.write(str(quota))
            got = serve_and_count(ctx, join, f"quota {quota / 100000:g} CPUs")
            check(got == want, f"a quota of {quota / 100000:g} CPUs: {got} lanes, expected {want}")
            log(f"quota: {quota / 100000:g} CPUs gave {got} lanes")
    finally:
        os.rmdir(group)  # empty again: each server was killed and waited for


CASES = {"plain": case_plain, "affinity": case_affinity, "quota": case_quota}


class Ctx:
    def __init__(self, args):
        self.args = args
        self.guest = os.path.join(args.guests, "p3_http_spec.wasm")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True, help="the build's guests directory (p3_http_spec.wasm)")
    p.add_argument("--case", choices=sorted(CASES) + ["all"], default="all")
    args = p.parse_args()
    if not shutil.which("taskset"):
        print("SKIP: no taskset (util-linux)")
        return 77
    return run_cases(CASES, list(CASES) if args.case == "all" else [args.case], Ctx(args))


if __name__ == "__main__":
    sys.exit(main())
