#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""WASI 0.3 components on wasinn (issue 44): the Rust guests of guest/rust-web/wasi-p3* (built with
wasip3 0.7.1 and wit-bindgen 0.57 from crates.io) on `wasinn run` and `wasinn serve`, answers
compared with native ONNX Runtime (the venv's onnxruntime) and native llama.cpp
(wasinn_llama_reference, greedy).

    p3_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --reference REF [options]

Cases (ctest runs each as p3.CASE, see CMakeLists.txt here):
  command   p3_classify (a wasi:cli@0.3.0 command over the spec's wasi:nn) and p3_nn classify
            (nn-async's compute, and --sync) classify the digits: every logit equals native ONNX
            Runtime's and stdout equals the 0.2 component wit_classify_digits's
  peer      p3_classify on Wasmtime's own CLI (scripts/bench-peers.sh builds it; skipped
            without it): the same stdout and logits as on wasinn
  overlap   two nn-async computes in flight on two contexts of the tiny GGUF: the short one, started
            second, ends first, and each answer equals native llama.cpp's
  cancel    a 100000-token compute dropped after 200 ms returns at once, and the context answers
            the next prompt as native llama.cpp does; nn-async's generate streams the native
            answer piece by piece, and dropping its reader frees the context for the next compute;
            --timeout stops a long generation with its message
  cancel_onnx  a looping ONNX model (y = x·W^n, written here with the onnx package) computing
            n = 10^9 is dropped after 200 ms: ONNX Runtime's terminate flag stops it, and the next
            compute on the context (n = 1) is done within a second of the drop and equals native
            ONNX Runtime's
  stress    (issue 54) p3_nn stress on the tiny GGUF: --rounds rounds of a long compute or generate
            dropped after a random 1-500 ms, each followed at once by a set-context-property, an
            8-token compute and an 8-token generate: no call answers "in use", every answer equals
            native llama.cpp's greedy one, the run exits 0; prints the drop-to-next-call times
  stress_onnx  the same on ONNX Runtime (the looping model, n = 10^9 dropped; then n = 1, which
            must equal native ONNX Runtime's; the property call gets ONNX Runtime's refusal)
  exit      --exit-runs runs of p3_nn drop-exit: a long compute or generate dropped (or left in
            flight) and the guest exits at once with code 3: every run exits 3, never by a signal;
            and p3_nn generate-drop as many times: every run exits 0 with native's answer
  docs      docs/compatibility.md's fenced 0.3 commands run as written: p3_classify prints what
            wit_classify_digits prints, p3_nn --invoke answer its async answer
  serve     p3_http on `wasinn serve`: /infer classifies a digit as native ONNX Runtime does, /generate
            streams native llama.cpp's answer (curl), a client that leaves mid-stream stops the
            generation (its compute steps stop growing in the metrics), and bad requests get 400/404
  reuse     (issue 54) p3_http's instances reused as `wasmtime serve` reuses them: 300 /count
            requests one after another see counts past 1 and never past --max-instance-reuse-count
            (default 128; 3 when asked: 1,2,3,1,...), 16 clients at once get their random bodies
            echoed whole (with the request's Content-Length, as Wasmtime answers, or chunked when
            it was), a /trap is answered 500 and the next request gets a fresh instance (count 1)
            and its right answer; a trap after the answer is out (/trap-after) drops the instance
            with no request in flight; each failure is a warning naming the trap, and stopping the
            server (SIGTERM) warns of none; --max-instance-reuse-count 1 (isolation) gives every
            request a fresh instance (count always 1)
  at_once   (issue 54) a reused 0.3 instance's concurrent requests are admitted past --workers, up
            to --workers x --max-instance-concurrent-reuse-count: under --workers 1 and 4 at once, 4
            clients whose /echo bodies are still coming each get their first chunk echoed (4 in the
            guest together), a 5th request waits in the queue (--max-queue 1), a 6th gets 503 with
            Retry-After and its access-log line; one body ended lets the 5th in, on the same instance
            (/count 5)
  stream    (issue 54) a request body streamed into a reused 0.3 instance as it arrives: 1 GiB
            uploaded with curl (chunked) to /echo comes back whole while the server's peak RSS grows
            under 64 MiB; curl's `Expect: 100-continue` upload gets its go-ahead at once; a chunked
            body past --max-request-bytes is answered 413
  busy      (issue 54) guests of reused 0.3 instances run on the HTTP side's runtime, so ones that
            hold their thread must not hold the server: while two guests spin 2 s each (GET /spin, a
            busy loop) and, on p3_http_spec, two blocking wasi:nn computes run (a slow ONNX Loop),
            /healthz is answered within 300 ms every time and another request is served; under
            --request-timeout 1s a 10 s spin is answered 504 within 3 s and the next request gets
            a fresh instance
  busy_poll a lane's --busy-poll: 500 requests on one kept-alive connection answered right with
            0, 200us (the default) and 10ms; 40 requests 50 ms apart then cost under 0.25 CPU-s and 2 s
            idle under 0.05 (the window shrinks when polling would be waste); --busy-poll 200 (bare
            seconds) exits 2 naming the 10ms bound
  switches  (issue 54) Wasmtime's 0.3 switches: -S p3, -W component-model-async (and
            concurrency-support) in each spelling run p3_nn; =n refuses it with exit 2 naming the
            switch, and a 0.2 component still runs; the later switch wins; the proposals past 0.3
            take =n only; -S max-resources=100 fails p3_nn many-tasks 1000 with Wasmtime's
            "resource table has no free keys" and exit 1 (as Wasmtime's p3_cli_many_tasks) and lets
            50 tasks and 200 dropped streams (p3_cli_many_stream) run; a core module opening 200
            files under -S max-resources=50 exits 1 with the same message, as on Wasmtime
  invoke    (issue 54) --invoke answer, p3_nn's async-lifted root export (it awaits a 0.3 wait-for):
            prints the known answer, as Wasmtime's CLI prints a string; answer() the same; a component
            whose only 0.3 feature is an async export (ASYNC_EXPORT_WAT, no 0.3 import) prints 42,
            under -S p3=n too (as Wasmtime 49.0.3), and is refused under -W component-model-async=n
  errors    bad input: a 0.3 component importing what wasinn does not serve is refused naming it;
            a missing model file, an unknown graph name: an error, never a crash

Exit status: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE).
"""
import argparse
import json
import os
import shlex
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from case_checks import Skipped, check, run_cases  # noqa: E402
from serve_test import Server, find_peer, log, request, wait_line, wait_lines  # noqa: E402


class Context:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        self.env.pop("WASINN_BACKEND_PATH", None)  # the build's own plugins are under test
        self.fixtures = os.environ.get("WASINN_FIXTURES") or args.fixtures
        self.tmp = tempfile.mkdtemp(prefix="wasinn-p3-test-")

    def guest(self, name):
        path = os.path.join(self.args.guests, f"{name}.wasm")
        if not os.path.exists(path):
            raise Skipped(f"{path} is missing: the WASI 0.3 guests need scripts/fetch-deps.sh rust-web")
        return path

    def backend(self, name):
        if not os.path.exists(os.path.join(self.args.backend_dir, f"{name}.json")):
            raise Skipped(f"the {name} backend is not built")

    def digits(self):
        self.backend("onnxruntime")
        return os.path.join(self.fixtures, "digits")

    def gguf(self):
        self.backend("llamacpp")
        path = os.path.join(self.fixtures, "llama", "tiny.gguf")
        check(os.path.exists(path), f"fixture {path} is missing: run .deps/venv/bin/python scripts/make_fixtures.py")
        return path

    def run(self, argv, timeout=600):
        start = time.monotonic()
        r = subprocess.run(argv, capture_output=True, env=self.env, timeout=timeout)
        r.elapsed = time.monotonic() - start
        return r

    def wasinn(self, *args, timeout=600):
        return self.run([self.args.wasinn, "run", *self.args.run_arg, *args], timeout=timeout)

    def reference(self, prompt, n):
        """Native llama.cpp's greedy answer (bytes) to PROMPT, N tokens, as the guests ask for it."""
        r = subprocess.run([self.args.reference, self.gguf(), "--prompt", prompt, "--n", str(n), "--ctx", "4096",
                            "--threads", "1"], capture_output=True)
        check(r.returncode == 0, f"llama_reference failed: {r.stderr.decode(errors='replace')}")
        return bytes.fromhex(json.loads(r.stdout)["text_hex"])


def utf8(b):
    """Native bytes as a WIT string carries them (a token ending mid-character: U+FFFD)."""
    return b.decode("utf-8", "replace")


def native_digits_logits(digits):
    """Every row of test_x through native ONNX Runtime, one [1, 64] run each, as the guests do."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(digits, "model.onnx"), options, providers=["CPUExecutionProvider"])
    x = np.fromfile(os.path.join(digits, "test_x.f32"), dtype="<f4").reshape(-1, 64)
    rows = [session.run(None, {"input": x[i:i + 1]})[0] for i in range(len(x))]
    return np.concatenate(rows).astype("<f4").tobytes()


def classify(ctx, runner, guest, *pre):
    """Runs a digits guest; its (stdout, logits bytes)."""
    digits = ctx.digits()
    out = os.path.join(ctx.tmp, f"{os.path.basename(guest)}.logits")
    if os.path.exists(out):
        os.remove(out)
    r = runner(guest, digits, out, *pre)
    check(r.returncode == 0, f"{guest} failed (exit {r.returncode}):\n{r.stdout.decode()}{r.stderr.decode()}")
    check(os.path.exists(out), f"{guest} wrote no logits")
    with open(out, "rb") as f:
        return r.stdout, f.read(), r.elapsed


def on_wasinn(ctx):
    def runner(guest, digits, out, *pre):
        return ctx.wasinn("--dir", f"{digits}::/d", "--dir", f"{ctx.tmp}::/out",
                          "--backend-config", 'onnxruntime={"intra_op_threads": 1}',
                          ctx.guest(guest), *pre, "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8",
                          f"/out/{os.path.basename(out)}")
    return runner


def case_command(ctx):
    want = native_digits_logits(ctx.digits())
    ref_out, ref_logits, _ = classify(ctx, on_wasinn(ctx), "wit_classify_digits.component")
    check(ref_logits == want, "the 0.2 component's logits differ from native ONNX Runtime's")
    for guest, pre in (("p3_classify", ()), ("p3_nn", ("classify",)), ("p3_nn", ("classify", "--sync"))):
        out, logits, elapsed = classify(ctx, on_wasinn(ctx), guest, *pre)
        label = " ".join((guest,) + pre)
        check(logits == want, f"{label}: its logits differ from native ONNX Runtime's")
        check(out == ref_out, f"{label}: stdout differs from wit_classify_digits's:\n{out.decode()}\n---\n"
                              f"{ref_out.decode()}")
        log(f"{label}: {len(want) // 40} rows, logits equal to native ONNX Runtime's, in {elapsed:.2f} s")


def case_docs(ctx):
    """docs/compatibility.md's fenced block of 0.3 commands, run as written from a checkout (the
    build and the fixtures where this run has them): p3_classify prints what the 0.2 component
    prints, p3_nn's answer its async answer. The build line is ctest's own build of the guests."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "compatibility.md")
    blocks, block = [], None
    with open(doc) as f:
        for line in f:
            if line.startswith("```"):  # a fence opens a block or closes the open one
                if block is not None:
                    blocks.append(block)
                block = [] if block is None else None
            elif block is not None and line.strip():
                block.append(line.rstrip("\n"))
    lines = next((b for b in blocks if any("p3_classify.wasm" in l for l in b)), None)
    check(lines is not None, f"no fenced p3_classify command in {doc}")
    check(lines[0] == "cmake --build build --target rust_web_guests", f"the build line: {lines[0]!r}")
    runs = lines[1:]
    check(len(runs) == 2, f"expected two run commands: {runs}")
    ctx.digits(), ctx.guest("p3_classify"), ctx.guest("p3_nn")
    wasinn = " ".join(shlex.quote(a) for a in [ctx.args.wasinn, "run", *ctx.args.run_arg])
    outs = []
    for line in runs:
        check(line.startswith("build/bin/wasinn run "), f"not a wasinn run from the checkout: {line}")
        command = (line.replace("build/bin/wasinn run", wasinn, 1)
                   .replace("build/guests/", ctx.args.guests.rstrip("/") + "/")
                   .replace("$HOME/.cache/wasinn/fixtures", ctx.fixtures))
        r = subprocess.run(["bash", "-c", command], capture_output=True, env=ctx.env, timeout=300)
        check(r.returncode == 0, f"{line}: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode()}")
        outs.append(r.stdout)
    ref_out, _, _ = classify(ctx, on_wasinn(ctx), "wit_classify_digits.component")
    check(outs[0] == ref_out, f"p3_classify's stdout differs from wit_classify_digits's:\n{outs[0].decode()}")
    check(outs[1] == b'"42 from an async export"\n', f"p3_nn --invoke answer: {outs[1]!r}")
    log("docs: compatibility.md's 0.3 commands run as written: p3_classify prints wit_classify_digits's "
        "stdout, p3_nn's answer its async answer")


def peer_wasmtime(ctx):
    found = find_peer(ctx.args)
    if not found:
        raise Skipped("Wasmtime's CLI is not built (~/.cache/wasinn/peers): scripts/bench-peers.sh --build-only "
                      "builds it")
    return found


def case_peer(ctx):
    wasmtime = peer_wasmtime(ctx)
    ort_libs = os.path.realpath(os.path.join(ctx.args.deps, "onnxruntime", "lib"))
    mine, mine_logits, _ = classify(ctx, on_wasinn(ctx), "p3_classify")

    def runner(guest, digits, out, *pre):
        env = dict(ctx.env, LD_LIBRARY_PATH=ort_libs)
        argv = [wasmtime, "run", "-S", "p3", "-W", "component-model-async", "-S", "nn", "-S", "cli",
                "--dir", f"{digits}::/d", "--dir", f"{ctx.tmp}::/out", ctx.guest(guest), *pre,
                "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8", f"/out/{os.path.basename(out)}"]
        start = time.monotonic()
        r = subprocess.run(argv, capture_output=True, env=env, timeout=600)
        r.elapsed = time.monotonic() - start
        return r

    out, logits, elapsed = classify(ctx, runner, "p3_classify")
    check(out == mine, f"Wasmtime's stdout differs from wasinn's:\n{out.decode()}\n---\n{mine.decode()}")
    check(logits == mine_logits, "Wasmtime's logits differ from wasinn's")
    log(f"p3_classify on Wasmtime's CLI ({wasmtime}): the same stdout and logits as on wasinn, in {elapsed:.2f} s")


def llama_run(ctx, *args, timeout=600):
    gguf = ctx.gguf()
    d = os.path.dirname(gguf)
    r = ctx.wasinn("--dir", f"{d}::/m", ctx.guest("p3_nn"), *[a.replace(gguf, "/m/" + os.path.basename(gguf))
                                                             for a in args], timeout=timeout)
    check(r.returncode == 0, f"p3_nn {' '.join(args[:1])} failed (exit {r.returncode}):\n"
                             f"{r.stdout.decode()}{r.stderr.decode()}")
    return r.stdout.decode()


def field(out, name):
    for line in out.splitlines():
        if line.startswith(name + ": "):
            return line[len(name) + 2:]
    raise AssertionError(f"no '{name}:' line in:\n{out}")


def case_overlap(ctx):
    out = llama_run(ctx, "overlap", ctx.gguf())
    check(field(out, "order") == "B A", f"the short compute, started second, did not end first:\n{out}")
    log(f"overlap: {field(out, 'order')}; {field(out, 'A')}")


def case_cancel(ctx):
    hello = utf8(ctx.reference("Hello", 8))
    out = llama_run(ctx, "cancel", ctx.gguf())
    check(field(out, "reuse") == hello.split("\n")[0], f"the reused context's answer differs from native's "
                                                       f"{hello!r}:\n{out}")
    log(f"cancel: {out.splitlines()[0]}")
    # nn-async's generate: the native answer, a piece per token.
    prompt = "Once upon a time"
    want = utf8(ctx.reference(prompt, 24))
    out = llama_run(ctx, "generate", ctx.gguf(), "24", prompt)
    check(out.split("text: ", 1)[1].rstrip("\n") == want.rstrip("\n"),
          f"the streamed answer differs from native llama.cpp's {want!r}:\n{out}")
    check(int(field(out, "pieces")) == 24, f"not a piece per token:\n{out}")
    out = llama_run(ctx, "generate-drop", ctx.gguf(), "Hello")
    check(field(out, "reuse") == hello.split("\n")[0], f"after dropping the stream, the context's answer differs "
                                                       f"from native's {hello!r}:\n{out}")
    log(f"generate: 24 pieces equal to native; after a dropped stream: {out.splitlines()[0]}")
    # --timeout stops a 0.3 guest as it stops a 0.2 one: between its awaits, with the usual message.
    gguf = ctx.gguf()
    r = ctx.wasinn("--timeout", "1s", "--dir", f"{os.path.dirname(gguf)}::/m", ctx.guest("p3_nn"), "generate",
                   "/m/" + os.path.basename(gguf), "100000", prompt, timeout=60)
    err = r.stderr.decode(errors="replace")
    check(r.returncode != 0 and "ran longer than --timeout 1s" in err and r.elapsed < 20,
          f"--timeout 1s on a long generation: exit {r.returncode} after {r.elapsed:.1f} s\n{err[-2000:]}")
    log(f"--timeout 1s stopped a 100000-token generation after {r.elapsed:.1f} s (exit {r.returncode})")


def looping_model(path, steps=None):
    """y = x·W^n as an ONNX Loop (n an i64 [1] input): long for a large n, with a node boundary
    (where ONNX Runtime checks its terminate flag) at every step. With `steps`, n is that constant
    and x the only input, as p3_http's /infer sets: a compute that blocks its thread that long."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    # A cyclic shift: values keep their size, as decaying ones would reach denormals, which
    # cost some CPUs (Sapphire Rapids) 60 ms a step instead of under 1.
    w = numpy_helper.from_array(np.roll(np.eye(256), 1, axis=1).astype(np.float32), "W")
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("MatMul", ["x_in", "W"], ["x_out"])],
        "step",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [256, 256])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [256, 256])])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 256])
    true = helper.make_node("Constant", [], ["true"], value=helper.make_tensor("t", TensorProto.BOOL, [], [True]))
    if steps is None:
        nodes = [helper.make_node("Constant", [], ["scalar"], value=helper.make_tensor("s", TensorProto.INT64, [0], [])),
                 helper.make_node("Reshape", ["n", "scalar"], ["m"]), true,
                 helper.make_node("Loop", ["m", "true", "x"], ["y"], body=body)]
        inputs, inits = [x, helper.make_tensor_value_info("n", TensorProto.INT64, [1])], [w]
    else:
        nodes = [true, helper.make_node("Loop", ["n", "true", "x"], ["y"], body=body)]
        inputs, inits = [x], [w, numpy_helper.from_array(np.array(steps, dtype=np.int64), "n")]
    graph = helper.make_graph(nodes, "looping", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 256])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def case_cancel_onnx(ctx):
    import numpy as np
    import onnxruntime as ort

    ctx.backend("onnxruntime")
    model = os.path.join(ctx.tmp, "looping.onnx")
    looping_model(model)
    x = ((np.arange(256 * 256) % 7).astype(np.float32) * np.float32(0.01)).reshape(256, 256)  # as the guest makes it
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    want = session.run(None, {"x": x, "n": np.array([1], dtype=np.int64)})[0].astype("<f4").tobytes()
    r = ctx.wasinn("--dir", f"{ctx.tmp}::/w", "--backend-config", 'onnxruntime={"intra_op_threads": 1}',
                   ctx.guest("p3_nn"), "cancel-onnx", "/w/looping.onnx", "/w/y.f32", timeout=120)
    out = r.stdout.decode()
    check(r.returncode == 0, f"p3_nn cancel-onnx failed (exit {r.returncode}):\n{out}{r.stderr.decode()}")
    with open(os.path.join(ctx.tmp, "y.f32"), "rb") as f:
        check(f.read() == want, "the compute after the cancelled one differs from native ONNX Runtime's")
    after = float(out.split("done ")[1].split(" ms")[0])
    check(after < 1000, f"the context was busy {after} ms after the drop: the compute was not terminated\n{out}")
    log(f"cancel_onnx: {out.strip()}")


def latencies(times):
    """'n=…, median …, p99 …, max … ms' of drop-to-next-call times."""
    times = sorted(times)
    if not times:
        return "none"
    return (f"n={len(times)}, median {times[len(times) // 2]:.2f} ms, p99 {times[min(len(times) - 1, len(times) * 99 // 100)]:.2f}"
            f" ms, max {times[-1]:.2f} ms")


def rounds_of(out, want_fields):
    """The round lines of a stress run: a dict per round of its fields ('next', 'property', ...)."""
    rounds = []
    for line in out.splitlines():
        if not line.startswith("round "):
            continue
        head, *parts = line.split("; ")
        fields = {"head": head}
        for part in parts:
            key, _, value = part.partition(" ")
            fields[key] = value
        check(all(k in fields for k in want_fields), f"a round line without {want_fields}: {line}")
        rounds.append(fields)
    return rounds


def case_stress(ctx):
    gguf = ctx.gguf()
    prompt = "Hello"
    want = utf8(ctx.reference(prompt, 8)).encode().hex()
    seed = int(os.environ.get("WASINN_STRESS_SEED") or time.time_ns() % 1000000007)
    r = ctx.wasinn("--dir", f"{os.path.dirname(gguf)}::/m", ctx.guest("p3_nn"), "stress",
                   "/m/" + os.path.basename(gguf), str(ctx.args.rounds), str(seed), prompt, timeout=1800)
    out, err = r.stdout.decode(), r.stderr.decode(errors="replace")
    check(r.returncode == 0, f"p3_nn stress (seed {seed}) exited {r.returncode}:\n{out[-3000:]}{err[-3000:]}")
    rounds = rounds_of(out, ("next", "property", "compute", "generate"))
    check(len(rounds) == ctx.args.rounds, f"{len(rounds)} of {ctx.args.rounds} rounds (seed {seed}):\n{out[-3000:]}")
    in_use = [x for x in rounds if "in use" in " ".join(x.values())]
    wrong = [x for x in rounds if x["property"] != "ok" or x["compute"] != want or x["generate"] != want]
    check(not in_use, f"{len(in_use)} rounds met 'in use' (seed {seed}): {in_use[:3]}")
    check(not wrong, f"{len(wrong)} rounds answered other than native's {want} (seed {seed}): {wrong[:3]}")
    check("graph_compute" not in err and "warn" not in err.lower(),
          f"a cancelled compute was warned about (seed {seed}):\n{err[-2000:]}")
    for kind in ("compute", "generate"):
        times = [float(x["next"].split()[0]) for x in rounds if x["head"].split()[2] == kind]
        log(f"stress (llama.cpp, seed {seed}): {kind} dropped, from the drop to the next call's end: "
            f"{latencies(times)}")
    ended = sum("ended first" in x["head"] for x in rounds)
    log(f"stress: {len(rounds)} rounds ({ended} whose work ended before its drop) in {r.elapsed:.1f} s, every "
        f"answer equal to native llama.cpp's")


def case_stress_onnx(ctx):
    import numpy as np
    import onnxruntime as ort

    ctx.backend("onnxruntime")
    model = os.path.join(ctx.tmp, "looping.onnx")
    looping_model(model)
    x = ((np.arange(256 * 256) % 7).astype(np.float32) * np.float32(0.01)).reshape(256, 256)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    want = session.run(None, {"x": x, "n": np.array([1], dtype=np.int64)})[0].astype("<f4").tobytes()
    seed = int(os.environ.get("WASINN_STRESS_SEED") or time.time_ns() % 1000000007)
    r = ctx.wasinn("--dir", f"{ctx.tmp}::/w", "--backend-config", 'onnxruntime={"intra_op_threads": 1}',
                   ctx.guest("p3_nn"), "stress-onnx", "/w/looping.onnx", str(ctx.args.rounds), str(seed), "/w/y.f32",
                   timeout=1800)
    out, err = r.stdout.decode(), r.stderr.decode(errors="replace")
    check(r.returncode == 0, f"p3_nn stress-onnx (seed {seed}) exited {r.returncode}:\n{out[-3000:]}{err[-3000:]}")
    with open(os.path.join(ctx.tmp, "y.f32"), "rb") as f:
        check(f.read() == want, "the clean compute differs from native ONNX Runtime's")
    rounds = rounds_of(out, ("next", "property", "compute"))
    check(len(rounds) == ctx.args.rounds, f"{len(rounds)} of {ctx.args.rounds} rounds (seed {seed}):\n{out[-3000:]}")
    in_use = [x for x in rounds if "in use" in " ".join(x.values())]
    # The known answer of a property call on ONNX Runtime, which has no settable knob.
    refusal = "ERR ErrorCode::InvalidArgument: graph has no property 'threads'"
    wrong = [x for x in rounds if not x["property"].startswith(refusal) or x["compute"] != "same"]
    check(not in_use, f"{len(in_use)} rounds met 'in use' (seed {seed}): {in_use[:3]}")
    check(not wrong, f"{len(wrong)} rounds answered wrong (seed {seed}): {wrong[:3]}")
    # The property call's refusal is warned about, as every refused call is; nothing else is.
    warned = [line for line in err.splitlines() if "warn" in line.lower() and "set-context-property" not in line]
    check(not warned, f"a cancelled compute was warned about (seed {seed}):\n" + "\n".join(warned[:5]))
    times = [float(x["next"].split()[0]) for x in rounds]
    log(f"stress (ONNX Runtime, seed {seed}): compute dropped, from the drop to the next call's end: "
        f"{latencies(times)}")
    ended = sum("ended first" in x["head"] for x in rounds)
    log(f"stress_onnx: {len(rounds)} rounds ({ended} whose work ended before its drop) in {r.elapsed:.1f} s, every "
        f"answer equal to native ONNX Runtime's")


def case_exit(ctx):
    gguf = ctx.gguf()
    d, name = os.path.dirname(gguf), "/m/" + os.path.basename(gguf)
    hello = utf8(ctx.reference("Hello", 8)).split("\n")[0]
    bad = []
    start = time.monotonic()
    for k in range(ctx.args.exit_runs):
        kind = ("compute", "generate", "keep")[k % 3]
        ms = str(5 + (k * 37) % 200)
        r = ctx.wasinn("--dir", f"{d}::/m", ctx.guest("p3_nn"), "drop-exit", name, kind, ms, "3", timeout=120)
        if r.returncode != 3:
            bad.append(f"drop-exit {kind} {ms}: exit {r.returncode}\n{r.stderr.decode(errors='replace')[-1500:]}")
        r = ctx.wasinn("--dir", f"{d}::/m", ctx.guest("p3_nn"), "generate-drop", name, "Hello", timeout=120)
        if r.returncode != 0 or f"reuse: {hello}" not in r.stdout.decode():
            bad.append(f"generate-drop: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode(errors='replace')[-1500:]}")
    check(not bad, f"{len(bad)} of {2 * ctx.args.exit_runs} runs ended wrong:\n" + "\n".join(bad[:5]))
    log(f"exit: {ctx.args.exit_runs} drop-exit runs exited 3 and {ctx.args.exit_runs} generate-drop runs answered "
        f"native's, in {time.monotonic() - start:.1f} s")


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def computes(port):
    """The server's count of compute steps (wasinn_nn_computes_total, every graph)."""
    import urllib.request

    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("wasinn_nn_computes_total"))


def case_serve(ctx):
    import numpy as np

    digits = ctx.digits()
    gguf = ctx.gguf()
    x = np.fromfile(os.path.join(digits, "test_x.f32"), dtype="<f4").reshape(-1, 64)
    want = native_digits_logits(digits)[:40]
    preload = ["--nn-preload", f"digits:onnx:cpu:{digits}/model.onnx", "--nn-preload", f"tiny:GGML:AUTO:{gguf}",
               "--backend-config", 'onnxruntime={"intra_op_threads": 1}']
    metrics_port = free_port()
    preload += ["--metrics-addr", f"127.0.0.1:{metrics_port}"]
    with Server([ctx.args.wasinn, "serve", *ctx.args.serve_arg, "--workers", "2"], preload, ctx.guest("p3_http"),
                env=ctx.env, name="p3_http") as server:
        r = request(server, "POST", "/infer/digits?dims=1,64", x[0:1].astype("<f4").tobytes())
        check(r.status == 200, f"/infer: {r!r}\n{server.tail()}")
        got = struct.pack("<10f", *json.loads(r.body)["outputs"][0]["data"])
        check(got == want, f"/infer's logits differ from native ONNX Runtime's: {r.body!r}")
        prompt = "Once upon a time"
        native = utf8(ctx.reference(prompt, 24))
        url = f"http://{server.host}:{server.port}/generate/tiny?n=24"
        c = subprocess.run(["curl", "-sS", "-N", "--data-binary", prompt, url], capture_output=True, timeout=300)
        check(c.returncode == 0 and c.stdout.decode() == native,
              f"curl /generate: {c.stdout!r} (exit {c.returncode}), native {native!r}\n{server.tail()}")
        # A client that leaves mid-stream: the server goes on answering at once.
        c = subprocess.run(["curl", "-sS", "-N", "--max-time", "0.5", "--data-binary", prompt,
                            url.replace("n=24", "n=100000")], capture_output=True, timeout=60)
        # The client's leaving drops the request's store, and with it the stream: the generation
        # stops at once (the plugin's compute steps, counted in the metrics, stop growing) instead
        # of running on to the context's end. Counted from 300 ms after the client went: on a
        # loaded machine the server may see the close a step or two after curl exits (once, 2 steps
        # ran between curl's exit and the first count); after that, at most a step in flight.
        time.sleep(0.3)
        steps = [computes(metrics_port)]
        time.sleep(0.7)
        steps.append(computes(metrics_port))
        check(steps[1] - steps[0] <= 1, f"the generation ran on after its client left: {steps[0]} then {steps[1]} "
                                        f"steps\n{server.tail()}")
        start = time.monotonic()
        r = request(server, "POST", "/infer/digits?dims=1,64", x[0:1].astype("<f4").tobytes())
        check(r.status == 200, f"after a client left: {r!r}\n{server.tail()}")
        for path, body, status in (("/infer/digits?dims=1,63", x[0:1].tobytes(), 400),
                                   ("/nowhere", b"", 404), ("/infer/no-such-graph?dims=1,64", x[0:1].tobytes(), 500)):
            r = request(server, "POST", path, body)
            check(r.status == status, f"POST {path}: {r!r}, want {status}")
        log(f"serve: /infer equal to native ORT; /generate streamed native llama.cpp's answer; after a client "
            f"left, compute steps went {steps[0]:.0f} -> {steps[1]:.0f} and the next request took {time.monotonic() - start:.2f} s; "
            f"errors answered")


# A WASI p1 command opening the file /f 200 times, keeping each: exits 10 + errno if an open fails.
MANY_FDS_WAT = """(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "f")
  (func (export "_start")
    (local $i i32) (local $e i32)
    (loop $l
      (local.set $e (call $path_open (i32.const 3) (i32.const 1) (i32.const 16) (i32.const 1)
                      (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 32)))
      (if (local.get $e) (then (call $proc_exit (i32.add (i32.const 10) (local.get $e)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 200))))))
"""

# A component whose one 0.3 feature is an async-lifted export (no WASI 0.3 import): `answer`
# returns 42 through task.return. Wasmtime 49's CLI prints 42 for --invoke 'answer()'.
ASYNC_EXPORT_WAT = """(component
  (core func $task_return (canon task.return (result u32)))
  (core module $m
    (import "" "task.return" (func $task_return (param i32)))
    (func (export "answer") (result i32) (call $task_return (i32.const 42)) (i32.const 0))
    (func (export "callback") (param i32 i32 i32) (result i32) unreachable))
  (core instance $i (instantiate $m (with "" (instance (export "task.return" (func $task_return))))))
  (func (export "answer") async (result u32)
    (canon lift (core func $i "answer") async (callback (core func $i "callback")))))
"""


def case_switches(ctx):
    guest = ctx.guest("p3_nn")

    def streams(*flags):
        return ctx.wasinn(*flags, guest, "many-streams", "3", timeout=120)

    on = (["-Sp3", "-Wcomponent-model-async"], ["-S", "p3=y", "-W", "component-model-async=yes"],
          ["--wasi", "p3", "--wasm", "concurrency-support=y"], ["-Sp3=n", "-Sp3"],
          ["-W", "component-model-error-context=n,component-model-more-async-builtins=n,"
                 "component-model-async-stackful=n,component-model-threading=n,component-model-async-builtins=n"])
    for flags in on:
        r = streams(*flags)
        check(r.returncode == 0 and r.stdout == b"3 streams\n",
              f"{' '.join(flags)}: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode()}")
    off = (("-Sp3=n", "-S p3=n"), ("-Wcomponent-model-async=n", "-W component-model-async=n"),
           ("-Wconcurrency-support=false", "-W concurrency-support=n"), ("-Sp3,p3=no", "-S p3=n"))
    for flag, named in off:
        r = streams(flag)
        err = r.stderr.decode()
        check(r.returncode == 2 and named in err and "is a WASI 0.3 component" in err,
              f"{flag}: exit {r.returncode}, wanted 2 naming {named}\n{err}")
    refusal = err.strip().splitlines()[-1]
    # A 0.2 component does not need 0.3: it runs as before.
    digits = ctx.digits()
    r = ctx.wasinn("-Sp3=n", "-Wcomponent-model-async=n", "--dir", f"{digits}::/d",
                   ctx.guest("wit_classify_digits.component"), "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8")
    check(r.returncode == 0, f"a 0.2 component with 0.3 off: exit {r.returncode}\n{r.stderr.decode()}")
    r = streams("-Wcomponent-model-threading=y")
    check(r.returncode == 2 and "-W component-model-threading=y" in r.stderr.decode(),
          f"-W component-model-threading=y: exit {r.returncode}\n{r.stderr.decode()}")
    # -S max-resources, as Wasmtime's own p3_cli_many_tasks and p3_cli_many_stream use it.
    # Exhausting it is a host call's error, not a Wasmtime Trap: exit 1, as Wasmtime's CLI, with
    # the wasm backtrace; a real trap stays 134 (tests/integration, cli).
    r = ctx.wasinn("-Smax-resources=100", "-Sp3", "-Wcomponent-model-async", guest, "many-tasks", "1000",
                   timeout=120)
    err = r.stderr.decode()
    check(r.returncode == 1 and "resource table has no free keys" in err and "wasm backtrace" in err
          and b"started" not in r.stdout, f"1000 tasks under max-resources=100: exit {r.returncode}\n{err}")
    bounded = f"exit {r.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    for flags, n, want in ((["-Smax-resources=100"], "50", b"started 50 tasks\n"),
                           ([], "1000", b"started 1000 tasks\n")):
        r = ctx.wasinn(*flags, guest, "many-tasks", n, timeout=120)
        check(r.returncode == 0 and r.stdout == want,
              f"{flags} many-tasks {n}: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode()}")
    r = ctx.wasinn("-Smax-resources=100", guest, "many-streams", "200", timeout=120)
    check(r.returncode == 0 and r.stdout == b"200 streams\n",
          f"200 streams under max-resources=100: exit {r.returncode}\n{r.stderr.decode()}")
    r = ctx.wasinn("-Smax-resources=0", guest, "many-streams", "1")
    check(r.returncode == 2 and "-S max-resources=0" in r.stderr.decode(), f"max-resources=0: exit {r.returncode}")
    # A core module's WASI p1 table: 200 files opened and kept, as Wasmtime 49's CLI runs this
    # module (exit 1 with the same message under -S max-resources=50, 0 without).
    files = os.path.join(ctx.tmp, "fds")
    os.makedirs(files, exist_ok=True)
    open(os.path.join(files, "f"), "wb").close()
    many_fds = os.path.join(ctx.tmp, "many_fds.wat")
    with open(many_fds, "w") as f:
        f.write(MANY_FDS_WAT)
    r = ctx.wasinn("-Smax-resources=50", "--dir", f"{files}::/", many_fds, timeout=120)
    err = r.stderr.decode()
    check(r.returncode == 1 and "resource table has no free keys" in err and "wasm backtrace" in err,
          f"a core module's 200 files under max-resources=50: exit {r.returncode}\n{err}")
    r = ctx.wasinn("--dir", f"{files}::/", many_fds, timeout=120)
    check(r.returncode == 0, f"a core module's 200 files, no bound: exit {r.returncode}\n{r.stderr.decode()}")
    log(f"switches: {len(on)} spellings run, {len(off)} refuse ({refusal}); 1000 tasks under "
        f"max-resources=100: {bounded}; 50 tasks, 1000 unbounded and 200 streams run; a core module's "
        f"files past max-resources=50: exit 1")


def case_serve_switches(ctx):
    """`wasmtime serve`'s -S p3=n, -W component-model-async=n and -S max-resources=N on `wasinn serve`."""
    spec = ctx.guest("p3_http_spec")
    for flags, named in ((["-S", "p3=n"], "-S p3=n"), (["-W", "component-model-async=n"],
                                                        "-W component-model-async=n")):
        r = ctx.run([ctx.args.wasinn, "serve", "--addr", "127.0.0.1:0", *flags, spec], timeout=60)
        err = r.stderr.decode()
        check(r.returncode == 2 and named in err and "is a WASI 0.3 component" in err,
              f"serve {' '.join(flags)} of a 0.3 component: exit {r.returncode}, wanted 2 naming {named}\n{err}")
    # A 0.2 component needs no 0.3: served, as by Wasmtime.
    faults = ctx.guest("http_faults.component")
    with Server([ctx.args.wasinn, "serve", "-Sp3=n", "-Wcomponent-model-async=n"], [], faults, env=ctx.env,
                name="http_faults, 0.3 off") as server:
        r = request(server, "GET", "/ok")
        check(r.status == 200, f"a 0.2 component with 0.3 off: {r!r}\n{server.tail()}")
    # The bound of a request's WASI table, as Wasmtime 48.0.8's and 49.0.3's serve take it: /ok
    # needs 4 entries there (500 at 3 on both), p3_http_spec's /hello 2 (500 at 1 on 48.0.8).
    answers = {}
    for guest, path, n in ((faults, "/ok", 3), (faults, "/ok", 4), (spec, "/hello", 1), (spec, "/hello", 2)):
        with Server([ctx.args.wasinn, "serve", f"-Smax-resources={n}"], [], guest, env=ctx.env,
                    name=f"max-resources={n}") as server:
            answers[(path, n)] = request(server, "POST", path, b"abc").status
            # The access log names the cause, not Wasmtime's context alone, nor for a reused 0.3
            # instance wasmtime-wasi-http's "worker trapped or panicked".
            if answers[(path, n)] == 500:
                check(wait_line(server, r"500 .*resource table has no free keys"),
                      f"max-resources={n}: no cause in the log\n{server.tail()}")
    want = {("/ok", 3): 500, ("/ok", 4): 200, ("/hello", 1): 500, ("/hello", 2): 200}
    check(answers == want, f"-S max-resources: {answers}, want {want}")
    log(f"serve_switches: -S p3=n and -W component-model-async=n refuse a 0.3 component (exit 2) and serve a "
        f"0.2 one; -S max-resources: {answers}, as Wasmtime's serve")


def case_invoke(ctx):
    guest = ctx.guest("p3_nn")
    for name in ("answer", "answer()"):
        r = ctx.wasinn("--invoke", name, guest, timeout=120)
        check(r.returncode == 0 and r.stdout == b'"42 from an async export"\n',
              f"--invoke {name}: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode()}")
    r = ctx.wasinn("--invoke", "no-such-export", guest, timeout=120)
    check(r.returncode == 1 and "no-such-export" in r.stderr.decode(), f"an unknown export: exit {r.returncode}")
    # An async export is what makes a component 0.3, whatever it imports.
    async_only = os.path.join(ctx.tmp, "async_export.wat")
    with open(async_only, "w") as f:
        f.write(ASYNC_EXPORT_WAT)
    r = ctx.wasinn("--invoke", "answer()", async_only, timeout=120)
    check(r.returncode == 0 and r.stdout == b"42\n",
          f"an async export alone: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode()}")
    r = ctx.wasinn("-Wcomponent-model-async=n", "--invoke", "answer", async_only, timeout=120)
    err = r.stderr.decode()
    check(r.returncode == 2 and "is a WASI 0.3 component" in err and "an async function" in err,
          f"an async export with component-model-async=n: exit {r.returncode}\n{err}")
    # -S p3=n turns WASI 0.3's APIs off, not the async ABI: Wasmtime 49.0.3 runs this one (42).
    r = ctx.wasinn("-Sp3=n", "--invoke", "answer()", async_only, timeout=120)
    check(r.returncode == 0 and r.stdout == b"42\n",
          f"an async export alone under -S p3=n: exit {r.returncode}\n{r.stdout.decode()}{r.stderr.decode()}")
    r = ctx.wasinn("-Sp3=n", "-Wcomponent-model-async=y", "--invoke", "answer", guest, timeout=120)
    check(r.returncode == 2 and "-S p3=n" in r.stderr.decode(),
          f"p3_nn (0.3 imports) under -S p3=n: exit {r.returncode}\n{r.stderr.decode()}")
    log("invoke: --invoke answer and answer() print the async export's answer; an unknown name is an error; "
        "a component whose only 0.3 feature is an async export answers 42, under -S p3=n too")


def case_errors(ctx):
    r = ctx.wasinn(ctx.guest("p3_classify"), "/no/such/model.onnx", "x", "y")
    err = r.stderr.decode()
    check(r.returncode == 2 and "cannot read /no/such/model.onnx" in err, f"a missing file: exit {r.returncode}\n{err}")
    r = ctx.wasinn(ctx.guest("p3_classify"), "name:nothing", "x", "y")
    err = r.stderr.decode()
    check(r.returncode == 1 and "load-by-name" in err and "not-found" in err.lower().replace("notfound", "not-found"),
          f"an unknown graph: exit {r.returncode}\n{err}")
    # The http service is no command: refused with what to do, never a trap.
    r = ctx.wasinn(ctx.guest("p3_http"))
    err = r.stderr.decode()
    check(r.returncode != 0 and "wasi:http" in err, f"running an http service as a command: exit {r.returncode}\n{err}")
    log(f"errors: a missing file, an unknown graph, an http service run as a command: {err.strip().splitlines()[-1]}")


def case_reuse(ctx):
    import concurrent.futures
    import random

    def counts(server, n):
        got = []
        for _ in range(n):
            r = request(server, "GET", "/count")
            check(r.status == 200, f"/count: {r!r}\n{server.tail()}")
            got.append(int(r.body))
        return got

    def echoes(server):
        # The body handed on keeps the request's length (Content-Length, as `wasmtime serve`
        # answers it); a chunked one stays chunked.
        def echo(k):
            body = random.Random(k).randbytes(1000 + 997 * k)
            r = request(server, "POST", "/echo", body, chunked=k % 4 == 0)
            length = r.headers.get("content-length")
            return r.status == 200 and r.body == body and length == (None if k % 4 == 0 else str(len(body)))

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            echoed = list(pool.map(echo, range(160)))
        check(all(echoed), f"16 clients at once: {echoed.count(False)} of 160 echoes wrong\n{server.tail()}")

    # Each worker thread (lane) keeps instances of its own, for the connections dealt to it in
    # turn (docs/serving.md): with one, the requests meet the instances as on `wasmtime serve`.
    with Server([ctx.args.wasinn, "serve", "--workers", "1"], [], ctx.guest("p3_http"), env=ctx.env,
                name="p3_http") as server:
        seen = counts(server, 300)
        # One request at a time: one instance takes them in turn until its 128th, then the next.
        check(seen[:128] == list(range(1, 129)) and max(seen) == 128,
              f"300 requests one after another: counts {seen[:5]}...{seen[-5:]}, want 1..128 then again\n{server.tail()}")
        echoes(server)
        time.sleep(1.5)  # past --idle-instance-timeout (1 s): every idle instance is gone
        before = counts(server, 2)
        r = request(server, "POST", "/trap")
        check(r.status == 500, f"/trap: {r!r}\n{server.tail()}")
        # Its log line names the trap, not only wasmtime-wasi-http's "worker trapped or panicked".
        check(wait_line(server, r"POST /trap 500 .*wasm trap: wasm `unreachable` instruction executed"),
              f"/trap: the log does not name the trap\n{server.tail()}")
        # The instance's end is a warning of its own (as `wasmtime serve`'s "worker failed").
        failed = r"warning: a reused instance of the component failed and was dropped: .*wasm `unreachable`"
        check(wait_line(server, failed), f"/trap: no warning of the failed instance\n{server.tail()}")
        after = counts(server, 2)
        r = request(server, "GET", "/hello")
        check(before == [1, 2] and after == [1, 2] and r.status == 200 and r.body == b"hello\n",
              f"around a trap: counts {before} then {after} (want [1, 2] both: the trapped instance was dropped), "
              f"then /hello {r!r}\n{server.tail()}")
        # A trap once the answer is out: no request's line can tell, so only the warning does (and
        # the next request, taken after it, gets a new instance).
        r = request(server, "POST", "/trap-after")
        warned = wait_lines(server, failed, 2)
        fresh = counts(server, 1)
        check(r.status == 200 and len(warned) == 2 and fresh == [1],
              f"/trap-after: {r!r}, {len(warned)} warnings (want 2), then counts {fresh} (want [1])\n{server.tail()}")
        # Stopping drops the idle instances mid-loop: that is no failure to warn of.
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=60)
        stopped = wait_lines(server, failed, 3, timeout=1)
        check(len(stopped) == 2, f"SIGTERM: {len(stopped) - 2} more warnings of failed instances\n{server.tail()}")
    with Server([ctx.args.wasinn, "serve", "--workers", "4"], [], ctx.guest("p3_http"), env=ctx.env,
                name="p3_http 4 workers") as server:
        lanes = counts(server, 12)
        check(lanes == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
              f"--workers 4, 12 connections one after another: counts {lanes}, want each of 4 instances "
              f"(one per worker thread) to count 1, 2, 3\n{server.tail()}")
        echoes(server)
    with Server([ctx.args.wasinn, "serve", "--workers", "1", "--max-instance-reuse-count", "3"], [], ctx.guest("p3_http"),
                env=ctx.env, name="p3_http reuse 3") as server:
        bounded = counts(server, 9)
        check(bounded == [1, 2, 3] * 3, f"--max-instance-reuse-count 3: counts {bounded}\n{server.tail()}")
    with Server([ctx.args.wasinn, "serve", "--workers", "1", "--max-instance-reuse-count", "1"], [], ctx.guest("p3_http"),
                env=ctx.env, name="p3_http isolated") as server:
        isolated = counts(server, 20)
        r = request(server, "POST", "/trap")
        check(isolated == [1] * 20 and r.status == 500 and counts(server, 1) == [1],
              f"--max-instance-reuse-count 1: counts {isolated}, /trap {r.status}\n{server.tail()}")
    log(f"reuse: 300 requests on 3 instances (counts up to {max(seen)}), 160 echoes at 16 at once whole, "
        f"a trap answered 500 and the next request on a fresh instance, a trap after the answer warned of; 4 workers -> {lanes}; bound 3 -> {bounded}; "
        f"isolation -> all 1")


def case_busy_poll(ctx):
    import http.client

    # A mistake is refused at start, before anything listens: a bare number is seconds.
    r = subprocess.run([ctx.args.wasinn, "serve", "--busy-poll", "200", ctx.guest("p3_http")], env=ctx.env,
                       capture_output=True, timeout=60)
    err = r.stderr.decode()
    check(r.returncode == 2 and "--busy-poll: '200' is more than 10ms" in err,
          f"--busy-poll 200 (seconds): exit {r.returncode}\n{err}")

    def one_connection(server, n, gap):
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        bodies = []
        for _ in range(n):
            conn.request("GET", "/hello")
            bodies.append(conn.getresponse().read())
            time.sleep(gap)
        conn.close()
        return bodies

    spent = {}
    for window in ("0", "200us", "10ms"):
        with Server([ctx.args.wasinn, "serve", "--workers", "1", "--busy-poll", window], [], ctx.guest("p3_http"),
                    env=ctx.env, name=f"p3_http --busy-poll {window}") as server:
            dense = one_connection(server, 500, 0)
            check(dense == [b"hello\n"] * 500, f"--busy-poll {window}: 500 requests on one connection: "
                  f"{sum(b != b'hello' + bytes([10]) for b in dense)} wrong\n{server.tail()}")
            # Requests 50 ms apart: polling would be waste, so the window shrinks to nothing. (First
            # the lane sleeps: a thread's CPU time is read late while it runs without sleeping.)
            time.sleep(0.5)
            before, threads_before = cpu_seconds(server.proc.pid), thread_cpu(server.proc.pid)
            one_connection(server, 40, 0.05)
            sparse = cpu_seconds(server.proc.pid) - before
            threads = {t: c - threads_before.get(t, 0) for t, c in thread_cpu(server.proc.pid).items()}
            before = cpu_seconds(server.proc.pid)
            time.sleep(2)
            idle = cpu_seconds(server.proc.pid) - before
            spent[window] = (sparse, idle)
            # The sparse run's 40 requests cost a few ms without polling; 10 ms windows that never
            # shrank would add 400 ms.
            check(sparse < 0.25 and idle < 0.05, f"--busy-poll {window}: {sparse:.2f} CPU-s over 40 requests 50 ms "
                  f"apart (by thread: {threads}), {idle:.2f} CPU-s idle for 2 s: the window does not shrink\n{server.tail()}")
    log("busy_poll: --busy-poll 200 refused (seconds, past 10ms); 500 requests on one connection right at 0, 200us, "
        "10ms; CPU-s over 40 requests 50 ms apart / 2 s idle: "
        + ", ".join(f"{w} {a:.2f}/{b:.2f}" for w, (a, b) in spent.items()))


def held_echo(server, piece):
    """A POST /echo whose chunked body has begun (PIECE) and not ended: the socket, once PIECE came
    back in the answer's first chunk (so the guest holds the request)."""
    import socket

    sock = socket.create_connection((server.host, server.port), timeout=30)
    sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                 + b"%x\r\n%s\r\n" % (len(piece), piece))
    got = b""
    while piece not in got:
        data = sock.recv(4096)
        check(data, f"the held /echo closed before echoing: {got!r}\n{server.tail()}")
        got += data
    check(got.startswith(b"HTTP/1.1 200"), f"the held /echo: {got!r}")
    return sock


def end_echo(sock):
    """Ends a held /echo's body and reads its answer to the end (the last chunk)."""
    sock.sendall(b"0\r\n\r\n")
    got = b""
    while not got.endswith(b"0\r\n\r\n"):
        data = sock.recv(4096)
        check(data, f"the /echo closed before its last chunk: {got!r}")
        got += data
    sock.close()


def case_at_once(ctx):
    import concurrent.futures

    def queued(port):
        import urllib.request

        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
        return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("wasinn_http_requests_queued "))

    at_once = 4
    metrics_port = free_port()
    with Server([ctx.args.wasinn, "serve", "--workers", "1", "--max-queue", "1",
                 "--max-instance-concurrent-reuse-count", str(at_once), "--metrics-addr", f"127.0.0.1:{metrics_port}"],
                [], ctx.guest("p3_http"), env=ctx.env, name="p3_http 1 worker, 4 at once") as server:
        held = [held_echo(server, b"piece %d" % i) for i in range(at_once)]
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(request, server, "GET", "/count")
            deadline = time.monotonic() + 5  # within --header-timeout (10 s): the held bodies stay alive
            while queued(metrics_port) != 1 and not waiting.done() and time.monotonic() < deadline:
                time.sleep(0.02)
            check(not waiting.done() and queued(metrics_port) == 1,
                  f"a request past {at_once} at once was not queued\n{server.tail()}")
            refused = request(server, "GET", "/hello")
            check(refused.status == 503 and refused.headers.get("retry-after") == "1",
                  f"past the bound and the queue: {refused!r}, want 503 with Retry-After: 1\n{server.tail()}")
            end_echo(held.pop(0))
            counted = waiting.result(timeout=30)
            check(counted.status == 200 and counted.body == b"%d\n" % (at_once + 1),
                  f"the queued request once a place was free: {counted!r}, want /count {at_once + 1} (the "
                  f"instance that holds the {at_once})\n{server.tail()}")
        for sock in held:
            end_echo(sock)
        r = request(server, "GET", "/hello")
        check(r.status == 200, f"after the held requests ended: {r!r}\n{server.tail()}")
        wait_lines(server, r"POST /echo 200", at_once)  # the access log writes in batches
        with server.lock:
            lines = list(server.lines)
        refusals = [line for line in lines if "GET /hello 503" in line]
        echoes = [line for line in lines if "POST /echo 200" in line]
        check(len(refusals) == 1 and "queue full" in refusals[0] and len(echoes) == at_once,
              f"the access log: {len(refusals)} refusal lines, {len(echoes)} echo lines\n{server.tail()}")
    log(f"at_once: {at_once} requests in the guest at once under --workers 1, the next queued, the one after 503 "
        f"(Retry-After: 1, logged); a freed place let the queued one in on the same instance")


def health_while(server, busy, what):
    """/healthz latencies (s) while the requests `busy` (callables, each run on a thread of its own)
    are in the guest; checks each is answered in 300 ms and a /hello is served meanwhile."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(len(busy)) as pool:
        running = [pool.submit(f) for f in busy]
        time.sleep(0.3)  # the guests have started
        waits = []
        while not all(r.done() for r in running) and len(waits) < 40:
            start = time.monotonic()
            r = request(server, "GET", "/healthz")
            waits.append(time.monotonic() - start)
            check(r.status == 200, f"/healthz while {what}: {r!r}\n{server.tail()}")
            time.sleep(0.05)
        hello = request(server, "GET", "/hello")
        answers = [r.result(timeout=120) for r in running]
    check(len(waits) >= 5, f"the {what} ended within {len(waits)} health checks: too short to tell\n{server.tail()}")
    check(max(waits) < 0.3, f"/healthz while {what}: the slowest took {max(waits) * 1e3:.0f} ms (of {len(waits)})"
                            f"\n{server.tail()}")
    check(hello.status == 200 and all(a.status == 200 for a in answers),
          f"while {what}: /hello {hello!r}, the busy ones {[a.status for a in answers]}\n{server.tail()}")
    return waits


def case_busy(ctx):
    import numpy as np

    spin = lambda: request(ctx.spin_server, "GET", "/spin?ms=2000")  # noqa: E731
    with Server([ctx.args.wasinn, "serve", "--workers", "2"], [], ctx.guest("p3_http"), env=ctx.env,
                name="p3_http") as server:
        ctx.spin_server = server
        spins = health_while(server, [spin, spin], "two guests spin 2 s")
    with Server([ctx.args.wasinn, "serve", "--workers", "2", "--request-timeout", "1s"], [], ctx.guest("p3_http"),
                env=ctx.env, name="p3_http 1s") as server:
        start = time.monotonic()
        r = request(server, "GET", "/spin?ms=10000")
        took = time.monotonic() - start
        check(r.status == 504 and took < 3, f"a 10 s spin under --request-timeout 1s: {r.status} after {took:.1f} s, "
                                             f"want 504 within 3 s\n{server.tail()}")
        r = request(server, "GET", "/count")
        check(r.status == 200 and r.body == b"1\n", f"after the 504: /count {r!r}, want 1 (a fresh instance)\n"
                                                    f"{server.tail()}")
    ctx.backend("onnxruntime")
    model = os.path.join(ctx.tmp, "slow.onnx")
    looping_model(model, steps=8000)
    x = (np.eye(256, dtype="<f4") * 0.01).tobytes()
    preload = ["--nn-preload", f"slow:onnx:cpu:{model}", "--backend-config", 'onnxruntime={"intra_op_threads": 1}']
    with Server([ctx.args.wasinn, "serve", "--workers", "2"], preload, ctx.guest("p3_http_spec"), env=ctx.env,
                name="p3_http_spec") as server:
        infer = lambda: request(server, "POST", "/infer/slow?dims=256,256", x)  # noqa: E731
        start = time.monotonic()
        r = infer()
        one = time.monotonic() - start
        check(r.status == 200, f"/infer/slow: {r!r}\n{server.tail()}")
        check(one > 0.4, f"one /infer/slow took {one:.2f} s: too short to tell")
        computes = health_while(server, [infer, infer], "two blocking computes run")
    # A compute whose request is past --request-timeout is cancelled with its instance: the
    # server's CPU time stops growing once the 504 is out (it ran on the lane's blocking pool).
    longer = os.path.join(ctx.tmp, "slower.onnx")
    looping_model(longer, steps=8000 * max(8, round(6 / one)))
    preload = ["--nn-preload", f"slower:onnx:cpu:{longer}", "--backend-config", 'onnxruntime={"intra_op_threads": 1}']
    with Server([ctx.args.wasinn, "serve", "--workers", "1", "--request-timeout", "1s"], preload,
                ctx.guest("p3_http_spec"), env=ctx.env, name="p3_http_spec 1s") as server:
        start = time.monotonic()
        r = request(server, "POST", "/infer/slower?dims=256,256", x)
        cut = time.monotonic() - start
        check(r.status == 504 and cut < 3, f"a compute of about {one * max(8, round(6 / one)):.0f} s under "
                                           f"--request-timeout 1s: {r.status} after {cut:.1f} s\n{server.tail()}")
        time.sleep(0.3)  # the cancel lands within ONNX Runtime's next node
        before = cpu_seconds(server.proc.pid)
        time.sleep(1.5)
        after_cut = cpu_seconds(server.proc.pid) - before
        check(after_cut < 0.5, f"after the 504 the server used {after_cut:.2f} CPU-s in 1.5 s: the compute went on "
                               f"(want it cancelled)\n{server.tail()}")
        r = request(server, "GET", "/hello")
        check(r.status == 200, f"/hello after the cut compute: {r!r}\n{server.tail()}")
    log(f"busy: /healthz within {max(spins) * 1e3:.0f} ms while two guests spun 2 s ({len(spins)} checks), within "
        f"{max(computes) * 1e3:.0f} ms while two blocking computes of {one:.1f} s ran ({len(computes)}); a 10 s spin "
        f"504 in {took:.1f} s under --request-timeout 1s, then a fresh instance; a long compute 504 in {cut:.1f} s, "
        f"then {after_cut:.2f} CPU-s in 1.5 s (cancelled)")


def stat_cpu(path):
    """A /proc .../stat file's name and its user and system CPU time, in seconds."""
    with open(path) as f:
        head, fields = f.read().rsplit(")", 1)
    fields = fields.split()
    return head.split("(", 1)[1], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User and system CPU time of a process, in seconds."""
    return stat_cpu(f"/proc/{pid}/stat")[1]


def thread_cpu(pid):
    """CPU seconds by thread name and id."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            name, seconds = stat_cpu(f"/proc/{pid}/task/{tid}/stat")
        except FileNotFoundError:  # the thread ended
            continue
        out[f"{name}/{tid}"] = seconds
    return out


def rss_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def case_stream(ctx):
    import socket

    with Server([ctx.args.wasinn, "serve", "--max-request-bytes", "2147483648"], [], ctx.guest("p3_http"),
                env=ctx.env, name="p3_http") as server:
        url = server.url("/echo")
        small = os.urandom(3 << 20)
        start = time.monotonic()
        c = subprocess.run(["curl", "-sS", "--data-binary", "@-", url], input=small, capture_output=True, timeout=60)
        took = time.monotonic() - start
        # curl waits 1 s for a 100 Continue that never comes before sending anyway.
        check(c.returncode == 0 and c.stdout == small and took < 0.9,
              f"3 MiB with Expect: 100-continue: exit {c.returncode}, {len(c.stdout)} bytes in {took:.2f} s\n{server.tail()}")
        before = rss_kib(server.proc.pid, "VmRSS")
        size = 1 << 30
        zeros = subprocess.Popen(["head", "-c", str(size), "/dev/zero"], stdout=subprocess.PIPE)
        curl = subprocess.Popen(["curl", "-sS", "-T", "-", "-X", "POST", url], stdin=zeros.stdout,
                                stdout=subprocess.PIPE)
        zeros.stdout.close()
        got, wrong, start = 0, 0, time.monotonic()
        while chunk := curl.stdout.read(1 << 20):
            got += len(chunk)
            wrong += len(chunk) - chunk.count(0)
        curl.wait(timeout=300)
        took = time.monotonic() - start
        peak = rss_kib(server.proc.pid, "VmHWM")
        check(curl.returncode == 0 and got == size and wrong == 0,
              f"1 GiB echo: curl exit {curl.returncode}, {got} bytes back, {wrong} wrong\n{server.tail()}")
        check(peak - before < 64 << 10, f"1 GiB echo: RSS {before} KiB before, peak {peak} KiB\n{server.tail()}")
        # Clients that send half their body and close: the server answers a connection the client
        # has closed, and its second write fails (EPIPE: the client's reset met a half-closed
        # connection). It fails there, never as a SIGPIPE that ends the server (its writes are
        # writev()s, which cannot ask for no signal). Before the CLI ignored SIGPIPE and the server's
        # threads blocked it, 1-9 such clients ended it (an embedding process keeping SIGPIPE's
        # default: install.CApiNetwork.ClientsLeavingMidBodyEndOnlyTheirConnections).
        half = b"POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 256\r\n\r\n" + bytes(128)
        for _ in range(40):
            with socket.create_connection((server.host, server.port), timeout=30) as s:
                s.sendall(half)
            time.sleep(0.05)
        check(server.proc.poll() is None,
              f"40 clients left mid-body: the server ended ({server.proc.poll()})\n{server.tail()}")
    with Server([ctx.args.wasinn, "serve", "--max-request-bytes", "1048576"], [], ctx.guest("p3_http"),
                env=ctx.env, name="p3_http 1 MiB") as server:
        r = request(server, "POST", "/infer/none?dims=1,4", os.urandom(3 << 20), chunked=True)
        check(r.status == 413, f"a chunked 3 MiB body past a 1 MiB limit: {r!r}\n{server.tail()}")
        r = request(server, "GET", "/hello")
        check(r.status == 200, f"after a 413: {r!r}\n{server.tail()}")
    log(f"stream: 1 GiB echoed whole in {took:.1f} s, peak RSS {peak - before} KiB over the {before} KiB before; "
        f"100-continue answered at once; 40 clients that left mid-body did not end it; a chunked body past the limit "
        f"413")


CASES = {"command": case_command, "peer": case_peer, "overlap": case_overlap, "cancel": case_cancel,
         "cancel_onnx": case_cancel_onnx, "stress": case_stress, "stress_onnx": case_stress_onnx, "exit": case_exit,
         "serve": case_serve, "reuse": case_reuse, "at_once": case_at_once, "stream": case_stream, "busy": case_busy, "busy_poll": case_busy_poll, "errors": case_errors, "switches": case_switches, "serve_switches": case_serve_switches, "invoke": case_invoke, "docs": case_docs}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", action="append", choices=sorted(CASES), help="a case to run (default: all)")
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True)
    p.add_argument("--fixtures", default=os.path.expanduser("~/.cache/wasinn/fixtures"))
    p.add_argument("--backend-dir", required=True)
    p.add_argument("--reference", required=True, help="wasinn_llama_reference")
    p.add_argument("--deps", required=True, help="the .deps folder (ONNX Runtime's libraries, for the peer)")
    p.add_argument("--run-arg", action="append", default=[], help="an option for every `wasinn run`")
    p.add_argument("--serve-arg", action="append", default=[], help="an option for the serve case's `wasinn serve`")
    p.add_argument("--rounds", type=int, default=500, help="stress, stress_onnx: rounds of drops")
    p.add_argument("--exit-runs", type=int, default=30, help="exit: runs of each kind")
    args = p.parse_args()
    return run_cases(CASES, args.case or list(CASES), Context(args))


if __name__ == "__main__":
    sys.exit(main())
