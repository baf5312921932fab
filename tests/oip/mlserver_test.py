#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`wasinn serve --oip-http/--oip-grpc` against MLServer's own v2 client side: requests built
with mlserver.types and its NumpyCodec, sent as JSON over REST and as protobuf over gRPC through
mlserver.grpc's converters and stub; answers decoded by the same codec and compared with the
digits fixture's known answer (the labels, and the logits over REST and gRPC alike). Run with
.deps/venv-mlserver-1.7.1's python (ctest: oip.mlserver); skips (77) without it.
"""
import http.client
import os
import sys
import unittest

try:
    import grpc
    import numpy as np
    from mlserver.codecs import NumpyCodec
    from mlserver.grpc import converters, dataplane_pb2_grpc
    from mlserver.types import InferenceRequest, InferenceResponse, MetadataModelResponse, RequestOutput
except ImportError as e:
    print(f"skipped: {e} (run with .deps/venv-mlserver-1.7.1/bin/python)")
    sys.exit(77)

from oip_server_process import Server, parse_args, run_tests

ARGS = None
SERVER = None


def rest(method, path, body=None):
    host, port = SERVER.http.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request(method, path, body=body, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def digits(n=8):
    f = ARGS.fixtures
    x = np.fromfile(os.path.join(f, "digits", "test_x.f32"), np.float32).reshape(-1, 64)[:n]
    y = np.fromfile(os.path.join(f, "digits", "test_y.u8"), np.uint8)[:n]
    return x, y


class MLServerTypes(unittest.TestCase):
    def test_metadata_parses_as_mlserver_type(self):
        status, body = rest("GET", "/v2/models/digits")
        self.assertEqual(status, 200)
        meta = MetadataModelResponse.model_validate_json(body)
        self.assertEqual(meta.name, "digits")
        self.assertEqual(meta.inputs[0].datatype, "FP32")
        self.assertEqual(meta.inputs[0].shape, [-1, 64])

    def test_rest_and_grpc_agree_with_the_labels(self):
        x, y = digits()
        request = InferenceRequest(inputs=[NumpyCodec.encode_input("input", x)],
                                   outputs=[RequestOutput(name="logits")], id="mls-1")
        request.inputs[0].parameters = None  # MLServer's content_type hint is not the protocol's
        status, body = rest("POST", "/v2/models/digits/infer", request.model_dump_json(exclude_none=True))
        self.assertEqual(status, 200, body)
        response = InferenceResponse.model_validate_json(body)
        self.assertEqual(response.id, "mls-1")
        logits = NumpyCodec.decode_output(response.outputs[0])
        self.assertEqual(logits.shape, (8, 10))
        self.assertGreaterEqual((logits.argmax(1) == y).mean(), 0.85)

        channel = grpc.insecure_channel(SERVER.grpc)
        stub = dataplane_pb2_grpc.GRPCInferenceServiceStub(channel)
        pb = converters.ModelInferRequestConverter.from_types(request, model_name="digits", model_version=None)
        reply = stub.ModelInfer(pb)
        typed = converters.ModelInferResponseConverter.to_types(reply)
        g = NumpyCodec.decode_output(typed.outputs[0]).reshape(8, 10)
        np.testing.assert_allclose(g, logits, rtol=1e-5, atol=1e-5)
        channel.close()

    def test_errors_have_the_protocols_shape(self):
        status, body = rest("POST", "/v2/models/nosuch/infer", b'{"inputs": []}')
        self.assertEqual(status, 404)
        self.assertIn(b'"error"', body)
        x, _ = digits(1)
        request = InferenceRequest(inputs=[NumpyCodec.encode_input("input", x.astype(np.int32))])
        status, body = rest("POST", "/v2/models/digits/infer", request.model_dump_json(exclude_none=True))
        self.assertEqual(status, 400, body)


def main():
    global ARGS, SERVER
    ARGS, rest = parse_args()
    SERVER = Server(ARGS)
    return run_tests(SERVER, rest)


if __name__ == "__main__":
    sys.exit(main())
