# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Seldon MLServer custom runtime serving models.py's models (serve.py writes one
model-settings.json per model naming this class). Tensors are decoded and encoded with
MLServer's NumpyCodec; the sleep model awaits, so the event loop (parallel_workers: 0) keeps
answering other requests meanwhile."""
import asyncio
import json
import os
import sys

from mlserver import MLModel
from mlserver.codecs import NumpyCodec
from mlserver.types import InferenceRequest, InferenceResponse

import models


class ModelsRuntime(MLModel):
    async def load(self) -> bool:
        self._spec = {m[0]: m for m in models.models()}[self.name]
        return True

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        inputs = {i.name: NumpyCodec.decode_input(i) for i in payload.inputs}
        if self.name in models.SLEEPS:
            await asyncio.sleep(models.SLEEPS[self.name])
            result = {"OUTPUT0": inputs["INPUT0"]}
        else:
            result = self._spec[3](inputs)
        return InferenceResponse(
            model_name=self.name,
            outputs=[NumpyCodec.encode_output(name, result[name]) for name, _, _ in self._spec[2]])


def write_repo(root, http, grpc):
    """The model repository serve.py starts MLServer on: settings.json and one folder per model."""
    os.makedirs(os.path.join(root, "metrics"), exist_ok=True)
    with open(os.path.join(root, "settings.json"), "w") as f:
        json.dump({"host": "127.0.0.1", "http_port": http, "grpc_port": grpc, "parallel_workers": 0,
                   "metrics_endpoint": None, "metrics_dir": os.path.join(root, "metrics"),
                   "load_models_at_startup": True, "debug": False}, f)
    for name, ins, outs, _ in models.models():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model-settings.json"), "w") as f:
            json.dump({"name": name, "implementation": "mlserver_runtime.ModelsRuntime",
                       "inputs": [{"name": n, "datatype": t, "shape": s} for n, t, s in ins],
                       "outputs": [{"name": n, "datatype": t, "shape": s} for n, t, s in outs]}, f)


if __name__ == "__main__":
    write_repo(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
