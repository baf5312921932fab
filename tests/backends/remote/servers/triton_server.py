# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""NVIDIA Triton (the tritonserver bundled in nvidia-pytriton) serving models.py's models as
Python callables on 127.0.0.1. Run by serve.py in the Triton venv:
  triton_server.py HTTP_PORT GRPC_PORT METRICS_PORT
Stops gracefully on SIGTERM (pytriton stops tritonserver and removes its workspace)."""
import signal
import sys

import numpy as np
from pytriton.model_config import ModelConfig, Tensor
from pytriton.triton import Triton, TritonConfig

import models

NP = {"FP32": np.float32, "FP64": np.float64, "FP16": np.float16, "UINT8": np.uint8,
      "INT32": np.int32, "INT64": np.int64}


def callable_for(fn, output_names):
    def infer(requests):
        return [fn({k: v for k, v in r.items()}) for r in requests]
    return infer


def main():
    http, grpc, metrics = (int(a) for a in sys.argv[1:4])
    cfg = TritonConfig(http_address="127.0.0.1", http_port=http, grpc_address="127.0.0.1",
                       grpc_port=grpc, metrics_port=metrics, allow_metrics=False, exit_timeout_secs=5)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    with Triton(config=cfg) as triton:
        for name, ins, outs, fn in models.models():
            # Two instances of sleep2, so two requests in flight run at once (the test of contexts
            # that must not serialize); one of every other model.
            infer = callable_for(fn, [o[0] for o in outs])
            triton.bind(
                model_name=name,
                infer_func=[infer, infer] if name == "sleep2_fp32" else infer,
                inputs=[Tensor(name=n, dtype=NP[d], shape=tuple(s)) for n, d, s in ins],
                outputs=[Tensor(name=n, dtype=NP[d], shape=tuple(s)) for n, d, s in outs],
                config=ModelConfig(batching=False),
                strict=False,
            )
        try:
            triton.serve()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
