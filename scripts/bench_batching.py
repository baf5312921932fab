#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Continuous batching and the prompt cache (issue 82): `wasinn serve` with the http_openai
component against llama.cpp's `llama-server -np 8`, the same GGUF (bench-large, made on demand by
scripts/fixtures/export_gguf.py), 2 threads and a 1024-token context per sequence on both, one
stdlib (urllib) client, greedy chat completions:
  - 8 concurrent requests x 64 tokens (different prompts): completion tokens / wall time;
  - 1 request x 64 tokens: the same;
  - the next turn of a conversation: a ~795-token first turn, then the second request (its
    messages, its answer and a short user turn) timed alone, as a cache of the first's prompt makes it.
Each case runs on both servers back to back (the first alternating by round), --rounds times;
medians and ranges, and each case's ratio as the median of its rounds' ratios. The 8 streams' CPU
time per token (each server's process, from /proc) is what the machine's noise moves least: both
servers keep the 2 cores busy, so their tokens/s follow it. The answers of both are
compared (greedy, the same llama.cpp build and CPU flags). Run by `scripts/bench-openai.sh --batching`."""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_doc import write_sections  # noqa: E402
from bench_openai import add_server_args, free_port, wait_ready  # noqa: E402
from fixtures.export_gguf import on_demand  # noqa: E402

TOKENS = 64
STREAMS = 8
TOPICS = ["the history of the city", "how bread is made", "a walk along the river", "the rules of chess",
          "the life of bees", "building a wooden boat", "the night sky in winter", "a market on a Sunday"]
# About 795 prompt tokens with the llama vocabulary and the default (ChatML) template.
LONG_TEXT = ("The archive holds letters, maps and ledgers from the old harbour, and each box is listed "
             "by year, by ship and by the merchant who kept it. ") * 23


class Endpoint:
    """One server's /v1/chat/completions through urllib."""

    def __init__(self, name, port, model):
        self.name, self.url, self.model = name, f"http://127.0.0.1:{port}/v1/chat/completions", model

    def chat(self, messages, max_tokens):
        """(text, usage, seconds) of one greedy answer."""
        body = json.dumps({"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": 0})
        req = urllib.request.Request(self.url, body.encode(), {"content-type": "application/json"})
        start = time.perf_counter()
        with urllib.request.urlopen(req, timeout=600) as r:
            answer = json.loads(r.read())
        return answer["choices"][0]["message"]["content"], answer["usage"], time.perf_counter() - start


def ask(topic):
    return [{"role": "user", "content": f"Write about {topic}."}]


def concurrent(ep, n):
    """(texts, tokens/s) of n requests at once: their completion tokens over the wall time."""
    results, errors = [None] * n, []

    def run(i):
        try:
            results[i] = ep.chat(ask(TOPICS[i % len(TOPICS)]), TOKENS)
        except OSError as e:  # reported once below, with the servers' state
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    if errors:
        raise errors[0]
    return [r[0] for r in results], sum(r[1]["completion_tokens"] for r in results) / wall, results


def next_turn(ep, round_no):
    """(second answer, its seconds, its usage, the first's usage): the first turn is this round's own
    (its first words differ), so only it can have left the second's prefix in a cache."""
    first = [{"role": "user", "content": f"Conversation {round_no}. {LONG_TEXT}Summarise it."}]
    text, u1, _ = ep.chat(first, 4)
    second = first + [{"role": "assistant", "content": text}, {"role": "user", "content": "Go on."}]
    text2, u2, seconds = ep.chat(second, 4)
    return text2, seconds, u2, u1


def cpu_seconds(proc):
    """The CPU time (user + system) the process has used so far, from /proc/PID/stat."""
    fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cached(usage):
    return (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)


def plugin_takes_parallel(wasinn, backend_dir):
    """Whether the llama.cpp plugin lists "parallel" among its load config keys (`wasinn backends`)."""
    out = subprocess.run([wasinn, "backends", "--backend-dir", backend_dir], capture_output=True, text=True).stdout
    return any(line.split()[:1] == ["llamacpp"] and "parallel" in line for line in out.splitlines())


def spread(values, fmt):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    add_server_args(ap)
    ap.add_argument("--fixtures", required=True, help="the fixtures directory, where bench-large.gguf is kept")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--llama-build", default="?")
    ap.add_argument("--doc")
    args = ap.parse_args()
    print("bench-large.gguf: made now unless it is in the fixtures already (about 20 s)", file=sys.stderr)
    args.model = str(on_demand(Path(args.fixtures), "bench-large"))

    ctx = 1024
    load = [open("/proc/loadavg").read().split()[0]]
    work = Path(tempfile.mkdtemp(prefix="wasinn-bench-batching-"))
    log = open(work / "servers.log", "w")
    print(f"the servers' output: {work / 'servers.log'}", file=sys.stderr)
    wport, lport = free_port(), free_port()
    parallel = plugin_takes_parallel(args.wasinn, args.backend_dir)
    print(f"the llama.cpp plugin {'takes' if parallel else 'does NOT take'} \"parallel\": wasinn runs "
          f"{'with' if parallel else 'without'} --backend-config 'llamacpp={{\"parallel\":{STREAMS}}}'",
          file=sys.stderr)
    options = json.dumps({"threads": args.threads, "ctx-size": ctx})
    wasinn_cmd = [args.wasinn, "serve", "-q", "--addr", f"127.0.0.1:{wport}", "--workers", str(STREAMS),
                  "--backend-dir", args.backend_dir, "--nn-preload", f"default:GGML:AUTO:{args.model}",
                  "--env", "MODELS=default", "--env", f"NN_OPTIONS={options}"]
    if parallel:
        wasinn_cmd += ["--backend-config", f'llamacpp={{"parallel":{STREAMS}}}']
    servers = {
        "wasinn": subprocess.Popen(wasinn_cmd + [args.guest], stdout=log, stderr=log),
        "llama-server": subprocess.Popen(
            [args.llama_server, "-m", args.model, "--host", "127.0.0.1", "--port", str(lport), "-t",
             str(args.threads), "-tb", str(args.threads), "-c", str(ctx * STREAMS), "-np", str(STREAMS), "--jinja",
             "--no-webui"], stdout=log, stderr=log),
    }
    endpoints = [Endpoint("wasinn", wport, "default"), Endpoint("llama-server", lport, Path(args.model).name)]
    runs = {ep.name: {"concurrent": [], "single": [], "turn": [], "usage": None, "cached": [], "tokens": [],
                      "cpu": []} for ep in endpoints}
    answers = {ep.name: {} for ep in endpoints}
    try:
        wait_ready(f"http://127.0.0.1:{wport}/v1/models", servers["wasinn"], "wasinn serve", seconds=300)
        wait_ready(f"http://127.0.0.1:{lport}/health", servers["llama-server"], "llama-server", seconds=300)
        for ep in endpoints:  # each prompt alone: the answers to compare, and the warm-up
            answers[ep.name]["alone"] = [ep.chat(ask(t), TOKENS)[0] for t in TOPICS[:STREAMS]]
        for r in range(args.rounds):
            # Case by case, the servers back to back and the first of each pair alternating by round:
            # the machine's drift then falls on both sides of each pair's ratio alike.
            order = endpoints if r % 2 == 0 else endpoints[::-1]
            for ep in order:
                before = cpu_seconds(servers[ep.name])
                texts, rate, results = concurrent(ep, STREAMS)
                # What the machine's noise does not move: the server's CPU time per token made.
                used = cpu_seconds(servers[ep.name]) - before
                runs[ep.name]["cpu"].append(1000 * used / sum(x[1]["completion_tokens"] for x in results))
                runs[ep.name]["concurrent"].append(rate)
                runs[ep.name]["tokens"] += [x[1]["completion_tokens"] for x in results]
                answers[ep.name].setdefault("concurrent", texts)
            for ep in order:
                text, usage, seconds = ep.chat(ask(TOPICS[0]), TOKENS)
                runs[ep.name]["single"].append(usage["completion_tokens"] / seconds)
            for ep in order:
                text2, seconds2, u2, u1 = next_turn(ep, r)
                runs[ep.name]["turn"].append(seconds2)
                runs[ep.name]["cached"].append(cached(u2))
                runs[ep.name]["usage"] = (u1["prompt_tokens"], u2["prompt_tokens"])
                answers[ep.name].setdefault("next turn", []).append(text2)
            for ep in endpoints:
                x = runs[ep.name]
                print(f"round {r + 1} {ep.name}: {x['concurrent'][-1]:.1f} tok/s x{STREAMS}, "
                      f"{x['single'][-1]:.1f} tok/s x1, next turn {x['turn'][-1]:.3f} s "
                      f"({x['cached'][-1]} of {x['usage'][1]} prompt tokens cached)", file=sys.stderr)
    except OSError as e:
        states = ", ".join(f"{k} {'running' if p.poll() is None else f'exited with status {p.returncode}'}"
                           for k, p in servers.items())
        sys.exit(f"bench_batching: a request failed: {e} ({states}; their output: {work / 'servers.log'})")
    finally:
        for p in servers.values():
            p.terminate()
        for p in servers.values():
            p.wait(timeout=30)
    load.append(open("/proc/loadavg").read().split()[0])
    w, l = runs["wasinn"], runs["llama-server"]
    equal = {case: answers["wasinn"][case] == answers["llama-server"][case] for case in answers["wasinn"]}
    same_tokens = w["tokens"] == l["tokens"] and w["usage"] == l["usage"]
    # Batching changes no greedy answer (within llama.cpp's own batch invariance): at once as alone.
    batch_same = {k: a["concurrent"] == a["alone"] for k, a in answers.items()}
    print(f"answers at once equal to alone: {batch_same}", file=sys.stderr)
    for case, same in equal.items():
        print(f"answers equal ({case}): {same}", file=sys.stderr)
    print(f"token counts equal: {same_tokens} (completion tokens {sorted(set(w['tokens']))} and "
          f"{sorted(set(l['tokens']))}; next-turn prompts {w['usage']} and {l['usage']})", file=sys.stderr)
    # Each round's pair as a ratio (above 1 favours wasinn), and their median.
    ratio = {c: statistics.median([a / b for a, b in zip(w[c], l[c])]) for c in ("concurrent", "single")}
    ratio["turn"] = statistics.median([b / a for a, b in zip(w["turn"], l["turn"])])
    ratio["cpu"] = statistics.median([b / a for a, b in zip(w["cpu"], l["cpu"])])
    cpu = next((x.split(":", 1)[1].strip() for x in open("/proc/cpuinfo") if x.startswith("model name")), "?")
    first, second = l["usage"]
    body = "\n".join([
        f"Measured by `scripts/bench-openai.sh --batching` on {date.today()}: {os.cpu_count()} cores ({cpu}), "
        f"{platform.system()} {platform.release()}; shared and noisy (load average {load[0]} before, {load[1]} "
        f"after). The bench-large GGUF (n_embd 1024, 12 layers, f16, 440 MB, random weights; "
        f"`scripts/fixtures/export_gguf.py` makes it on demand), {args.threads} threads "
        f"and a {ctx}-token context per sequence on both, llama.cpp {args.llama_build} on both: "
        f"`llama-server -np {STREAMS} -c {ctx * STREAMS} -t {args.threads} -tb {args.threads} --jinja` against "
        f"`wasinn serve --workers {STREAMS}` with the http_openai component, NN_OPTIONS ctx-size {ctx}, and "
        + (f"`--backend-config 'llamacpp={{\"parallel\":{STREAMS}}}'`" if parallel else
           "**without** `--backend-config 'llamacpp={\"parallel\":8}'`, which this build's llama.cpp plugin does "
           "not take (no batching, no prompt cache: a context per request)") +
        f". One stdlib (urllib) client, `/v1/chat/completions` at temperature 0: {STREAMS} requests at once "
        f"(different prompts) and one alone, {TOKENS} tokens each, as completion tokens over the wall time; the "
        f"next turn of a conversation: a {first}-token first turn answered (4 tokens), then the {second}-token "
        f"second (its messages, its answer and a short user turn; 4 tokens) timed. {args.rounds} rounds, each "
        f"case run on both servers back to back (which goes first alternating by round); median (range); the "
        f"ratio is the median of the rounds' ratios, above 1 favouring wasinn. Answers equal: "
        + ", ".join(f"{case} {'yes' if same else 'NO'}" for case, same in equal.items())
        + f"; token counts equal: {'yes' if same_tokens else 'NO'}; each server's {STREAMS} answers at once "
        f"equal to its answers alone: "
        + ", ".join(f"{k} {'yes' if same else 'NO'}" for k, same in batch_same.items())
        + ". Prompt tokens the second turn took from a "
        f"cache (`usage.prompt_tokens_details.cached_tokens`): wasinn {sorted(set(w['cached']))}, llama-server "
        f"{sorted(set(l['cached']))}.",
        "",
        "| case | wasinn | llama-server | ratio |",
        "|---|---|---|---|",
        f"| {STREAMS} concurrent requests x {TOKENS} tokens | {spread(w['concurrent'], '{:.1f}')} tok/s | "
        f"{spread(l['concurrent'], '{:.1f}')} tok/s | {ratio['concurrent']:.2f} |",
        f"| the same, CPU time per token (user + system, the server's process) | {spread(w['cpu'], '{:.2f}')} ms | "
        f"{spread(l['cpu'], '{:.2f}')} ms | {ratio['cpu']:.2f} |",
        f"| 1 request x {TOKENS} tokens | {spread(w['single'], '{:.1f}')} tok/s | {spread(l['single'], '{:.1f}')} "
        f"tok/s | {ratio['single']:.2f} |",
        f"| the next turn: a {second}-token prompt extending the previous request's {first} | "
        f"{spread(w['turn'], '{:.3f}')} s | {spread(l['turn'], '{:.3f}')} s | {ratio['turn']:.2f} |",
        "",
    ])
    print(body)
    if args.doc:
        write_sections(Path(args.doc), {"batching": body})
    # Answers at once depend on llama.cpp's batch invariance (llama-server's own may differ): reported only.
    return 0 if equal["alone"] and equal["next turn"] and same_tokens else 1


if __name__ == "__main__":
    sys.exit(main())
