# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A misbehaving Open Inference Protocol REST server (standard library only) for the failures
real servers do not produce: a response whose data does not fill its shape, a body that is not
JSON, a response larger than the client accepts, a connection closed mid-request, and an HTTP 500
with an {"error": ...} body; and models that answer only a request carrying a header
("auth": Authorization: Bearer t0k3n) or, over TLS, a client certificate ("mtls"). Every model
declares INPUT0 and OUTPUT0, FP32 [4]; "auth" and "mtls" are the identity.
  fake_server.py PORT [CERT KEY CLIENT_CA]   (with the last three: HTTPS, client certificates
                                              asked for and checked against CLIENT_CA)"""
import json
import socket
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

META = {"platform": "fake", "versions": ["1"],
        "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4]}],
        "outputs": [{"name": "OUTPUT0", "datatype": "FP32", "shape": [4]}]}
MODELS = {"short", "garbage", "huge", "reset", "error500", "auth", "mtls"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, ctype="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if self.path == "/v2":
            return self.reply(200, {"name": "fake", "version": "0", "extensions": []})
        if self.path == "/v2/health/ready":
            return self.reply(200, b"")
        if len(parts) == 3 and parts[:2] == ["v2", "models"] and parts[2] in MODELS:
            return self.reply(200, dict(META, name=parts[2]))
        self.reply(404, {"error": f"no model at {self.path}"})

    def do_POST(self):
        parts = self.path.strip("/").split("/")
        length = int(self.headers.get("Content-Length", "0"))
        model = parts[2] if len(parts) == 4 and parts[3] == "infer" else None
        if model == "reset":
            # Closed with the request unread and no answer: the client sees a reset or EOF.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
            return
        body = self.rfile.read(length)
        out = {"name": "OUTPUT0", "datatype": "FP32", "shape": [4]}
        if model in ("auth", "mtls"):
            if model == "auth" and self.headers.get("Authorization") != "Bearer t0k3n":
                return self.reply(401, {"error": "no valid Authorization header"})
            if model == "mtls" and not (hasattr(self.connection, "getpeercert") and self.connection.getpeercert()):
                return self.reply(403, {"error": "no client certificate"})
            data = json.loads(body)["inputs"][0]["data"]
            return self.reply(200, {"model_name": model, "outputs": [dict(out, data=data)]})
        if model == "short":
            return self.reply(200, {"model_name": model, "outputs": [dict(out, data=[1.0, 2.0, 3.0])]})
        if model == "garbage":
            return self.reply(200, b"<html>this is not json</html>", "text/html")
        if model == "huge":
            return self.reply(200, {"model_name": model, "outputs": [dict(out, data=[0.5] * 4)],
                                    "padding": "x" * (1 << 20)})
        if model == "error500":
            return self.reply(500, {"error": "the fake model failed on purpose"})
        self.reply(404, {"error": f"no model at {self.path}"})


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    if len(sys.argv) == 5:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        ctx.verify_mode = ssl.CERT_OPTIONAL  # "mtls" refuses requests without one
        ctx.load_verify_locations(sys.argv[4])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.serve_forever()
