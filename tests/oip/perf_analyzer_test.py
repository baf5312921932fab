#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Triton's Performance Analyzer against `wasinn serve --oip-http/--oip-grpc`: the ecosystem's own
load generator reads the model's metadata, configuration and statistics (Triton's extensions)
and drives infer at concurrency 1 and 8 over HTTP and gRPC on the tiny MLP; each run must end
with exit 0 and a throughput, and the server's statistics must agree with its request count.
perf_analyzer comes from scripts/deps/perf-analyzer.sh (.deps/perf-analyzer-2.51.0/perf_analyzer,
given as --perf-analyzer); without it the test skips (77). Standard library only.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

from oip_server_process import Server


def run(pa, server, protocol, concurrency):
    url = server.http if protocol == "http" else server.grpc
    with tempfile.NamedTemporaryFile(suffix=".csv") as report:
        cmd = [pa, "-m", "tiny", "-u", url, "-i", protocol, "--concurrency-range", str(concurrency),
               # Count windows and a loose stability bound: the machine the tests share is noisy.
               "--measurement-mode", "count_windows", "--measurement-request-count", "1000",
               "--stability-percentage", "200", "--max-trials", "10",
               "-f", report.name]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
        rows = list(csv.DictReader(open(report.name)))
    throughput = float(rows[0]["Inferences/Second"])
    p99 = int(rows[0]["p99 latency"])
    print(f"{protocol} concurrency {concurrency}: {throughput:.0f} infer/s, p99 {p99} us", flush=True)
    if throughput <= 0:
        raise RuntimeError("no throughput")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--wasinn", required=True)
    p.add_argument("--backend-dir", required=True)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--perf-analyzer", required=True)
    args = p.parse_args()
    if not os.access(args.perf_analyzer, os.X_OK):
        print(f"skipped: no {args.perf_analyzer} (run scripts/fetch-deps.sh perf-analyzer)")
        return 77
    server = Server(args, extra=("-q",))  # no access log line per request
    failed = None
    try:
        for protocol in ("http", "grpc"):
            for concurrency in (1, 8):
                run(args.perf_analyzer, server, protocol, concurrency)
    except Exception as e:  # noqa: BLE001 - reported below with the server's log
        failed = e
    finally:
        code = server.stop()
    if failed or code != 0:
        print(f"FAILED: {failed}; exit code after SIGTERM {code}\n" + "".join(server.lines[-30:]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
