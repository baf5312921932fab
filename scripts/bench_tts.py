# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Real-time factor of WasmEdge's GGML text to speech (OuteTTS 0.2 + WavTokenizer) on wasinn against
llama.cpp's former OuteTTS llama-tts (scripts/bench-tts.sh builds it from llama-cpp-python 0.3.34).

Both speak the same text with the same files: outetts/tiny.gguf (random weights, OuteTTS 0.2's
vocabulary), outetts/wavtokenizer.gguf and the speaker profile outetts/speaker.json
(scripts/fixtures/export_outetts.py), greedy, CODES codes (CODES * 320 samples at 24 kHz), one
thread. The guest is WasmEdge's tts example rebuilt on its crates (guest/rust/wasmedge-ggml-tts) on
the wasinn command. First the two WAVs are compared: the same length, every sample within one
step of int16 (llama-tts sums its transform in float, wasinn in double) or the times do not count.
Then rounds alternate (native, guest); a run's time is the process's wall time, model loads
included, as a user of either command waits. Writes a Markdown section (stdout, and
docs/benchmarks.md between <!-- bench:tts --> markers unless --no-doc).

    .deps/venv/bin/python scripts/bench_tts.py --wasinn build/bin/wasinn --guest G --native LLAMA_TTS
"""
import argparse
import array
import datetime
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import wave

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_doc  # noqa: E402

TEXT = "Hello, world 42. This benchmark speaks with a model of random weights."


def samples(path: pathlib.Path):
    with wave.open(str(path)) as w:
        return w.getframerate(), array.array("h", w.readframes(w.getnframes()))


def timed(cmd, cwd, what):
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"bench_tts: {what} failed ({r.returncode}): {r.stdout[-2000:]}{r.stderr[-2000:]}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wasinn", required=True)
    ap.add_argument("--guest", required=True)
    ap.add_argument("--native", required=True, help="llama-tts of llama.cpp 0.3.34")
    ap.add_argument("--fixtures", default=os.environ.get("WASINN_FIXTURES", str(pathlib.Path.home() / ".cache/wasinn/fixtures")))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--codes", type=int, default=375)
    ap.add_argument("--no-doc", action="store_true")
    args = ap.parse_args()
    f = pathlib.Path(args.fixtures) / "outetts"
    model, vocoder, speaker = f / "tiny.gguf", f / "wavtokenizer.gguf", f / "speaker.json"
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = pathlib.Path(tmp_name)
        # llama-tts generates n + 1 tokens for -n n; the example's n_predict is the count.
        native = [args.native, "-m", str(model), "-mv", str(vocoder), "--tts-speaker-file", str(speaker), "-p", TEXT,
                  "-n", str(args.codes - 1), "--top-k", "1", "-t", "1", "-o", str(tmp / "native.wav")]
        guest = [args.wasinn, "run", "--log-level", "error", "--dir", f"{tmp}::.",
                 "--nn-preload", f"default:GGML:AUTO:{model}",
                 "--backend-config", 'llamacpp={"allow-preload-paths":true}']
        for env in (f"tts_output_file={tmp / 'guest.wav'}", f"model_vocoder={vocoder}", f"tts_speaker_file={speaker}",
                    "temp=0", f"n_predict={args.codes}", "n_gpu_layers=0", "threads=1", "ctx_size=4096",
                    "batch_size=4096", "ubatch_size=512"):
            guest += ["--env", env]
        guest += [args.guest, "default", TEXT]
        timed(native, tmp, "llama-tts")
        timed(guest, tmp, "the guest")
        rate, want = samples(tmp / "native.wav")
        guest_rate, got = samples(tmp / "guest.wav")
        if rate != guest_rate or len(want) != len(got) or len(want) != args.codes * 320:
            sys.exit(f"bench_tts: the WAVs differ in shape: native {len(want)} samples at {rate} Hz, "
                     f"guest {len(got)} at {guest_rate} Hz: no times count")
        diff = [abs(a - b) for a, b in zip(want, got)]
        if max(diff) > 1:
            sys.exit(f"bench_tts: a sample differs by {max(diff)}: no times count")
        same = sum(1 for d in diff if d == 0) / len(diff)
        n_times, g_times = [], []
        for _ in range(args.rounds):
            n_times.append(timed(native, tmp, "llama-tts"))
            g_times.append(timed(guest, tmp, "the guest"))
    seconds = len(want) / rate
    n_med, g_med = statistics.median(n_times), statistics.median(g_times)
    per_round = sorted(g / n for g, n in zip(g_times, n_times))
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = "\n".join([
        f"llama.cpp 0.3.34's llama-tts (OuteTTS, static CPU build) against WasmEdge's tts example on wasinn "
        f"(llama.cpp b11312); run {when}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; "
        f"{args.rounds} rounds, alternating, one thread each. Both speak \"{TEXT}\" with outetts/tiny.gguf "
        f"(random weights), outetts/wavtokenizer.gguf and speaker.json, greedy, {args.codes} codes "
        f"({seconds:.2f} s at {rate} Hz). A time is the process's wall time, model loads included. The WAVs "
        f"have the same length; {same * 100:.1f}% of the samples are equal and the rest one int16 step apart "
        "(llama-tts sums its inverse transform in float, wasinn's FFT in double).",
        "",
        "| model | threads | native median | guest median | ratio (rounds, min-max) | RTF native | RTF guest |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| outetts/tiny.gguf + wavtokenizer.gguf | 1 | {n_med * 1e3:.0f} ms | {g_med * 1e3:.0f} ms | "
        f"{g_med / n_med:.3f} ({per_round[0]:.3f}-{per_round[-1]:.3f}) | {n_med / seconds:.3f} | "
        f"{g_med / seconds:.3f} |",
    ])
    print(body)
    if not args.no_doc:
        bench_doc.write_sections(ROOT / "docs" / "benchmarks.md", {"tts": body})
    return 0


if __name__ == "__main__":
    sys.exit(main())
