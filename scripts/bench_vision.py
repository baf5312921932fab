#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Images into text models: wasinn against native llama.cpp's llama-mtmd-cli.

Both sides run bench.gguf with mmproj-bench.gguf (256 image tokens, scripts/fixtures/
export_llava.py) on llava/image.png, greedy, the same threads and context, in fresh processes,
interleaved. Each process's stdout and stderr are read as one pipe and every chunk is stamped
on arrival, so both sides are timed by the same clock in the same way:

  image to first token: from the line printed just before the image is read (llama-mtmd-cli's
      "loading model:" log line, which it prints once the model and projector are loaded; the
      guest's "Prompt:" line, printed just before its set_input) to the first token's text.
      It covers reading and decoding the image, preprocessing, the projector's encoder, the
      prompt's decode and the first sample; wasinn's side also the guest's calls.
  tokens/s: (tokens - 1) / (last token's arrival - first token's arrival).

The guest is guest/rust/wasmedge-ggml-llava (WasmEdge's llava example) with its `stream=2`
addition: it streams by compute_single as llava-base64-stream does, twice on one context. The
first prompt also makes the context's llama_context (the plugin makes it at the first compute),
which llama-mtmd-cli makes before its image; the second ("Again:") does not. Correctness first:
the answers must be equal, or the run fails.

  bench_vision.py --build DIR [--fixtures DIR] [--runs N] [--n-predict N] [--threads N] [--json F]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUESTION = "describe the picture"
PROMPT = "USER: <image>" + QUESTION + "\nASSISTANT:"
LOG_LINE = re.compile(rb"^\d+\.\d\d\.\d{3}\.\d{3} [IWED] ")


def stamped_run(cmd, env):
    """Runs cmd with stdout and stderr as one pipe; returns [(seconds, bytes)] of every read."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, bufsize=0)
    chunks = []
    fd = proc.stdout.fileno()
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        chunks.append((time.monotonic(), data))
    if proc.wait() != 0:
        sys.exit(f"bench_vision: {cmd[0]} failed:\n" + b"".join(c for _, c in chunks).decode(errors="replace")[-3000:])
    return chunks


def timings(chunks, start_marker: bytes, tokens_after: bytes, n_tokens: int, stop_marker: bytes = b"Again:"):
    """(image to first token in s, tokens/s, answer text) from stamped chunks: the tokens that
    follow start_marker's line and then tokens_after's, up to a line starting with stop_marker."""
    t0 = t_first = t_last = None
    seen_after = stopped = False
    answer = b""
    pending = b""
    for t, data in chunks:
        if seen_after and stopped:
            break
        pending += data
        lines = pending.split(b"\n")
        # A line waits for its end, except once the tokens flow: a token's text ends no line.
        pending = b"" if seen_after else lines.pop()
        for line in lines:
            if not seen_after:
                if t0 is None and start_marker in line:
                    t0 = t
                elif t0 is not None and tokens_after in line:
                    seen_after = True
                continue
            if line.startswith(stop_marker):
                stopped = True
                break
            if LOG_LINE.match(line) or line.startswith(b"[INFO]"):
                continue
            answer += line
            if line.strip():
                t_first = t if t_first is None else t_first
                t_last = t
    if t0 is None or t_first is None:
        sys.exit("bench_vision: markers not found in:\n" + b"".join(c for _, c in chunks).decode(errors="replace")[-3000:])
    return t_first - t0, (n_tokens - 1) / max(t_last - t_first, 1e-9), answer.decode(errors="replace").strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--build", type=Path, required=True)
    ap.add_argument("--fixtures", type=Path, default=Path(os.environ.get("WASINN_FIXTURES", "~/.cache/wasinn/fixtures")).expanduser())
    ap.add_argument("--deps", type=Path, default=Path(__file__).resolve().parents[1] / ".deps")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--n-predict", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()

    fx = a.fixtures
    model, mmproj, image = fx / "llama/bench.gguf", fx / "llava/mmproj-bench.gguf", fx / "llava/image.png"
    llama = a.deps / "llamacpp-dl"
    native_env = dict(os.environ, GGML_BACKEND_PATH=str(llama / "lib/libggml-cpu.so"))
    native = [str(llama / "bin/llama-mtmd-cli"), "-m", str(model), "--mmproj", str(mmproj), "--image", str(image),
              "-p", QUESTION, "--chat-template", "vicuna", "--temp", "0", "-n", str(a.n_predict),
              "-t", str(a.threads), "-c", "1024"]
    guest = [str(a.build / "bin/wasinn"), "run", "--log-level", "error", "--nn-preload", f"default:GGML:AUTO:{model}",
             "--backend-config", 'llamacpp={"allow-preload-paths":true}']
    for e in (f"mmproj={mmproj}", f"image={image}", "temp=0", f"n_predict={a.n_predict}", f"threads={a.threads}",
              "ctx_size=1024", "stream=2"):
        guest += ["--env", e]
    guest += [str(a.build / "guests/compat_wasmedge_ggml_llava.wasm"), "default", PROMPT]

    rows = {"native": [], "guest": [], "guest_again": []}
    answers = {}
    for i in range(a.runs):
        # Alternate which side goes first, so a drift in the machine's load hits both alike.
        order = ("native", "guest") if i % 2 == 0 else ("guest", "native")
        for side in order:
            if side == "native":
                r = timings(stamped_run(native, native_env), b"loading model:", b"mtmd batch encoding done", a.n_predict)
                rows["native"].append(r[:2])
                answers.setdefault("native", r[2])
            else:
                chunks = stamped_run(guest, os.environ)
                for key, start in (("guest", b"Prompt:"), ("guest_again", b"Again:")):
                    r = timings(chunks, start, b"[INFO] Number of input tokens:", a.n_predict)
                    rows[key].append(r[:2])
                    answers.setdefault(key, r[2])
    for key in ("guest", "guest_again"):
        if answers[key] != answers["native"]:
            sys.exit(f"bench_vision: the answers differ:\nnative: {answers['native']!r}\n{key}: {answers[key]!r}")

    def med(side, k):
        return statistics.median(r[k] for r in rows[side])

    out = {"runs": a.runs, "n_predict": a.n_predict, "threads": a.threads, "load_average": os.getloadavg()}
    for side in rows:
        out[f"{side}_first_token_ms"] = med(side, 0) * 1e3
        out[f"{side}_tokens_per_s"] = med(side, 1)
    print("| measure | native (llama-mtmd-cli) | wasinn: a new context | guest/native | wasinn: the context's second prompt | guest/native |")
    print("|---|---:|---:|---:|---:|---:|")
    n, g, g2 = (out[f"{k}_first_token_ms"] for k in ("native", "guest", "guest_again"))
    print(f"| image to first token (ms, median of {a.runs}) | {n:.1f} | {g:.1f} | {g / n:.3f} | {g2:.1f} | {g2 / n:.3f} |")
    n, g, g2 = (out[f"{k}_tokens_per_s"] for k in ("native", "guest", "guest_again"))
    print(f"| generation (tokens/s, median of {a.runs}) | {n:.1f} | {g:.1f} | {g / n:.3f} | {g2:.1f} | {g2 / n:.3f} |")
    print(f"load average {out['load_average'][0]:.1f} (1 min); samples (s, tokens/s): {json.dumps(rows)}")
    if a.json:
        a.json.write_text(json.dumps(dict(out, samples=rows), indent=2) + "\n")


if __name__ == "__main__":
    main()
