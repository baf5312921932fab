# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The official Python tritonclient against the same server and model as bench_remote, for
reference: one client, N inferences of identity_fp32, per-inference median and p90 in
microseconds as JSON on stdout. Run in the Triton venv (it has tritonclient[all]).
  tritonclient_direct.py http|grpc HOST:PORT BINARY(0|1) FLOATS SECONDS"""
import json
import sys
import time

import numpy as np

proto, url, binary, floats, seconds = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]), float(sys.argv[5])
x = np.arange(floats, dtype=np.float32)
if proto == "http":
    import tritonclient.http as c
    client = c.InferenceServerClient(url)
    inp = c.InferInput("INPUT0", [floats], "FP32")
    inp.set_data_from_numpy(x, binary_data=binary)
    outs = [c.InferRequestedOutput("OUTPUT0", binary_data=binary)]
else:
    import tritonclient.grpc as c
    client = c.InferenceServerClient(url)
    inp = c.InferInput("INPUT0", [floats], "FP32")
    inp.set_data_from_numpy(x)
    outs = [c.InferRequestedOutput("OUTPUT0")]


def once():
    r = client.infer("identity_fp32", [inp], outputs=outs)
    y = r.as_numpy("OUTPUT0")
    assert y.shape == x.shape


for _ in range(5):
    once()
times = []
end = time.perf_counter() + seconds
while time.perf_counter() < end or len(times) < 20:
    t0 = time.perf_counter()
    once()
    times.append((time.perf_counter() - t0) * 1e6)
times.sort()
print(json.dumps({"median_us": times[len(times) // 2], "p90_us": times[int(len(times) * 0.9)], "samples": len(times)}))
