# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Triton (the tritonserver bundled in PyPI nvidia-pytriton) serving ONNX models through ONNX
Runtime's Python API, for bench_oip.py. Run in the Triton venv:
  triton_onnx.py SPEC_JSON HTTP_PORT GRPC_PORT METRICS_PORT
SPEC_JSON: {"models": [{"name", "path", "max_batch_size", "max_queue_delay_us"}], "instances": N,
"intra_op_threads": T}. Each model gets N instances (pytriton callables), each with an
InferenceSession of its own, so N requests compute at once as wasinn's --workers N do. With
max_batch_size > 0, Triton's dynamic batcher concatenates requests along dim 0 (the model's
first dimension must then be dynamic). Stops on SIGTERM (pytriton stops tritonserver)."""
import json
import signal
import sys

import numpy as np
import onnxruntime as ort
from pytriton.model_config import DynamicBatcher, ModelConfig, Tensor
from pytriton.triton import Triton, TritonConfig, TritonSecurityConfig

NP = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(int64)": np.int64,
      "tensor(int32)": np.int32, "tensor(uint8)": np.uint8}


def session(path, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def callable_for(sess):
    names = [o.name for o in sess.get_outputs()]

    def infer(requests):
        # One Run per request (batching off) or per batch Triton formed (batching on).
        return [dict(zip(names, sess.run(names, dict(r.items())))) for r in requests]
    return infer


def main():
    spec = json.load(open(sys.argv[1]))
    http, grpc, metrics = (int(a) for a in sys.argv[2:5])
    cfg = TritonConfig(http_address="127.0.0.1", http_port=http, grpc_address="127.0.0.1",
                       grpc_port=grpc, metrics_port=metrics, allow_metrics=False, exit_timeout_secs=5)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    # No access token: perf_analyzer reads the statistics, which pytriton restricts by default
    # (wasinn and MLServer have no token either; every server listens on 127.0.0.1 only).
    with Triton(config=cfg, security_config=TritonSecurityConfig(restricted_endpoints=[])) as triton:
        for m in spec["models"]:
            sessions = [session(m["path"], spec["intra_op_threads"]) for _ in range(spec["instances"])]
            s = sessions[0]
            batch = m.get("max_batch_size", 0)
            # With batching, Triton's shapes leave out the batch dimension.
            def shape(t):
                return tuple(-1 if not isinstance(d, int) else d for d in (t.shape[1:] if batch else t.shape))
            config = (ModelConfig(batching=True, max_batch_size=batch,
                                  batcher=DynamicBatcher(max_queue_delay_microseconds=m.get("max_queue_delay_us", 0)))
                      if batch else ModelConfig(batching=False))
            triton.bind(model_name=m["name"], infer_func=[callable_for(x) for x in sessions],
                        inputs=[Tensor(name=t.name, dtype=NP[t.type], shape=shape(t)) for t in s.get_inputs()],
                        outputs=[Tensor(name=t.name, dtype=NP[t.type], shape=shape(t)) for t in s.get_outputs()],
                        config=config, strict=False)
        try:
            triton.serve()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
