#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""wasinn's wasi-nn extensions (issue 32) end to end: the test guests describe_io and prompt_props
(core modules, guest/include/wasinn_nn_ext.h) and wit_describe_io and wit_prompt (components,
wasinn:nn-ext@0.1.0), run by the wasinn command on the fixture models. Standard library only.

    nn_ext_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --backend-dir DIR
                   [--fixtures DIR] [--ort-reference BIN] [--keep DIR]

Cases (ctest runs each as nn_ext.CASE, see CMakeLists.txt here):
  describe.BACKEND  (onnxruntime openvino pytorch tensorflow tensorflowlite llamacpp) for each
                    of the backend's fixture models, with both describe guests:
                    - their "inputs" and "outputs" equal `wasinn models inspect --json MODEL`'s
                      (a type no guest ABI numbers is null to the guest);
                    - the core guest's deliberate mistakes get the contract's errnos (TOO_LARGE and
                      the size needed for a name or dims buffer too small, an error for side 2
                      and for an index past the end);
                    - the graph's properties hold the facts backend, framework-version, encoding
                      (those `models inspect` prints) and device "cpu", the same list through both
                      ABIs;
                    - each guest builds every input from the description alone and computes; the
                      outputs it read equal what run_model (the verified generic runner) gives
                      for the same input files, with the same wasinn; for an ONNX model with one
                      f32 input also native ONNX Runtime's (tests/serve/ort_reference, one
                      intra-op thread on both sides, bit for bit).
                    Models whose description leaves an input unbuildable (no rank: TorchScript)
                    get the input's shape from the table below (--dims); a type no witx number
                    carries (int8) leaves the core guest describing only.
  prompt.core       prompt_props on the tiny GGUF preloaded as "tiny": the properties hold every
  prompt.wit        GGUF metadata key of the file (read here) with its value, the facts first and
                    the settable knobs after them; general.architecture and <arch>.context_length
                    as in the file; unknown names, temp "hot" and a read-only fact refused with
                    invalid-argument; with temp 0 the prompt's text equals llama_probe's greedy
                    compute (tests/backends/llamacpp, itself checked against native llama.cpp)
                    for the same prompt, n-predict, ctx-size and threads; two runs seeded 42 at
                    temp 0.8 give the same text; prompt on an ONNX graph is unsupported-operation.
                    prompt.wit does the same with wit_prompt, and checks its list equals the core
                    guest's.

A backend whose plugin is not built or does not load here is skipped (exit 77) with the reason.
Exit status: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE).
"""
import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import SKIP, Failure, Skipped, check  # noqa: E402

PROMPT = "The quick brown fox jumps over the lazy dog. Once upon a time"
N_PREDICT, CTX_SIZE, THREADS = 24, 128, 1
SINGLE_THREAD_ORT = ["--backend-config", 'onnxruntime={"intra_op_threads":1}']
CORE_TYPES = {"f16", "f32", "f64", "u8", "i32", "i64"}
WIT_TYPES = CORE_TYPES | {"bf16"}
FACTS = ("backend", "framework-version", "encoding", "device")
LLAMA_KNOBS = ("temp", "top-p", "top-k", "min-p", "seed", "n-predict", "threads", "ctx-size", "repeat-penalty")


class Model:
    """One fixture model. files: fixture paths, the guest's graph builders (or, with preload, the
    path registered under the model's name); dims, types: {input index: "AxB"} and {input index:
    "f32"} for inputs their description leaves without a shape or type (TorchScript's tensors);
    ort: check against native ONNX Runtime; identity: each output equals the input of its index;
    relation: for a model no second run can reproduce, a function of {output name: bytes} that
    raises Failure, in place of the run_model reference; large: left out with --small-models."""

    def __init__(self, label, files, encoding, preload=False, dims=None, types=None, compute=True, ort=False,
                 identity=False, relation=None, large=False):
        self.label, self.files, self.encoding = label, files, encoding
        self.preload, self.dims, self.types, self.compute = preload, dims or {}, types or {}, compute
        self.ort, self.identity, self.relation, self.large = ort, identity, relation, large


def doubled_is_twice_sample(outputs):
    """random_pair.pb: sample = uniform([4]) * scale, doubled = sample * 2, unseeded."""
    sample, doubled = struct.unpack("<4f", outputs["sample"]), struct.unpack("<4f", outputs["doubled"])
    check(all(d == 2 * x for x, d in zip(sample, doubled)), f"random_pair: doubled {doubled} is not 2 x {sample}")


MODELS = {
    "onnxruntime": [
        Model("digits", ["digits/model.onnx"], "onnx", ort=True),
        Model("tiny", ["tiny/model.onnx"], "onnx", ort=True),
        Model("identity_all", ["types/identity_all.onnx"], "onnx", identity=True),
        Model("two_inputs", ["types/two_inputs.onnx"], "onnx"),
        Model("scale_by_scalar", ["types/scale_by_scalar.onnx"], "onnx"),
        Model("mobilenet_v2", ["mobilenet_v2/model.onnx"], "onnx", ort=True, large=True),
    ],
    "openvino": [
        Model("digits", ["digits/openvino/model.xml", "digits/openvino/model.bin"], "openvino"),
        Model("dynamic", ["tiny/openvino/dynamic.xml", "tiny/openvino/dynamic.bin"], "openvino"),
        Model("identity_all", ["types/openvino/identity_all.xml", "types/openvino/identity_all.bin"], "openvino",
              identity=True),
        Model("mobilenet_v2", ["mobilenet_v2/openvino/model.xml", "mobilenet_v2/openvino/model.bin"], "openvino",
              large=True),
    ],
    "pytorch": [
        Model("digits", ["digits/model.pt"], "pytorch", dims={0: "1x64"}, types={0: "f32"}),
        Model("two_in_three_out", ["types/two_in_three_out.pt"], "pytorch", dims={0: "2x3", 1: "2x3"},
              types={0: "f32", 1: "i64"}),
        # Tensor x undeclared, then scalars the schema types (float, int, optional bool).
        Model("scalar_args", ["types/scalar_args.pt"], "pytorch", dims={0: "2x2"}, types={0: "f32"}),
        Model("named_scalars", ["types/named_scalars.pt"], "pytorch", dims={0: "4"}, types={0: "f32"}),
        Model("mobilenet_v2", ["mobilenet_v2/model.pt"], "pytorch", dims={0: "1x3x224x224"}, types={0: "f32"},
              large=True),
    ],
    "tensorflow": [
        Model("digits_frozen", ["tensorflow/digits_frozen.pb"], "tensorflow"),
        Model("random_pair", ["tensorflow/random_pair.pb"], "tensorflow", relation=doubled_is_twice_sample),
        Model("two_io", ["tensorflow/two_io/saved_model.pb"], "tensorflow", preload=True),
        Model("mobilenet_v2", ["tensorflow/mobilenet_v2/saved_model.pb"], "tensorflow", preload=True, large=True),
    ],
    "tensorflowlite": [
        Model("digits_f32", ["tflite/digits_f32.tflite"], "tensorflowlite"),
        Model("digits_int8", ["tflite/digits_int8.tflite"], "tensorflowlite"),
        Model("mnist_uint8", ["tflite_mnist/MNISTnet_uint8_quant.tflite"], "tensorflowlite"),
        Model("types_int", ["tflite/types_int.tflite"], "tensorflowlite"),
        Model("mobilenet_v2", ["tflite/mobilenet_v2.tflite"], "tensorflowlite", large=True),
    ],
    # A ggml graph's compute is a generation: described here, prompted by the prompt cases.
    "llamacpp": [Model("tiny", ["llama/tiny.gguf"], "ggml", preload=True, compute=False)],
}


class Env:
    def __init__(self, args):
        self.wasinn, self.guests, self.fixtures = args.wasinn, args.guests, args.fixtures
        self.backend_dir, self.ort_reference = args.backend_dir, args.ort_reference
        self.work = args.keep or tempfile.mkdtemp(prefix="nn_ext_")
        os.makedirs(self.work, exist_ok=True)
        self.keep = bool(args.keep)
        self.small_models = args.small_models
        self.notes = []

    def note(self, text):
        self.notes.append(text)
        print(f"note: {text}", flush=True)

    def fixture(self, rel):
        return os.path.join(self.fixtures, rel)

    def run(self, argv, timeout=600):
        """Runs `wasinn ARGV`; returns (exit code, stdout, stderr)."""
        cmd = [self.wasinn] + argv
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    def run_guest(self, guest, guest_args, host_args=(), timeout=600):
        argv = ["run", "--backend-dir", self.backend_dir, "--dir", f"{self.fixtures}::/f",
                "--dir", f"{self.work}::/o", *host_args, os.path.join(self.guests, guest), *guest_args]
        code, out, err = self.run(argv, timeout)
        log = f"$ wasinn {' '.join(argv)}\n--- exit {code}\n--- stdout\n{out}\n--- stderr\n{err}"
        return code, out, err, log


def backend_status(env, backend):
    """Skips unless the backend's plugin is built and loads here."""
    code, out, err = env.run(["backends", "--check", "--json", "--backend-dir", env.backend_dir])
    try:
        listed = json.loads(out)["backends"]
    except (ValueError, KeyError):
        raise Failure(f"`wasinn backends --check --json` printed no JSON (exit {code}): {out}\n{err}")
    for b in listed:
        if b.get("name") == backend:
            if not b.get("loadable"):
                raise Skipped(f"the {backend} plugin does not load here: {b.get('problem') or 'no reason given'}")
            return b
    raise Skipped(f"no {backend} plugin in {env.backend_dir} (not built)")


def json_from(stdout, log):
    """The guest's JSON object: from the first line that starts with '{'."""
    at = stdout.find("\n{") + 1 if not stdout.startswith("{") else 0
    if not stdout.startswith("{") and at == 0:
        raise Failure(f"no JSON on the guest's stdout\n{log}")
    try:
        obj, _ = json.JSONDecoder().raw_decode(stdout[at:])
    except ValueError as e:
        raise Failure(f"the guest's JSON does not parse ({e})\n{log}")
    return obj


# ---- tensors -----------------------------------------------------------------------------

ELEMENT = {"f16": ("e", 2), "f32": ("f", 4), "f64": ("d", 8), "u8": ("B", 1), "i32": ("i", 4),
           "i64": ("q", 8), "bf16": ("H", 2), "i8": ("b", 1)}


def values(data, type_name):
    code, size = ELEMENT[type_name]
    n = len(data) // size
    vals = struct.unpack(f"<{n}{code}", data[: n * size])
    if type_name == "bf16":
        vals = tuple(struct.unpack("<f", struct.pack("<I", v << 16))[0] for v in vals)
    return vals


def compare_outputs(got, want, type_name, what, exact=False):
    """Bytes equal, or for floats (unless exact) equal within 1e-5 relative, 1e-6 absolute."""
    if got == want:
        return
    check(len(got) == len(want), f"{what}: {len(got)} bytes, the reference has {len(want)}")
    check(type_name in ("f16", "f32", "f64", "bf16") and not exact,
          f"{what}: the bytes differ from the reference's ({type_name}, exact)")
    a, b = values(got, type_name), values(want, type_name)
    worst = 0.0
    for x, y in zip(a, b):
        if math.isnan(x) and math.isnan(y):
            continue
        if not math.isclose(x, y, rel_tol=1e-5, abs_tol=1e-6):
            raise Failure(f"{what}: {x!r} where the reference has {y!r} (not within 1e-5)")
        worst = max(worst, abs(x - y))
    print(f"  {what}: within tolerance (max abs diff {worst:g}), not bit-equal", flush=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def dims_text(dims):
    return "x".join(str(d) for d in dims)


# ---- describe.BACKEND ----------------------------------------------------------------------

def inspect(env, model):
    paths = [env.fixture(f) for f in model.files]
    if model.encoding == "openvino":
        paths = paths[:1]  # the .xml; its .bin is found beside it
    code, out, err = env.run(["models", "inspect", "--json", "--backend-dir", env.backend_dir,
                              "--encoding", model.encoding, *paths])
    check(code == 0, f"`wasinn models inspect --json {' '.join(paths)}` exit {code}: {err}")
    return json.loads(out)


def expected_type(inspect_type, guest_types):
    return inspect_type if inspect_type in guest_types else None


def compare_description(got, info, guest_types, who):
    for side in ("inputs", "outputs"):
        want = info[side]
        have = got.get(side)
        check(isinstance(have, list), f"{who}: no {side} list")
        check(len(have) == len(want), f"{who}: {len(have)} {side}, `models inspect` says {len(want)}:\n"
                                      f"  guest   {have}\n  inspect {want}")
        for g, w in zip(have, want):
            at = f"{who}: {side[:-1]} {w['index']}"
            check(g["index"] == w["index"], f"{at}: index {g['index']}")
            check(g["name"] == w["name"], f"{at}: name {g['name']!r}, `models inspect` says {w['name']!r}")
            check(g["type"] == expected_type(w["type"], guest_types),
                  f"{at}: type {g['type']!r}, `models inspect` says {w['type']!r}")
            check(g["shape"] == w["shape"], f"{at}: shape {g['shape']!r}, `models inspect` says {w['shape']!r}")


def check_core_mistakes(got, who):
    c = got.get("checks", {})
    check(c.get("side_2", 0) != 0, f"{who}: graph_io_count of side 2 succeeded")
    check(c.get("index_past_end", 0) != 0, f"{who}: graph_io_info of the index past the end succeeded")
    if "small_name" in c:
        s = c["small_name"]
        check(s["errno"] == 7 and s["needed"] == s["actual"],
              f"{who}: graph_io_info with name_max 0 gave errno {s['errno']} and needs {s['needed']} "
              f"(expected 7 TOO_LARGE and {s['actual']})")
    if "small_dims" in c:
        s = c["small_dims"]
        check(s["errno"] == 7 and s["needed"] == s["actual"],
              f"{who}: graph_io_info with dims_max rank-1 gave errno {s['errno']} and rank {s['needed']} "
              f"(expected 7 TOO_LARGE and {s['actual']})")


def check_facts(props, info, backend, who):
    names = [p[0] for p in props]
    check(len(names) == len(set(names)), f"{who}: a property is listed twice: {names}")
    values_ = dict(props)
    for fact in FACTS:
        check(fact in values_, f"{who}: no property {fact!r} (listed: {names[:12]}...)")
    check(values_["backend"] == backend, f"{who}: backend {values_['backend']!r}, expected {backend!r}")
    check(values_["framework-version"] == info["framework_version"],
          f"{who}: framework-version {values_['framework-version']!r}, `models inspect` says "
          f"{info['framework_version']!r}")
    check(values_["encoding"] == info["encoding"],
          f"{who}: encoding {values_['encoding']!r}, `models inspect` says {info['encoding']!r}")
    check(values_["device"] == "cpu", f"{who}: device {values_['device']!r}, expected 'cpu'")


def reference_args(model, fed, out_dir):
    """run_model's arguments for the inputs the guest fed (its input_<i>.bin)."""
    args = describe_load_args(model)
    for f in fed:
        args += ["--input", f"{f['index']}:{f['type']}:{dims_text(f['dims'])}:/o/{out_dir}/input_{f['index']}.bin"]
    return args


def describe_load_args(model):
    if model.preload:
        return ["--name", model.label]
    return ["--model", ",".join(f"/f/{f}" for f in model.files), "--encoding", model.encoding]


def run_describe_guest(env, model, info, backend, guest, host_args):
    who = f"{model.label} ({guest})"
    out_dir = f"{model.label}.{guest}"
    shutil.rmtree(os.path.join(env.work, out_dir), ignore_errors=True)
    os.makedirs(os.path.join(env.work, out_dir))
    args = describe_load_args(model) + ["--out", f"/o/{out_dir}", "--properties"]
    if not model.compute:
        args.append("--no-compute")
    for index, dims in model.dims.items():
        args += ["--dims", f"{index}={dims}"]
    for index, type_name in model.types.items():
        args += ["--type", f"{index}={type_name}"]
    wasm = "describe_io.wasm" if guest == "core" else "wit_describe_io.component.wasm"
    code, out, err, log = env.run_guest(wasm, args, host_args)
    got = json_from(out, log)
    check(code == 0 and "error" not in got, f"{who}: the guest failed\n{log}")
    compare_description(got, info, CORE_TYPES if guest == "core" else WIT_TYPES, who)
    if guest == "core":
        check_core_mistakes(got, who)
    check_facts(got["properties"], info, backend, who)
    if "skipped" in got:
        if model.compute:
            env.note(f"{who}: computed nothing: {got['skipped']}")
        return got, None

    # The outputs it read: sized by the description where that gives a size.
    read_ = {o["index"]: o for o in got["outputs_read"]}
    check(sorted(read_) == list(range(len(info["outputs"]))), f"{who}: read outputs {sorted(read_)}\n{log}")
    for o in got["outputs_read"]:
        check(not o.get("missing"), f"{who}: compute returned no output named {o.get('name')!r}\n{log}")
        desc = info["outputs"][o["index"]]
        if guest == "core" and o["sized_by_description"]:
            check(not o["grew"], f"{who}: output {o['index']} did not fit the size its description gives\n{log}")
        if guest == "wit":
            check(desc["type"] not in WIT_TYPES or o["type"] == desc["type"],
                  f"{who}: output {o['index']} is {o['type']}, described as {desc['type']}")
            if desc["shape"] is not None:
                fits = len(o["dims"]) == len(desc["shape"]) and all(
                    d < 0 or d == g for d, g in zip(desc["shape"], o["dims"]))
                check(fits, f"{who}: output {o['index']} has dims {o['dims']}, described as {desc['shape']}")
    if guest == "wit":
        check(got.get("unmatched") == [], f"{who}: outputs under names no description has: {got.get('unmatched')}")

    fed = got["fed"]
    if model.identity:
        for f in fed:
            check(read(os.path.join(env.work, out_dir, f"output_{f['index']}.bin")) ==
                  read(os.path.join(env.work, out_dir, f"input_{f['index']}.bin")),
                  f"{who}: the identity model's output {f['index']} is not its input {f['index']}")
        print(f"  {who}: every output equals its input (an identity model)", flush=True)
    if model.relation:
        model.relation({d["name"]: read(os.path.join(env.work, out_dir, f"output_{i}.bin"))
                        for i, d in enumerate(info["outputs"])})
        print(f"  {who}: the outputs agree with each other as the model makes them", flush=True)
        return got, out_dir

    # The same inputs through run_model.
    if any(f["type"] not in CORE_TYPES for f in fed):
        env.note(f"{who}: no run_model reference (an input of type {[f['type'] for f in fed]})")
        return got, out_dir
    ref_args = reference_args(model, fed, out_dir)
    for i in range(len(info["outputs"])):
        ref_args += ["--output", f"{i}:/o/{out_dir}/reference_{i}.bin"]
    code, out, err, log = env.run_guest("run_model.wasm", ref_args, host_args)
    check(code == 0, f"{who}: run_model on the guest's inputs failed\n{log}")
    for i, desc in enumerate(info["outputs"]):
        got_bytes = read(os.path.join(env.work, out_dir, f"output_{i}.bin"))
        want = read(os.path.join(env.work, out_dir, f"reference_{i}.bin"))
        compare_outputs(got_bytes, want, desc["type"], f"{who}: output {i} against run_model")
    return got, out_dir


def native_ort(env, model, got, out_dir, who):
    """Native ONNX Runtime on the guest's input (one f32 input, the first output f32)."""
    if not env.ort_reference:
        env.note(f"{who}: no native ONNX Runtime check (no --ort-reference)")
        return
    fed = got["fed"]
    if len(fed) != 1 or fed[0]["type"] != "f32" or got["outputs"][0]["type"] != "f32":
        return
    ref = os.path.join(env.work, out_dir, "native_0.f32")
    p = subprocess.run([env.ort_reference, env.fixture(model.files[0]),
                        os.path.join(env.work, out_dir, "input_0.bin"),
                        ",".join(str(d) for d in fed[0]["dims"]), ref], capture_output=True, text=True)
    check(p.returncode == 0, f"{who}: ort_reference failed: {p.stdout}{p.stderr}")
    compare_outputs(read(os.path.join(env.work, out_dir, "output_0.bin")), read(ref), "f32",
                    f"{who}: output 0 against native ONNX Runtime", exact=True)
    print(f"  {who}: output 0 equals native ONNX Runtime's bit for bit", flush=True)


def case_describe(env, backend):
    backend_status(env, backend)
    host_args = list(SINGLE_THREAD_ORT) if backend == "onnxruntime" else []
    core_props = {}
    for model in MODELS[backend]:
        if model.large and env.small_models:
            env.note(f"{model.label}: left out (--small-models)")
            continue
        print(f"model {model.label}: {' '.join(model.files)}", flush=True)
        missing = [f for f in model.files if not os.path.exists(env.fixture(f))]
        check(not missing, f"fixture files missing: {missing} (scripts/make_fixtures.py)")
        info = inspect(env, model)
        args = list(host_args)
        if model.preload:
            args += ["--nn-preload", f"{model.label}:{model.encoding}:cpu:{env.fixture(model.files[0])}"]
        for guest in ("core", "wit"):
            wasm = "describe_io.wasm" if guest == "core" else "wit_describe_io.component.wasm"
            if not os.path.exists(os.path.join(env.guests, wasm)):
                env.note(f"{model.label}: {wasm} is not built (component guests need node and jco)")
                continue
            got, out_dir = run_describe_guest(env, model, info, backend, guest, args)
            if guest == "core":
                core_props[model.label] = got["properties"]
            elif model.label in core_props:
                check(got["properties"] == core_props[model.label],
                      f"{model.label}: the properties differ between the ABIs:\n  core {core_props[model.label]}\n"
                      f"  wit  {got['properties']}")
            if out_dir and model.ort:
                native_ort(env, model, got, out_dir, f"{model.label} ({guest})")
            print(f"  {guest}: described{' and computed' if out_dir else ''}: ok", flush=True)


# ---- prompt.core / prompt.wit --------------------------------------------------------------

GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def read_gguf_metadata(path):
    """{key: value} of a GGUF file's metadata (arrays as lists), by the format's spec."""
    with open(path, "rb") as f:
        def take(fmt):
            n = struct.calcsize(fmt)
            return struct.unpack(fmt, f.read(n))[0]

        def string():
            return f.read(take("<Q")).decode("utf-8", "replace")

        def value(t):
            if t in GGUF_SCALARS:
                return take(GGUF_SCALARS[t])
            if t == 8:
                return string()
            if t == 9:
                inner, n = take("<I"), take("<Q")
                return [value(inner) for _ in range(n)]
            raise ValueError(f"GGUF value type {t}")

        check(f.read(4) == b"GGUF", f"{path} is not GGUF")
        take("<I")  # version
        take("<Q")  # tensors
        kv = {}
        for _ in range(take("<Q")):
            key = string()
            kv[key] = value(take("<I"))
        return kv


def hex_text(h):
    return bytes.fromhex(h).decode("utf-8", "replace")


def probe_greedy(env, host_args):
    """llama_probe's greedy compute of PROMPT: the llamacpp tests' reference, checked there
    against native llama.cpp."""
    wasm = os.path.join(env.guests, "llama_probe.wasm")
    if not os.path.exists(wasm):
        raise Failure("llama_probe.wasm is not built (tests/backends/llamacpp)")
    config = json.dumps({"temp": 0, "ctx-size": CTX_SIZE, "n-predict": N_PREDICT, "threads": THREADS})
    code, out, err, log = env.run_guest("llama_probe.wasm", ["--load", "name:tiny", "--config", config, "--prompt",
                                                             PROMPT, "--out", "/o/probe.txt"], host_args)
    check(code == 0, f"llama_probe failed\n{log}")
    for line in read(os.path.join(env.work, "probe.txt")).decode().splitlines():
        if line.startswith("ctx 0 text "):
            return hex_text(line[len("ctx 0 text "):].strip())
    raise Failure(f"llama_probe wrote no text\n{log}")


def gguf_text(v):
    """A GGUF scalar as the host's text would have it (JSON-ish)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def case_prompt(env, abi):
    backend_status(env, "llamacpp")
    tiny = env.fixture("llama/tiny.gguf")
    check(os.path.exists(tiny), f"{tiny} is missing (scripts/make_fixtures.py)")
    host_args = ["--nn-preload", f"tiny:GGML:AUTO:{tiny}", "--log-level", "error"]
    guest = "prompt_props.wasm" if abi == "core" else "wit_prompt.component.wasm"
    if not os.path.exists(os.path.join(env.guests, guest)):
        raise Skipped(f"{guest} is not built (component guests need node and jco)")
    code, out, err, log = env.run_guest(guest, ["--name", "tiny", "--prompt", PROMPT, "--n-predict", str(N_PREDICT),
                                                "--ctx-size", str(CTX_SIZE), "--threads", str(THREADS),
                                                "--non-text", "/f/tiny/model.onnx"], host_args)
    print(out, flush=True)
    lines = out.splitlines()
    check(code == 0 and "done" in lines, f"the guest did not finish\n{log}")
    ok = "errno 0" if abi == "core" else "ok"
    invalid = "errno 1" if abi == "core" else "invalid-argument"

    def line(prefix):
        found = [l for l in lines if l.startswith(prefix)]
        check(found, f"no line '{prefix}...'\n{log}")
        return found[0][len(prefix):].strip()

    # Properties: every GGUF key with its value, the facts first, the knobs after.
    meta = read_gguf_metadata(tiny)
    props = [l[len("property "):] for l in lines if l.startswith("property ")]
    names = [p.split(" = ", 1)[0] if " = " in p else p.split(" ", 1)[0] for p in props]
    shown = {p.split(" = ", 1)[0]: p.split(" = ", 1)[1] for p in props if " = " in p}
    check(len(names) == len(set(names)), f"a property is listed twice: {names}")
    for fact in FACTS:
        check(fact in shown, f"no fact {fact!r} among {names}")
    check(shown["backend"] == "llamacpp" and shown["encoding"] == "ggml" and shown["device"] == "cpu",
          f"facts: backend {shown['backend']!r}, encoding {shown['encoding']!r}, device {shown['device']!r}")
    for key, v in meta.items():
        if isinstance(v, list) and len(json.dumps(v)) > 4096:
            # docs/compatibility.md: a value over 4 KiB (the vocabulary) is left out, not cut.
            check(key not in shown, f"GGUF key {key!r}, {len(v)} elements, is a property")
            continue
        check(key in shown, f"GGUF key {key!r} is not a property")
        if not isinstance(v, list) and len(gguf_text(v)) <= 72:
            got = shown[key]
            if isinstance(v, float):
                check(math.isclose(float(got), v, rel_tol=1e-6), f"property {key} = {got}, the file has {v}")
            else:
                check(got == gguf_text(v), f"property {key} = {got!r}, the file has {gguf_text(v)!r}")
    knobs = [k for k in LLAMA_KNOBS if k in names]
    check(knobs == list(LLAMA_KNOBS) or set(knobs) == set(LLAMA_KNOBS),
          f"settable knobs missing: {sorted(set(LLAMA_KNOBS) - set(knobs))}")
    last_fact = max(names.index(n) for n in list(FACTS) + list(meta) if n in names)
    first_knob = min(names.index(k) for k in LLAMA_KNOBS)
    check(last_fact < first_knob, f"the knob {names[first_knob]!r} comes before the fact {names[last_fact]!r}")
    arch = meta["general.architecture"]
    check(hex_text(line("value general.architecture")) == arch, "general.architecture differs from the file's")
    ctx_len = meta[f"{arch}.context_length"]
    check(hex_text(line(f"value {arch}.context_length")) == str(ctx_len),
          f"{arch}.context_length differs from the file's {ctx_len}")
    if abi == "core":
        check(line("list errno") .startswith("7 needed "), "graph_list_properties with no room is not TOO_LARGE")
        check(line("get-small errno") == f"7 needed {len(arch)} actual {len(arch)}",
              f"graph_get_property with no room: {line('get-small errno')}")

    # Refusals.
    for what in ("get-unknown", "set-unknown", "set-temp-hot", "set-backend", "ctx-set-unknown"):
        check(line(f"error {what} ") == invalid, f"{what}: {line(f'error {what} ')}, expected {invalid}")
    if abi == "wit":
        check(line("error prompt-set-unknown ").startswith("invalid-argument:"),
              f"prompt context.set-property of an unknown name: {line('error prompt-set-unknown ')}")

    # Greedy, against llama_probe.
    for name, value in (("temp", "0"), ("n-predict", str(N_PREDICT)), ("ctx-size", str(CTX_SIZE)),
                        ("threads", str(THREADS))):
        check(line(f"set {name} {value} ") == ok, f"set {name} {value}: {line(f'set {name} {value} ')}")
    check(float(hex_text(line("after-set temp"))) == 0.0, "temp after the set is not 0")
    check(int(float(hex_text(line("after-set n-predict")))) == N_PREDICT, "n-predict after the set differs")
    greedy_line = line("text greedy")
    check(not greedy_line.startswith("errno") and not greedy_line.startswith("error"), f"prompt: {greedy_line}")
    greedy = hex_text(greedy_line)
    reference = probe_greedy(env, host_args)
    check(greedy == reference, f"greedy prompt text {greedy!r}\n  llama_probe's greedy compute: {reference!r}")
    check(len(greedy) > 0, "the greedy text is empty")
    if abi == "core":
        check(line("prompt-small errno") == f"7 needed {len(bytes.fromhex(greedy_line))}",
              f"prompt with 4 bytes of room: {line('prompt-small errno')}, expected 7 and the greedy text's "
              f"{len(bytes.fromhex(greedy_line))} bytes")

    # Seeded sampling, twice.
    check(line("set-ctx temp 0.8") == ok and line("set-ctx seed 42") == ok,
          f"context set: {line('set-ctx temp 0.8')}, {line('set-ctx seed 42')}")
    s1, s2 = line("text seeded1"), line("text seeded2")
    check(not s1.startswith(("errno", "error")) and not s2.startswith(("errno", "error")), f"seeded: {s1} / {s2}")
    check(s1 == s2, f"two runs seeded 42 differ:\n  {hex_text(s1)!r}\n  {hex_text(s2)!r}")

    # Not a text model.
    nt = line("non-text")
    if abi == "core":
        check(nt == "errno 6", f"prompt on an ONNX graph: {nt}, expected errno 6 (unsupported_operation)")
    else:
        check(nt.startswith("unsupported-operation:"), f"prompt.init on an ONNX graph: {nt}")

    if abi == "wit":
        code, out, err, log = env.run_guest("prompt_props.wasm", ["--name", "tiny", "--n-predict", "1"], host_args)
        check(code == 0, f"prompt_props for the property list failed\n{log}")
        core_names = [l[len("property "):].split(" = ", 1)[0] for l in out.splitlines() if l.startswith("property ")]
        check(core_names == names, f"the property lists differ between the ABIs:\n  core {core_names}\n  wit  {names}")


CASES = {f"describe.{b}": (lambda env, b=b: case_describe(env, b)) for b in MODELS}
CASES["prompt.core"] = lambda env: case_prompt(env, "core")
CASES["prompt.wit"] = lambda env: case_prompt(env, "wit")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--case", required=True, choices=sorted(CASES) + ["all"])
    p.add_argument("--wasinn", required=True)
    p.add_argument("--guests", required=True, help="the build's guests directory")
    p.add_argument("--backend-dir", required=True, help="the build's backend plugins")
    p.add_argument("--fixtures", default=os.path.expanduser("~/.cache/wasinn/fixtures"))
    p.add_argument("--ort-reference", help="tests/serve's ort_reference (native ONNX Runtime)")
    p.add_argument("--keep", help="work in this directory and keep it (default: a temporary one, removed)")
    # Under ASan the frameworks' own work on mobilenet_v2 is most of a describe case's time, and the
    # host's code it runs is the small models' (the sanitizer build passes this).
    p.add_argument("--small-models", action="store_true", help="leave out the large models (mobilenet_v2)")
    args = p.parse_args()
    env = Env(args)
    status = 0
    for name in sorted(CASES) if args.case == "all" else [args.case]:
        print(f"=== {name}", flush=True)
        try:
            CASES[name](env)
            print(f"=== {name}: passed", flush=True)
        except Skipped as e:
            print(f"=== {name}: skipped: {e}", flush=True)
            status = status or (SKIP if args.case != "all" else 0)
        except Exception as e:  # a Failure, or anything unforeseen
            if not isinstance(e, Failure):
                traceback.print_exc()
            print(f"=== {name}: FAILED: {e}", flush=True)
            status = 1
    if not env.keep:
        shutil.rmtree(env.work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
