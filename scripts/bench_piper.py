# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Real-time factor of Piper text to speech: a wasm guest on wasinn against piper-tts, the native tool.

The guest is guest/examples/speak.c (WasmEdge's Piper example's calls), which speaks the text
REPEAT times on one context and prints each set_input + compute + get_output's wall time. The
native side is piper-tts (PyPI, scripts/deps/piper.pip) in this process: synthesize_wav of the
same text into memory, normalize_audio off, on an ONNX Runtime session with the plugin's
settings (one intra-op thread, sequential, basic optimizations), so both sides run the same
kernels. Both use the voice piper/bench.onnx (random weights, scripts/fixtures/export_piper.py).
First the guest's WAV must equal piper-tts's byte for byte (the text avoids words where piper-tts's
espeak-ng fork and Debian's phonemize apart, docs/backends/piper.md); then rounds alternate (native, guest)
so the shared machine's drift lands on both. The real-time factor is a call's time over the
audio's length. Writes a Markdown section (stdout, and docs/benchmarks.md between
<!-- bench:piper --> markers unless --no-doc).

    .deps/venv/bin/python scripts/bench_piper.py --build build [--rounds 8] [--repeat 5]
"""
import argparse
import datetime
import io
import json
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

TEXT = (
    "Welcome to the world of speech synthesis! This benchmark speaks a few sentences, one after "
    "another, with a voice of random weights. Each sentence goes through espeak-ng, then the voice "
    "model, then into a WAV file. How long does that take, compared with the length of the sound it "
    "makes? That quotient is what we measure."
)


def native_voice(model: pathlib.Path):
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    config = PiperConfig.from_dict(json.loads(pathlib.Path(f"{model}.json").read_text(encoding="utf-8")))
    session = onnxruntime.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
    return PiperVoice(session=session, config=config)


def native_wav(voice) -> bytes:
    from piper.config import SynthesisConfig

    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        voice.synthesize_wav(TEXT, w, syn_config=SynthesisConfig(normalize_audio=False))
    return buf.getvalue()


def guest_run(build: pathlib.Path, model: pathlib.Path, tmp: pathlib.Path, repeat: int):
    (tmp / "text.txt").write_text(TEXT, encoding="utf-8")
    cmd = [
        str(build / "bin" / "wasinn"), "run", "--backend-dir", str(build / "lib" / "wasinn" / "backends"),
        "--backend-config", 'piper={"allow-host-paths":true}', "--dir", f"{tmp}::/b",
        str(build / "guests" / "speak.wasm"), json.dumps({"model": str(model)}), "/b/text.txt", "/b/out.wav",
        str(repeat),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"bench_piper: the guest failed ({r.returncode}): {r.stdout}{r.stderr}")
    times = [float(line.split(":")[1]) for line in r.stdout.splitlines() if line.startswith("compute ms:")]
    return times, (tmp / "out.wav").read_bytes()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--fixtures", default=os.environ.get("WASINN_FIXTURES", str(pathlib.Path.home() / ".cache/wasinn/fixtures")))
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5, help="calls per round and side")
    ap.add_argument("--no-doc", action="store_true")
    args = ap.parse_args()
    build, model = pathlib.Path(args.build), pathlib.Path(args.fixtures) / "piper" / "bench.onnx"
    voice = native_voice(model)
    want = native_wav(voice)
    seconds = (len(want) - 44) / 2 / voice.config.sample_rate
    native, guest = [], []
    with tempfile.TemporaryDirectory() as tmp:
        times, got = guest_run(build, model, pathlib.Path(tmp), 1)
        if got != want:
            sys.exit("bench_piper: the guest's WAV differs from piper-tts's: no times count")
        for _ in range(args.rounds):
            for _ in range(args.repeat):
                start = time.perf_counter()
                native_wav(voice)
                native.append((time.perf_counter() - start) * 1e3)
            times, _ = guest_run(build, model, pathlib.Path(tmp), args.repeat)
            guest.extend(times)
    import importlib.metadata as md

    n_med, g_med = statistics.median(native), statistics.median(guest)
    ratio = g_med / n_med
    # The ratio's spread: per round, the guest's median over the native's median.
    per_round = sorted(
        statistics.median(guest[i * args.repeat:(i + 1) * args.repeat])
        / statistics.median(native[i * args.repeat:(i + 1) * args.repeat])
        for i in range(args.rounds)
    )
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]  # a shared machine: what else ran shows in the spread
    body = "\n".join([
        f"piper-tts {md.version('piper-tts')} (its espeak-ng fork) against the piper plugin (ONNX Runtime "
        f"{md.version('onnxruntime')}, Debian's espeak-ng); run {when}, load average {load:.1f} on "
        f"{os.cpu_count()} CPUs; {args.rounds} rounds of {args.repeat} calls "
        f"per side, alternating. A call speaks the {len(TEXT)}-character text ({seconds:.2f} s of audio at "
        f"{voice.config.sample_rate} Hz) on piper/bench.onnx: native synthesize_wav into memory; the guest's "
        "set_input, compute and get_output. The WAVs are equal byte for byte.",
        "",
        "| voice | threads | native median | guest median | ratio (round medians, min-max) | RTF native | RTF guest |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| bench.onnx (random, 1024 wide, 4 layers) | 1 | {n_med:.2f} ms | {g_med:.2f} ms | {ratio:.3f} "
        f"({per_round[0]:.3f}-{per_round[-1]:.3f}) | {n_med / 1e3 / seconds:.4f} | {g_med / 1e3 / seconds:.4f} |",
    ])
    print(body)
    if not args.no_doc:
        bench_doc.write_sections(ROOT / "docs" / "benchmarks.md", {"piper": body})
    return 0


if __name__ == "__main__":
    sys.exit(main())
