#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Time to first token and tokens/s through an OpenAI-compatible endpoint: wasinn serve with the
http_openai component against native llama.cpp's llama-server, the same GGUF, threads, context
and client (PyPI's openai, streamed completions at temperature 0). The servers take turns request
by request; medians are reported. Both answers are checked equal before measuring (greedy, the
same llama.cpp build and CPU flags). Run by scripts/bench-openai.sh."""
import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import date
from pathlib import Path

PROMPT = "The history of the city begins"
MAX_TOKENS = 128


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url, proc, what, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench_openai: {what} exited with status {proc.returncode} before serving")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"bench_openai: {what} did not answer {url} within {seconds} s")


def one_stream(client, model):
    """(text, time to first token, decode tokens/s, completion tokens) of one streamed completion."""
    start = time.perf_counter()
    first = last = None
    pieces = []
    for chunk in client.completions.create(model=model, prompt=PROMPT, max_tokens=MAX_TOKENS, temperature=0,
                                           stream=True):
        if not chunk.choices or not chunk.choices[0].text:
            continue
        now = time.perf_counter()
        first = first or now
        last = now
        pieces.append(chunk.choices[0].text)
    n = len(pieces)
    rate = (n - 1) / (last - first) if n > 1 and last > first else float("nan")
    return "".join(pieces), first - start, rate, n


def add_server_args(ap):
    """The binaries both OpenAI benchmarks start: wasinn with its plugins and guest, and llama-server."""
    ap.add_argument("--wasinn", required=True)
    ap.add_argument("--backend-dir", required=True)
    ap.add_argument("--guest", required=True)
    ap.add_argument("--llama-server", required=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    add_server_args(ap)
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--llama-build", default="?")
    ap.add_argument("--doc")
    args = ap.parse_args()
    import openai

    work = Path(tempfile.mkdtemp(prefix="wasinn-bench-openai-"))
    log = open(work / "servers.log", "w")
    ctx = 1024
    wport, lport = free_port(), free_port()
    options = json.dumps({"threads": args.threads, "ctx-size": ctx})
    servers = {
        "wasinn": subprocess.Popen(
            [args.wasinn, "serve", "-q", "--addr", f"127.0.0.1:{wport}", "--workers", "1", "--backend-dir",
             args.backend_dir, "--nn-preload", f"default:GGML:AUTO:{args.model}", "--env", "MODELS=default",
             "--env", f"NN_OPTIONS={options}", args.guest], stdout=log, stderr=log),
        "llama-server": subprocess.Popen(
            [args.llama_server, "-m", args.model, "--host", "127.0.0.1", "--port", str(lport), "-t",
             str(args.threads), "-tb", str(args.threads), "-c", str(ctx), "-np", "1", "--no-webui"],
            stdout=log, stderr=log),
    }
    try:
        wait_ready(f"http://127.0.0.1:{wport}/v1/models", servers["wasinn"], "wasinn serve")
        wait_ready(f"http://127.0.0.1:{lport}/health", servers["llama-server"], "llama-server")
        clients = {
            "wasinn": (openai.OpenAI(base_url=f"http://127.0.0.1:{wport}/v1", api_key="x", max_retries=0), "default"),
            "llama-server": (openai.OpenAI(base_url=f"http://127.0.0.1:{lport}/v1", api_key="x", max_retries=0),
                             Path(args.model).name),
        }
        answers = {k: one_stream(c, m)[0] for k, (c, m) in clients.items()}  # also the warm-up
        same = answers["wasinn"] == answers["llama-server"]
        print(f"answers equal: {same}", file=sys.stderr)
        if not same:
            print(f"  wasinn:       {answers['wasinn'][:120]!r}\n  llama-server: {answers['llama-server'][:120]!r}",
                  file=sys.stderr)
        runs = {k: [] for k in clients}
        for i in range(args.requests):
            for k, (c, m) in clients.items():
                runs[k].append(one_stream(c, m))
    finally:
        for p in servers.values():
            p.terminate()
        for p in servers.values():
            p.wait(timeout=30)
    med = {k: (statistics.median(r[1] for r in v), statistics.median(r[2] for r in v),
               statistics.median(r[3] for r in v)) for k, v in runs.items()}
    (wt, wr, wn), (lt, lr, ln) = med["wasinn"], med["llama-server"]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    section = "\n".join([
        "## OpenAI endpoint: `wasinn serve` + `http_openai` against llama.cpp's `llama-server`",
        "",
        f"Measured by `scripts/bench-openai.sh` on {date.today()}: {os.cpu_count()} cores ({cpu}), "
        f"{platform.system()} {platform.release()}; shared and noisy. The bench GGUF fixture (n_embd 512, 8 layers, "
        f"f16), {args.threads} threads and a {ctx}-token context on both, llama.cpp {args.llama_build} on both (the "
        f"same CPU flags). PyPI's `openai` client streams `/v1/completions` ({MAX_TOKENS} tokens, temperature 0) "
        f"from one server then the other, {args.requests} times; medians. Answers equal before measuring: "
        f"{'yes' if same else 'NO'}. Ratios above 1 favour wasinn.",
        "",
        "| | wasinn | llama-server | ratio |",
        "|---|---|---|---|",
        f"| time to first token | {wt * 1e3:.1f} ms | {lt * 1e3:.1f} ms | {lt / wt:.2f} |",
        f"| decode tokens/s | {wr:.1f} | {lr:.1f} | {wr / lr:.2f} |",
        f"| tokens per answer | {wn} | {ln} | |",
        "",
    ])
    print(section)
    if args.doc:
        text = Path(args.doc).read_text()
        start, end = "<!-- openai:begin -->", "<!-- openai:end -->"
        block = f"{start}\n{section}{end}"
        if start in text and end in text:
            text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
        Path(args.doc).write_text(text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
