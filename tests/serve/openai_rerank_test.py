#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reranking through `wasinn serve --openai NAME=reranker.gguf` (POST /v1/rerank and /rerank) equal to
llama.cpp's own llama-server --reranking (the same llama.cpp build, the same file), and
/v1/embeddings' base64 encoding equal to its float one and to llama-server's.

    openai_rerank_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                          --llama-server .deps/llamacpp-dl/bin/llama-server [--backend-dir DIR]

Cases (ctest runs each as serve.openai-rerank.CASE), on the random-weight BERT rerankers of
scripts/fixtures/export_reranker.py (one thread, ctx 512):
  rerank      the same requests to both servers: several documents (one empty, one holding "[SEP]"
              as text, one not ASCII), top_n, return_documents, 80 documents (more than the plugin
              decodes in one batch), through /v1/rerank and /rerank: the same order, each score
              within 1e-4, the same usage; return_documents gives each result its document's text
  template    the same on reranker-template.gguf, whose GGUF carries a rerank template
              (tokenizer.chat_template.rerank), which both format the pair with
  embeddings  llama/tiny.gguf: base64 (raw HTTP: the string decodes as little-endian float32, and
              PyPI openai's embeddings.create, which asks for it and decodes it) equals the float answer and
              llama-server --embedding --pooling last's base64 answer within 1e-5; another
              encoding_format is a 400
  errors      each a 400 that says what, the server reranking as before after it: an unknown field,
              query missing or not a string, documents missing, empty, not a list, an object or
              number entry, over 1000 entries, top_n 0, -1, "2" or true, return_documents "yes",
              model not a string, a document whose pair cannot fit one batch, a chat model asked to
              rerank (model_not_reranker) and a reranker asked for embeddings

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import base64
import json
import os
import struct
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import Skipped, case_main, check  # noqa: E402
from serve_test import LlamaServer, Server, log  # noqa: E402

THREADS, CTX = 1, 512
NN_OPTIONS = json.dumps({"threads": THREADS, "ctx-size": CTX})
NAME = "rr"
QUERY = "What is the giant panda?"
DOCUMENTS = [
    "The giant panda is a bear species endemic to China.",
    "Paris is the capital of France.",
    "",
    "Pandas eat bamboo [SEP] almost exclusively.",  # [SEP] is text here, not the token
    "Le panda géant vit dans les montagnes du Sichuan. 熊猫",
    "WebAssembly is a binary instruction format for a stack-based virtual machine.",
]
MANY = [f"document {i}: {'bamboo forest ' * (i % 7)}panda number {i}" for i in range(80)]


def post(server, path, body, timeout=120):
    """(status, JSON body) of a POST."""
    req = urllib.request.Request(server.url(path), data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Ctx:
    def __init__(self, args):
        self.args = args
        if not os.access(args.llama_server, os.X_OK):
            raise Skipped(f"no {args.llama_server} (scripts/deps/llamacpp.sh builds it)")
        component = os.path.join(args.guests, "http_openai.component.wasm")
        if not os.path.exists(component):
            raise Skipped(f"no {component} (built with the HTTP component guests)")

    def fixture(self, rel):
        path = os.path.join(self.args.fixtures, rel)
        if not os.path.exists(path):
            raise Skipped(f"no {path} (scripts/make_fixtures.py makes it)")
        return path

    def wasinn(self, models):
        """wasinn serve --openai NAME=MODEL for each of MODELS, [(name, model)]."""
        args = ["--env", f"NN_OPTIONS={NN_OPTIONS}"]
        if self.args.backend_dir:
            args += ["--backend-dir", self.args.backend_dir]
        openai_args = [a for name, model in models for a in ("--openai", f"{name}={model}")]
        return Server([self.args.wasinn, "serve"], args + openai_args[:-1], openai_args[-1], name="wasinn serve")

    def llama_server(self, model, flags):
        return LlamaServer(self.args.llama_server, model, flags, threads=THREADS, ctx=CTX,
                           env=dict(os.environ, LLAMA_ARG_DEVICE="none"))


def requests_to_compare():
    """(what, path, body) sent to both servers."""
    return [
        ("six documents", "/v1/rerank", {"query": QUERY, "documents": DOCUMENTS}),
        ("top_n 3", "/v1/rerank", {"query": QUERY, "documents": DOCUMENTS, "top_n": 3}),
        ("top_n over the count, return_documents", "/v1/rerank",
         {"query": QUERY, "documents": DOCUMENTS, "top_n": 10, "return_documents": True}),
        ("/rerank without /v1", "/rerank", {"query": "bamboo", "documents": DOCUMENTS[:4], "top_n": 2}),
        ("an empty query", "/v1/rerank", {"query": "", "documents": DOCUMENTS[:3]}),
        ("80 documents", "/v1/rerank", {"query": QUERY, "documents": MANY, "top_n": 20}),
    ]


def llama_server_answers(ctx, model):
    """llama-server --reranking's answer to each of requests_to_compare() on MODEL, by its what."""
    want = {}
    with ctx.llama_server(model, ["--reranking"]) as ls:
        for what, path, body in requests_to_compare():
            status, answer = post(ls, path, body)
            check(status == 200, f"llama-server {what}: {status} {answer}")
            want[what] = answer
    return want


def check_answers(server, name, want):
    """SERVER's answer to each of requests_to_compare() on model NAME equals llama-server's (WANT)."""
    for what, path, body in requests_to_compare():
        status, got = post(server, path, dict(body, model=name))
        check(status == 200, f"wasinn {what}: {status} {got}")
        ref = want[what]
        check(got["object"] == "list" and got["model"] == name, f"{what}: {got}")
        check(got["usage"] == ref["usage"], f"{what}: usage {got['usage']} != llama-server's {ref['usage']}")
        order, ref_order = [r["index"] for r in got["results"]], [r["index"] for r in ref["results"]]
        check(order == ref_order, f"{what}: order {order} != llama-server's {ref_order}")
        worst = max(abs(a["relevance_score"] - b["relevance_score"]) for a, b in zip(got["results"], ref["results"]))
        check(worst < 1e-4, f"{what}: scores off llama-server's by {worst}")
        scores = [r["relevance_score"] for r in got["results"]]
        check(scores == sorted(scores, reverse=True), f"{what}: not sorted by score: {scores}")
        documents = body["documents"]
        for r in got["results"]:
            if body.get("return_documents"):
                check(r.get("document") == {"text": documents[r["index"]]}, f"{what}: result {r}")
            else:
                check("document" not in r, f"{what}: a document without return_documents: {r}")
        log(f"{what}: {len(order)} results, order = llama-server's, scores within {worst:.2g}, "
            f"{got['usage']['prompt_tokens']} tokens")
    check(len({round(r["relevance_score"], 6) for r in got["results"]}) > 1, "every document scores alike")


def compare(ctx, model):
    want = llama_server_answers(ctx, model)
    with ctx.wasinn([(NAME, model)]) as server:
        check_answers(server, NAME, want)


def case_rerank(ctx):
    compare(ctx, ctx.fixture("reranker/reranker.gguf"))


def case_template(ctx):
    compare(ctx, ctx.fixture("reranker/reranker-template.gguf"))


def f32s(text):
    raw = base64.b64decode(text)
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def case_embeddings(ctx):
    import openai
    model = ctx.fixture("llama/tiny.gguf")
    texts = ["hello world", "a second text"]
    with ctx.llama_server(model, ["--embedding", "--pooling", "last"]) as ls:
        status, ref = post(ls, "/v1/embeddings", {"input": texts, "encoding_format": "base64"})
        check(status == 200, f"llama-server: {status} {ref}")
    want = [f32s(d["embedding"]) for d in sorted(ref["data"], key=lambda d: d["index"])]
    with ctx.wasinn([("emb", model)]) as server:
        status, raw = post(server, "/v1/embeddings", {"model": "emb", "input": texts, "encoding_format": "base64"})
        check(status == 200, f"base64: {status} {raw}")
        status, floats = post(server, "/v1/embeddings", {"model": "emb", "input": texts, "encoding_format": "float"})
        check(status == 200, f"float: {status} {floats}")
        for b, f, ref_values, t in zip(raw["data"], floats["data"], want, texts):
            check(isinstance(b["embedding"], str), f"base64 gave {type(b['embedding'])}")
            got = f32s(b["embedding"])
            check(got == [struct.unpack("<f", struct.pack("<f", x))[0] for x in f["embedding"]],
                  f"{t!r}: base64 decodes to other values than the float answer")
            worst = max(abs(a - b) for a, b in zip(got, ref_values))
            check(len(got) == len(ref_values) and worst < 1e-5,
                  f"{t!r}: {len(got)} values, off llama-server's base64 by {worst}")
        c = openai.OpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0, timeout=120)
        r = c.embeddings.create(model="emb", input=texts)  # the client asks for base64 and decodes it
        check([d.embedding for d in r.data] == [f32s(d["embedding"]) for d in raw["data"]],
              "PyPI openai's decoded base64 differs")
        status, err = post(server, "/v1/embeddings", {"model": "emb", "input": "x", "encoding_format": "float16"})
        check(status == 400 and "encoding_format" in err["error"]["message"], f"float16: {status} {err}")
    log(f"embeddings: base64 = float = llama-server's base64 ({len(want[0])} values)")


def case_errors(ctx):
    reranker, chat = ctx.fixture("reranker/reranker.gguf"), ctx.fixture("llama/tiny.gguf")
    good = {"model": NAME, "query": QUERY, "documents": DOCUMENTS[:3]}
    long_doc = " ".join(f"word{i}" for i in range(600))  # over 512 tokens with the query
    cases = [
        ("an unknown field", dict(good, texts=["a"]), "Unrecognized request argument supplied: texts", "texts"),
        ("no query", {"model": NAME, "documents": ["a"]}, "you must provide a query", "query"),
        ("a query that is a list", dict(good, query=["a"]), "query must be a string", "query"),
        ("no documents", {"model": NAME, "query": "q"}, "you must provide documents", "documents"),
        ("empty documents", dict(good, documents=[]), "documents must be a non-empty list", "documents"),
        ("documents a string", dict(good, documents="a"), "documents must be a non-empty list", "documents"),
        ("an object document", dict(good, documents=["a", {"text": "b"}]), "documents[1] must be a string",
         "documents[1]"),
        ("a number document", dict(good, documents=[3]), "documents[0] must be a string", "documents[0]"),
        ("1001 documents", dict(good, documents=["a"] * 1001), "at most 1000", "documents"),
        ("top_n 0", dict(good, top_n=0), "top_n must be a positive integer", "top_n"),
        ("top_n -1", dict(good, top_n=-1), "top_n must be a positive integer", "top_n"),
        ("top_n a string", dict(good, top_n="2"), "top_n must be a positive integer", "top_n"),
        ("top_n true", dict(good, top_n=True), "top_n must be a positive integer", "top_n"),
        ("return_documents a string", dict(good, return_documents="yes"), "return_documents must be true or false",
         "return_documents"),
        ("model a number", dict(good, model=3), "model must be a string", "model"),
        ("a pair over one batch", dict(good, documents=["a", long_doc]), "documents[1]", "documents"),
        ("a chat model", dict(good, model="chat"), "is not a reranker", "model"),
    ]
    with ctx.wasinn([(NAME, reranker), ("chat", chat)]) as server:
        status, before = post(server, "/v1/rerank", good)
        check(status == 200, f"the good request: {status} {before}")
        for what, body, says, param in cases:
            status, err = post(server, "/v1/rerank", body)
            e = err.get("error", {})
            check(status == 400 and says in e.get("message", "") and e.get("param") == param,
                  f"{what}: {status} {err}, not a 400 saying {says!r} (param {param})")
            log(f"{what}: 400 {e['message']} ({e.get('code')})")
            status, after = post(server, "/v1/rerank", good)
            check(status == 200 and after["results"] == before["results"], f"after {what}: {status} {after}")
        status, err = post(server, "/v1/embeddings", {"model": NAME, "input": "x"})
        check(status == 400 and "is a reranker" in err["error"]["message"], f"embeddings of a reranker: {err}")
        log(f"embeddings of a reranker: 400 {err['error']['message']}")
        check(post(server, "/v1/rerank", good)[1]["results"] == before["results"], "the server reranks otherwise")
        check(server.proc.poll() is None, "the server exited")


CASES = {"rerank": case_rerank, "template": case_template, "embeddings": case_embeddings, "errors": case_errors}


def main():
    return case_main(__doc__, CASES, Ctx, required=("--llama-server",), optional=("--backend-dir",))


if __name__ == "__main__":
    sys.exit(main())
