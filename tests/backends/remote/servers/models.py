# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The models both test servers serve, as plain numpy functions, so Triton (pytriton callables)
and MLServer (a custom runtime) compute the same thing and the tests can check either against
numpy or ONNX Runtime.

  add_sub_<dt>   INPUT0, INPUT1 [4] -> OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1
  pair_add_fp32  INPUT0, INPUT1 [-1] -> OUTPUT0 = INPUT0 + INPUT1 (lengths must agree)
  identity_fp32  INPUT0 [-1] -> OUTPUT0 (the benchmark's small and 600 KB inputs)
  digits         input [-1, 64] -> logits [-1, 10]: the digits ONNX model in onnxruntime
  sleep_fp32     INPUT0 [-1] -> OUTPUT0 after SLEEP_S seconds (deadline tests)
  sleep2_fp32    the same after SLEEP2_S seconds, two requests at a time (contexts in flight);
                 its own model, so the deadline tests' abandoned requests do not queue before it
"""
import os
import time

import numpy as np

DTYPES = {  # v2 datatype -> numpy
    "FP32": np.float32, "FP64": np.float64, "FP16": np.float16,
    "UINT8": np.uint8, "INT32": np.int32, "INT64": np.int64,
}
SLEEP_S = 3.0
SLEEP2_S = 2.0
# The models whose requests sleep (MLServer awaits them instead of blocking its event loop).
SLEEPS = {"sleep_fp32": SLEEP_S, "sleep2_fp32": SLEEP2_S}


def add_sub(a, b):
    return {"OUTPUT0": (a + b).astype(a.dtype), "OUTPUT1": (a - b).astype(a.dtype)}


_digits = None


def digits(x):
    global _digits
    if _digits is None:
        import onnxruntime as ort
        _digits = ort.InferenceSession(os.environ["WASINN_REMOTE_DIGITS"], providers=["CPUExecutionProvider"])
    return {"logits": _digits.run(None, {"input": x.astype(np.float32)})[0]}


def sleep(x, seconds):
    time.sleep(seconds)
    return {"OUTPUT0": x}


def models():
    """(name, [(input name, datatype, shape)], [(output name, datatype, shape)], fn(dict) -> dict)"""
    out = []
    for dt in DTYPES:
        out.append((f"add_sub_{dt.lower()}", [("INPUT0", dt, [4]), ("INPUT1", dt, [4])],
                    [("OUTPUT0", dt, [4]), ("OUTPUT1", dt, [4])],
                    lambda i: add_sub(i["INPUT0"], i["INPUT1"])))
    out.append(("pair_add_fp32", [("INPUT0", "FP32", [-1]), ("INPUT1", "FP32", [-1])],
                [("OUTPUT0", "FP32", [-1])], lambda i: {"OUTPUT0": i["INPUT0"] + i["INPUT1"]}))
    out.append(("identity_fp32", [("INPUT0", "FP32", [-1])], [("OUTPUT0", "FP32", [-1])],
                lambda i: {"OUTPUT0": i["INPUT0"]}))
    if os.environ.get("WASINN_REMOTE_DIGITS"):
        out.append(("digits", [("input", "FP32", [-1, 64])], [("logits", "FP32", [-1, 10])],
                    lambda i: digits(i["input"])))
    out.append(("sleep2_fp32", [("INPUT0", "FP32", [-1])], [("OUTPUT0", "FP32", [-1])],
                lambda i: sleep(i["INPUT0"], SLEEP2_S)))
    # Last: serve.py waits for the last model to be ready.
    out.append(("sleep_fp32", [("INPUT0", "FP32", [-1])], [("OUTPUT0", "FP32", [-1])],
                lambda i: sleep(i["INPUT0"], SLEEP_S)))
    return out
