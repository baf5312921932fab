#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tool calls through `wasinn serve --openai FIXTURE` equal llama.cpp's own llama-server's
(`--jinja`, the same llama.cpp build, the same file), both driven by PyPI's `openai` client, on the
chat fixtures (scripts/fixtures/export_chat_gguf.py: tiny random-weight GGUFs carrying a real
published chat template and its special tokens, steered to open and end a call).

    openai_tools_test.py --case FIXTURE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                         --llama-server .deps/llamacpp-dl/bin/llama-server [--backend-dir DIR]
                         [--subject llama-server]

Cases (ctest runs each as serve.openai-tools.FIXTURE): qwen2.5, qwen3 (a thinking template:
reasoning_content too), hermes-2-pro, llama-3.1, mistral-nemo. Each sends the same requests to
both servers (greedy: temperature 0, seed 42; one thread, ctx 4096) and compares the answers:
  required    two tools, tool_choice "required": finish_reason, content (null, as OpenAI's, where
              llama-server says "" beside calls and no text), reasoning_content, the
              tool calls' types, names and arguments (not their ids: each server makes its own;
              both must be non-empty strings), usage; llama-server's answer must be a well-formed
              call (finish_reason tool_calls, a tool's name, arguments valid against its schema)
  stream      the same request streamed: the deltas reassembled (content, reasoning, each call's
              id, name and arguments by index) equal llama-server's (which equal its whole answer);
              the chunk shapes (which fields each
              delta carries, as the client's models show them, repeats merged) equal llama-server's
  named       one tool, tool_choice {"type": "function", "function": {"name": ...}} to wasinn and
              "required" to llama-server (which takes only strings there, and any other value as
              "auto"): the same answer, whole and streamed (the chunk shapes too); with two tools
              wasinn's call is the named one, its arguments valid (OpenAI's meaning of the object)
  round trip  the call (a fixed id, as Mistral's template wants 9 letters or digits) and a role
              "tool" result fed back, tool_choice "auto" (llama-3.1: "required"): the same greedy
              answer (Mistral: text; the others, steered after every generation prompt, call again,
              their arguments the greedy choice on the whole history) and prompt_tokens (the
              template rendered the history alike), whole and streamed (the chunk shapes too)
--subject llama-server puts a second llama-server in wasinn's place (the test's own sanity).

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import json
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from case_checks import Failure, Skipped, case_main, check  # noqa: E402
from serve_test import LlamaServer, Server, log  # noqa: E402

FIXTURES = ["qwen2.5", "qwen3", "hermes-2-pro", "llama-3.1", "mistral-nemo"]
THREADS, CTX, SEED = 1, 4096, 42
NN_OPTIONS = json.dumps({"threads": THREADS, "ctx-size": CTX})
MAX_TOKENS = 128  # a steered call takes 25 to 60 tokens; the cap only stops a runaway
# Bounded arguments (maxLength, enums), so random weights finish a call in a few tokens.
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "maxLength": 8},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city", "unit"]}}}
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Get the current time in a time zone",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string", "enum": ["UTC", "CET"]}},
                   "required": ["zone"]}}}
MESSAGES = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "What is the weather in Paris, and what time is it there?"}]
CALL_ID = "call12345"  # Mistral Nemo's template refuses ids that are not 9 letters or digits
TOOL_RESULT = json.dumps({"temperature": 21, "unit": "celsius"})
# Llama 3.1's template has no call marker, so llama.cpp sets no grammar for "auto", and llama-server
# answers 500 to the random text after the steered "{" (not a call): its round trip says "required".
ROUND_TRIP_CHOICE = {"llama-3.1": "required"}


def llama_server(binary, model, name="llama-server"):
    """llama.cpp's llama-server --jinja on the fixture, with the seed of the comparison."""
    return LlamaServer(binary, model, ["--seed", str(SEED)], threads=THREADS, ctx=CTX, name=name)


class Ctx:
    def __init__(self, args):
        self.args = args
        self.model = os.path.join(args.fixtures, "chat", f"{args.case}.gguf")
        if not os.path.exists(self.model):
            raise Skipped(f"no {self.model} (scripts/make_fixtures.py makes it)")
        if not os.access(args.llama_server, os.X_OK):
            raise Skipped(f"no {args.llama_server} (scripts/deps/llamacpp.sh builds it)")
        if args.subject == "wasinn":
            component = os.path.join(args.guests, "http_openai.component.wasm")
            if not os.path.exists(component):
                raise Skipped(f"no {component} (built with the HTTP component guests)")
        try:
            import jsonschema  # noqa: F401
            import openai  # noqa: F401
        except ImportError as e:
            raise Skipped(f"{e.name} is not installed in this Python (scripts/deps/*.pip)")

    def subject(self):
        if self.args.subject == "llama-server":
            return llama_server(self.args.llama_server, self.model, name="llama-server (subject)")
        extra = ["--env", f"NN_OPTIONS={NN_OPTIONS}"]
        if self.args.backend_dir:
            extra += ["--backend-dir", self.args.backend_dir]
        return Server([self.args.wasinn, "serve"], extra + ["--openai"], self.model, name="wasinn serve --openai")


def client(server):
    import openai
    return openai.OpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0, timeout=120)


def extra(obj, name):
    """A field the openai client's model does not declare (llama-server's reasoning_content)."""
    return (getattr(obj, "model_extra", None) or {}).get(name)


def whole(c, model, req):
    r = c.chat.completions.create(model=model, **req)
    choice = r.choices[0]
    m = choice.message
    calls = m.tool_calls or []
    # Beside tool calls and no text, OpenAI's message says content null, llama-server's "": the same
    # answer (wasinn says null, as OpenAI documents).
    content = None if calls and m.content == "" else m.content
    return {"finish_reason": choice.finish_reason, "content": content,
            "reasoning_content": extra(m, "reasoning_content"),
            "tool_calls": [{"type": t.type, "name": t.function.name, "arguments": t.function.arguments} for t in calls],
            "ids": [t.id for t in calls],
            "usage": {"prompt_tokens": r.usage.prompt_tokens, "completion_tokens": r.usage.completion_tokens}}


def shape(chunk):
    """Which fields one chunk's delta carries (None is absent), as the client's models show them."""
    if not chunk.choices:
        return ("usage",) if chunk.usage else ("empty",)
    choice = chunk.choices[0]
    d = choice.delta
    fields = [k for k in ("role", "content") if getattr(d, k) is not None]
    fields += [f"extra.{k}" for k, v in sorted((d.model_extra or {}).items()) if v is not None]
    for t in d.tool_calls or []:
        fields += [f"tool_calls[{t.index}].{k}" for k in ("id", "type") if getattr(t, k) is not None]
        if t.function is not None:
            fields += [f"tool_calls[{t.index}].function.{k}" for k in ("name", "arguments")
                       if getattr(t.function, k) is not None]
    if choice.finish_reason is not None:
        fields.append(f"finish_reason={choice.finish_reason}")
    return tuple(fields)


def streamed(c, model, req):
    """The stream reassembled as whole() reports an answer, and its chunks' shapes, repeats merged."""
    content = reasoning = None
    calls, finish, usage, shapes = {}, None, None, []
    for chunk in c.chat.completions.create(model=model, stream=True, stream_options={"include_usage": True}, **req):
        s = shape(chunk)
        if not shapes or shapes[-1] != s:
            shapes.append(s)
        if chunk.usage:
            usage = {"prompt_tokens": chunk.usage.prompt_tokens, "completion_tokens": chunk.usage.completion_tokens}
        for choice in chunk.choices:
            d = choice.delta
            if d.content is not None:
                content = (content or "") + d.content
            r = extra(d, "reasoning_content")
            if r is not None:
                reasoning = (reasoning or "") + r
            for t in d.tool_calls or []:
                call = calls.setdefault(t.index, {"type": None, "name": "", "arguments": "", "id": None})
                call["type"] = call["type"] or t.type
                call["id"] = call["id"] or t.id
                if t.function is not None:
                    call["name"] += t.function.name or ""
                    call["arguments"] += t.function.arguments or ""
            finish = choice.finish_reason or finish
    ordered = [calls[i] for i in sorted(calls)]
    answer = {"finish_reason": finish, "content": content, "reasoning_content": reasoning,
              "tool_calls": [{k: t[k] for k in ("type", "name", "arguments")} for t in ordered],
              "ids": [t["id"] for t in ordered], "usage": usage}
    return answer, shapes


def both(fn, ref, sub):
    """fn(server) on both servers at once (2 cores; greedy answers do not depend on timing)."""
    out, errors = {}, {}

    def run(key, server):
        try:
            out[key] = fn(server)
        except Exception as e:  # noqa: BLE001 - reported below with the server's name
            errors[key] = e

    threads = [threading.Thread(target=run, args=(k, s)) for k, s in (("ref", ref), ("sub", sub))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key, name in (("ref", "llama-server"), ("sub", "the subject")):
        if key in errors:
            raise Failure(f"{name} failed: {type(errors[key]).__name__}: {errors[key]}")
    return out["ref"], out["sub"]


class Report:
    """Every mismatch of a case, each with its request and both answers, failed together at the end."""

    def __init__(self):
        self.mismatches = []

    def compare(self, what, req, ref, sub,
                keys=("finish_reason", "content", "reasoning_content", "tool_calls", "usage")):
        diff = [k for k in keys if ref.get(k) != sub.get(k)]
        if diff:
            self.mismatches.append(f"{what}: {', '.join(diff)} differ\n  request: {json.dumps(req)}\n"
                                   f"  llama-server: {json.dumps({k: ref.get(k) for k in keys})}\n"
                                   f"  subject:      {json.dumps({k: sub.get(k) for k in keys})}")
        else:
            log(f"{what}: equal ({json.dumps({k: ref.get(k) for k in keys if ref.get(k) is not None})})")
        return not diff

    def shapes(self, what, req, ref, sub):
        if ref != sub:
            self.mismatches.append(f"{what}: the chunk shapes differ\n  request: {json.dumps(req)}\n"
                                   f"  llama-server: {ref}\n  subject:      {sub}")
        else:
            log(f"{what}: chunk shapes equal: {ref}")

    def ids(self, what, answer):
        if not all(isinstance(i, str) and i for i in answer["ids"]):
            self.mismatches.append(f"{what}: tool call ids {answer['ids']!r} are not non-empty strings")

    def done(self):
        if self.mismatches:
            raise Failure(f"{len(self.mismatches)} mismatch(es):\n" + "\n".join(self.mismatches))


def well_formed(answer, tools, what, who="llama-server"):
    """WHO's answer is a call of one of TOOLS (llama-server's own: the test means nothing on a fixture
    that writes text)."""
    import jsonschema
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    check(answer["finish_reason"] == "tool_calls" and answer["tool_calls"],
          f"{what}: {who} made no tool call{' (the fixture steers none?)' if who == 'llama-server' else ''}: "
          f"{json.dumps(answer)}")
    for call in answer["tool_calls"]:
        check(call["type"] == "function" and call["name"] in schemas, f"{what}: {who}'s call {call}")
        try:
            jsonschema.validate(json.loads(call["arguments"]), schemas[call["name"]])
        except (ValueError, jsonschema.ValidationError) as e:
            raise Failure(f"{what}: {who}'s arguments {call['arguments']!r}: {e}")


def case_fixture(ctx):
    name = ctx.args.case
    report = Report()
    with llama_server(ctx.args.llama_server, ctx.model) as ref, ctx.subject() as sub:
        models = {ref: client(ref).models.list().data[0].id, sub: client(sub).models.list().data[0].id}

        def on_both(ask, req_ref, req_sub=None):
            return both(lambda s: ask(client(s), models[s], req_ref if s is ref else req_sub or req_ref), ref, sub)

        greedy = {"temperature": 0, "seed": SEED, "max_tokens": MAX_TOKENS}

        # tool_choice "required", two tools: whole, then streamed.
        req = {"messages": MESSAGES, "tools": [WEATHER, TIME], "tool_choice": "required", **greedy}
        want, got = on_both(whole, req)
        well_formed(want, [WEATHER, TIME], f"{name} required")
        report.compare(f"{name} required", req, want, got)
        report.ids(f"{name} required", got)
        (want_s, want_shapes), (got_s, got_shapes) = on_both(streamed, req)
        # Its stream sends no content beside calls (whole(): null, as OpenAI's).
        same = {**want_s, "ids": None} == {**want, "ids": None}
        check(same and all(want_s["ids"]),
              f"{name}: llama-server's stream {json.dumps(want_s)} is not its whole answer {json.dumps(want)}")
        report.compare(f"{name} required, streamed", req, want_s, got_s)
        report.ids(f"{name} required, streamed", got_s)
        report.shapes(f"{name} required, streamed", req, want_shapes, got_shapes)

        # A named function: llama-server takes only a string tool_choice, so it gets "required" with
        # that one tool, which is the same constraint.
        named = {"type": "function", "function": {"name": "get_time"}}
        req_ref = {"messages": MESSAGES, "tools": [TIME], "tool_choice": "required", **greedy}
        # (A llama-server in wasinn's place, --subject llama-server, gets "required" too.)
        req_sub = {**req_ref, "tool_choice": named} if ctx.args.subject == "wasinn" else req_ref
        want, got = on_both(whole, req_ref, req_sub)
        well_formed(want, [TIME], f"{name} named")
        report.compare(f"{name} named (one tool)", req_sub, want, got)
        (want_s, want_shapes), (got_s, got_shapes) = on_both(streamed, req_ref, req_sub)
        report.compare(f"{name} named (one tool), streamed", req_sub, want_s, got_s)
        report.shapes(f"{name} named (one tool), streamed", req_sub, want_shapes, got_shapes)
        # With both tools the subject's call is the named one (a known answer; llama-server, which
        # takes the object as "auto", has none).
        req_two = {**req_sub, "tools": [WEATHER, TIME]}
        if ctx.args.subject == "wasinn":
            got = whole(client(sub), models[sub], req_two)
            try:
                well_formed(got, [TIME], f"{name} named (two tools)", who="the subject")
            except Failure as e:
                report.mismatches.append(f"{e}\n  request: {json.dumps(req_two)}\n  subject: {json.dumps(got)}")

        # Round trip: llama-server's call, a role "tool" result, and the answer to that.
        call = want["tool_calls"][0]
        history = MESSAGES + [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": CALL_ID, "type": "function",
                 "function": {"name": call["name"], "arguments": call["arguments"]}}]},
            {"role": "tool", "tool_call_id": CALL_ID, "content": TOOL_RESULT}]
        req = {"messages": history, "tools": [WEATHER, TIME], "tool_choice": ROUND_TRIP_CHOICE.get(name, "auto"),
               **greedy}
        want, got = on_both(whole, req)
        report.compare(f"{name} round trip", req, want, got)
        (want_s, want_shapes), (got_s, got_shapes) = on_both(streamed, req)
        report.compare(f"{name} round trip, streamed", req, want_s, got_s)
        report.shapes(f"{name} round trip, streamed", req, want_shapes, got_shapes)
    report.done()


CASES = {name: case_fixture for name in FIXTURES}


def main():
    return case_main(__doc__, CASES, Ctx, required=("--llama-server",), optional=("--backend-dir",), choices=FIXTURES,
                     extra=lambda p: p.add_argument("--subject", choices=["wasinn", "llama-server"], default="wasinn"))


if __name__ == "__main__":
    sys.exit(main())
