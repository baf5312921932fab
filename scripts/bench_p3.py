#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""WASI 0.3 against 0.2 on `wasinn run`: the per-inference cost of the same loop (load once, then
REPEAT computes, each with a fresh input tensor and every output read) in a 0.2 component
(guest wit_run_model, C, `--repeat N --fetch each`) and a 0.3 one (guest p3_classify's `run`,
Rust on wasip3), on the tiny model and mobilenet_v2. The cost per inference is the slope between
a short and a long run (the start, load and exit cancel out): (t(N2) - t(N1)) / (N2 - N1), the
median of ROUNDS rounds, the guests taking turns. Called by scripts/bench-p3.sh.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MODELS = {
    # key: (model, input name, dims, input file or None for a generated one, short and long repeats)
    "tiny": ("tiny/model.onnx", "x", [1, 4], None, 1000, 41000),
    "mobilenet_v2": ("mobilenet_v2/model.onnx", "input", [1, 3, 224, 224], "mobilenet_v2/input.f32", 5, 45),
}


def wall(argv, env):
    start = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout.decode()}{r.stderr.decode()}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wasinn", required=True)
    ap.add_argument("--guests", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--doc")
    args = ap.parse_args()
    fixtures = Path(args.fixtures)
    work = Path(tempfile.mkdtemp(prefix="wasinn-bench-p3-"))
    env = dict(os.environ)
    cfg = ["--backend-config", 'onnxruntime={"intra_op_threads": 1}']
    rows = []
    for key, (model, name, dims, input_rel, n1, n2) in MODELS.items():
        x = work / f"{key}.f32"
        if input_rel:
            x.write_bytes((fixtures / input_rel).read_bytes())
        else:
            np.array([0.5, -1.5, 2.25, 8.0], dtype="<f4").tofile(x)
        d = str(fixtures / Path(model).parent)
        mount = ["--dir", f"{d}::/m", "--dir", f"{work}::/w"]
        m, xin = f"/m/{Path(model).name}", f"/w/{x.name}"
        dims_x = "x".join(map(str, dims))

        def v02(n):
            return [args.wasinn, "run", *mount, *cfg, f"{args.guests}/wit_run_model.component.wasm", "--model", m,
                    "--input", f"{name}:fp32:{dims_x}:{xin}", "--repeat", str(n), "--fetch", "each"]

        def v03(n):
            return [args.wasinn, "run", *mount, *cfg, f"{args.guests}/p3_classify.wasm", "run", m, name, dims_x,
                    xin, str(n)]

        for make in (v02, v03):  # warm: the component cache, the page cache
            wall(make(n1), env)
        slopes = {"0.2": [], "0.3": []}
        for r in range(args.rounds):
            order = [("0.2", v02), ("0.3", v03)] if r % 2 == 0 else [("0.3", v03), ("0.2", v02)]
            for label, make in order:
                short, long_ = wall(make(n1), env), wall(make(n2), env)
                slopes[label].append((long_ - short) / (n2 - n1))
        row = {k: statistics.median(v) for k, v in slopes.items()}
        rows.append((key, row, slopes))
        print(f"{key}: 0.2 {row['0.2'] * 1e6:.1f} us, 0.3 {row['0.3'] * 1e6:.1f} us per inference, "
              f"ratio {row['0.3'] / row['0.2']:.3f}", file=sys.stderr)
    lines = [
        "## WASI 0.3 against 0.2 (`wasinn run`)",
        "",
        f"Measured by `scripts/bench-p3.sh` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, load average before {os.getloadavg()[0]:.2f}: the same loop (load, then N "
        "computes, each with a fresh input tensor and every output read) as a 0.2 component (`wit_run_model "
        "--repeat N --fetch each`, C) and a 0.3 one (`p3_classify run`, Rust on wasip3: its exports async-lifted, "
        "the store driven by Wasmtime's async path), ONNX Runtime on 1 thread. Per inference: the slope between "
        f"a short and a long run, median of {args.rounds} rounds, the guests taking turns.",
        "",
        "| model | runs (short, long) | 0.2 per inference | 0.3 per inference | 0.3 / 0.2 | rounds' 0.3/0.2 spread |",
        "|---|---|---|---|---|---|",
    ]
    for key, row, slopes in rows:
        _, _, _, _, n1, n2 = MODELS[key]
        ratios = sorted(b / a for a, b in zip(slopes["0.2"], slopes["0.3"]))
        lines.append(f"| {key} | {n1}, {n2} | {row['0.2'] * 1e6:.1f} us | {row['0.3'] * 1e6:.1f} us | "
                     f"{row['0.3'] / row['0.2']:.3f} | {ratios[0]:.2f}-{ratios[-1]:.2f} |")
    section = "\n".join(lines) + "\n"
    print(section)
    if args.doc:
        doc = Path(args.doc)
        text = doc.read_text()
        start, end = "<!-- p3:begin -->", "<!-- p3:end -->"
        block = f"{start}\n{section}{end}"
        if start in text and end in text:
            text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
        doc.write_text(text)


if __name__ == "__main__":
    main()
