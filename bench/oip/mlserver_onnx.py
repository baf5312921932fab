# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Seldon MLServer serving ONNX models through ONNX Runtime's Python API, for bench_oip.py: a
custom MLModel runtime over onnxruntime.InferenceSession, and the repository MLServer starts on.
  mlserver_onnx.py REPO SPEC_JSON HTTP_PORT GRPC_PORT    (writes REPO; then `mlserver start REPO`)
SPEC_JSON as triton_onnx.py's. "instances" computes run at once on a thread pool of the runtime's
own (ORT releases the GIL in Run), one InferenceSession per thread: MLServer's own parallel_workers
(inference processes) cannot start in this venv (1.7.1's worker calls asyncio.get_event_loop(),
which uvloop 0.23 refuses outside a running loop), so MLServer runs with parallel_workers 0, as
the remote tests run it. max_batch_size/max_queue_delay_us become its adaptive batching
(max_batch_size, max_batch_time in seconds)."""
import asyncio
import json
import os
import queue
import sys
from concurrent.futures import ThreadPoolExecutor

from mlserver import MLModel
from mlserver.handlers.custom import CustomHandler, register_custom_handler
from mlserver.codecs import NumpyCodec
from mlserver.types import InferenceRequest, InferenceResponse


DATATYPES = {"tensor(float)": "FP32", "tensor(double)": "FP64", "tensor(int64)": "INT64",
             "tensor(int32)": "INT32", "tensor(uint8)": "UINT8"}


TRITON_TYPES = {"FP32": "TYPE_FP32", "FP64": "TYPE_FP64", "INT64": "TYPE_INT64", "INT32": "TYPE_INT32",
                "UINT8": "TYPE_UINT8"}


class OnnxRuntime(MLModel):
    def __init__(self, settings):
        super().__init__(settings)
        # perf_analyzer reads Triton's model configuration (GET /v2/models/NAME/config) before it
        # sends anything, and MLServer has no such route: a custom handler answers it (outside
        # the measured infer path). REST only: MLServer's gRPC has no ModelConfig.
        async def triton_config():
            def tensors(ts):
                batch = settings.max_batch_size or 0
                return [{"name": t.name, "data_type": TRITON_TYPES[t.datatype],
                         "dims": list(t.shape[1:] if batch else t.shape)} for t in ts]
            return {"name": settings.name, "platform": "mlserver", "backend": "mlserver",
                    "max_batch_size": settings.max_batch_size or 0,
                    "input": tensors(settings.inputs), "output": tensors(settings.outputs)}
        register_custom_handler(CustomHandler(rest_path=f"/v2/models/{settings.name}/config",
                                              rest_method="GET"), triton_config)
        self.triton_config = triton_config

    async def load(self) -> bool:
        import onnxruntime as ort
        extra = self.settings.parameters.extra
        so = ort.SessionOptions()
        so.intra_op_num_threads = int(extra["intra_op_threads"])
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # A session per compute thread, lent out through a queue (as Triton's instances).
        self._sessions = queue.SimpleQueue()
        for _ in range(int(extra["instances"])):
            self._sessions.put(ort.InferenceSession(self.settings.parameters.uri, so,
                                                    providers=["CPUExecutionProvider"]))
        self._pool = ThreadPoolExecutor(int(extra["instances"]))
        s = self._sessions.get()
        self._outputs = [o.name for o in s.get_outputs()]
        self._sessions.put(s)
        return True

    def _run(self, feeds):
        s = self._sessions.get()
        try:
            return s.run(self._outputs, feeds)
        finally:
            self._sessions.put(s)

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        feeds = {i.name: NumpyCodec.decode_input(i) for i in payload.inputs}
        results = await asyncio.get_running_loop().run_in_executor(self._pool, self._run, feeds)
        outputs = [NumpyCodec.encode_output(n, r) for n, r in zip(self._outputs, results)]
        for o in outputs:
            # Triton's client reads an output's "parameters" as the binary extension's
            # (binary_data_size); NumpyCodec's {"content_type": "np"} would make it fail.
            o.parameters = None
        return InferenceResponse(model_name=self.name, id=payload.id, outputs=outputs)


def write_repo(root, spec, http, grpc):
    import onnxruntime as ort
    os.makedirs(os.path.join(root, "metrics"), exist_ok=True)
    with open(os.path.join(root, "settings.json"), "w") as f:
        json.dump({"host": "127.0.0.1", "http_port": http, "grpc_port": grpc,
                   "parallel_workers": 0, "metrics_endpoint": None,
                   "metrics_dir": os.path.join(root, "metrics"), "load_models_at_startup": True,
                   "debug": False}, f)
    for m in spec["models"]:
        d = os.path.join(root, m["name"])
        os.makedirs(d, exist_ok=True)
        s = ort.InferenceSession(m["path"], providers=["CPUExecutionProvider"])

        def tensors(ts):
            return [{"name": t.name, "datatype": DATATYPES[t.type],
                     "shape": [d if isinstance(d, int) else -1 for d in t.shape]} for t in ts]
        settings = {"name": m["name"], "implementation": "mlserver_onnx.OnnxRuntime",
                    "parameters": {"uri": m["path"], "extra": {"intra_op_threads": spec["intra_op_threads"],
                                                          "instances": spec["instances"]}},
                    "inputs": tensors(s.get_inputs()), "outputs": tensors(s.get_outputs())}
        if m.get("max_batch_size", 0):
            settings["max_batch_size"] = m["max_batch_size"]
            settings["max_batch_time"] = m.get("max_queue_delay_us", 0) / 1e6
        with open(os.path.join(d, "model-settings.json"), "w") as f:
            json.dump(settings, f)


if __name__ == "__main__":
    write_repo(sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4]))
