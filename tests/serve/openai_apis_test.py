#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""OpenAI's Responses API and Anthropic's Messages API on the OpenAI-compatible component
(guest/components/http_openai_apis.cpp) under `wasinn serve`, driven by their own clients (PyPI
`openai`'s responses.*, PyPI `anthropic`'s messages.*), every answer checked against native
llama.cpp's greedy one on the tiny GGUF (the same reference as openai_test.py's chat case).

    openai_apis_test.py --case CASE --wasinn BUILD/bin/wasinn --guests BUILD/guests --fixtures DIR
                        --reference BUILD/bin/wasinn_llama_reference

Cases (ctest runs each as serve.openai-apis.CASE):
  responses    responses.create (instructions + input items) is the reference's text, status
               incomplete at max_output_tokens with its reason, usage in the Responses shape;
               responses.stream's deltas join to it, the events in order to response.incomplete
  messages     anthropic messages.create (system + messages) is the reference's text, stop_reason
               max_tokens, usage; messages.stream's text_stream joins to it and its final message
               agrees; count_tokens is the reference's prompt tokens; a stop sequence from the middle
               ends it with stop_reason stop_sequence naming it, whole and streamed; the key as
               x-api-key
  tools        on the Qwen 2.5 chat fixture, tool_choice required/any: the function_call item and the
               tool_use block (whole and streamed) are the chat endpoint's call on the same server
               (serve.openai-tools.* hold that equal to llama-server's), the round trips with the
               result answer as the chat's same history, count_tokens counts the tools
  metrics      the token metrics equal the usage both APIs' clients got, whole and streamed; each
               answer's access-log line has its route, 200 and no cut
  errors       what each API cannot honour is a 400 in its own shape, naming the field, raised as its
               client's BadRequestError: previous_response_id, store true, hosted tools, a chat field on
               /v1/responses; a missing max_tokens, an unknown field, a server tool on /v1/messages;
               a wrong key is anthropic.AuthenticationError

Exit status: 0 passed, 1 failed, 77 skipped.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from case_checks import Skipped, check  # noqa: E402
from openai_test import MESSAGES, chat_reference, client  # noqa: E402
from openai_test import main as openai_main  # noqa: E402
from serve_test import log  # noqa: E402

SYSTEM, USER = MESSAGES[0]["content"], MESSAGES[1]["content"]
KEY = "sk-apis-test"


def prompt_of(usage):
    """A Messages usage's prompt tokens: Anthropic's input_tokens leave out those read from the prompt
    cache (as llama-server's), which a repeated prompt has (issue 82)."""
    return usage.input_tokens + (usage.cache_read_input_tokens or 0)


def anthropic_client(server, api_key=KEY):
    try:
        import anthropic
    except ImportError:
        raise Skipped("PyPI's anthropic is not installed in this Python (scripts/deps/openai.pip)")
    return anthropic.Anthropic(base_url=server.url(""), api_key=api_key, max_retries=0, timeout=120)


def case_responses(ctx):
    ref = chat_reference(ctx, 16)
    cut = ref["n_tokens"] == 16
    with ctx.server() as server:
        c = client(server)
        r = c.responses.create(model="default", instructions=SYSTEM, input=[{"role": "user", "content": USER}],
                               max_output_tokens=16, temperature=0)
        check(r.output_text == ref["text"], f"responses.create: {r.output_text!r} != native {ref['text']!r}")
        check(r.status == ("incomplete" if cut else "completed"), f"status {r.status!r}")
        if cut:
            check(r.incomplete_details.reason == "max_output_tokens", f"incomplete_details {r.incomplete_details!r}")
        check(r.usage.input_tokens == ref["n_prompt"] and r.usage.output_tokens == ref["n_tokens"],
              f"usage {r.usage!r}")
        check(r.object == "response" and r.model == "default" and r.output[0].type == "message", f"envelope {r!r}")
        # A string input is the user's message.
        r1 = c.responses.create(model="default", instructions=SYSTEM, input=USER, max_output_tokens=16, temperature=0)
        check(r1.output_text == ref["text"], f"a string input: {r1.output_text!r}")

        deltas, kinds, final = [], [], None
        with c.responses.stream(model="default", instructions=SYSTEM, input=USER, max_output_tokens=16,
                                temperature=0) as stream:
            for event in stream:
                kinds.append(event.type)
                if event.type == "response.output_text.delta":
                    deltas.append(event.delta)
                if event.type in ("response.completed", "response.incomplete"):
                    final = event.response  # (get_final_response() takes only response.completed)
        check("".join(deltas) == ref["text"], f"streamed deltas {''.join(deltas)!r} != {ref['text']!r}")
        check(final is not None and final.output_text == ref["text"], f"the stream's final response: {final!r}")
        end = "response.incomplete" if cut else "response.completed"
        want_start = ["response.created", "response.in_progress", "response.output_item.added",
                      "response.content_part.added"]
        want_end = ["response.output_text.done", "response.content_part.done", "response.output_item.done", end]
        check(kinds[:4] == want_start and kinds[-4:] == want_end, f"the events: {kinds}")
        check(final.usage.output_tokens == ref["n_tokens"], f"the stream's usage {final.usage!r}")
    log(f"responses: create and stream equal native llama.cpp's greedy {ref['text']!r}, {len(kinds)} events")


def case_messages(ctx):
    ref = chat_reference(ctx, 16)
    cut = ref["n_tokens"] == 16
    with ctx.server(extra=["--api-key", KEY]) as server:
        c = anthropic_client(server)  # it sends the key as x-api-key
        # The client has no temperature (Anthropic's API dropped it); the server takes llama-server's.
        greedy = {"extra_body": {"temperature": 0}}
        m = c.messages.create(model="default", system=SYSTEM, messages=[{"role": "user", "content": USER}],
                              max_tokens=16, **greedy)
        text = "".join(b.text for b in m.content if b.type == "text")
        check(text == ref["text"], f"messages.create: {text!r} != native {ref['text']!r}")
        check(m.stop_reason == ("max_tokens" if cut else "end_turn"), f"stop_reason {m.stop_reason!r}")
        check(prompt_of(m.usage) == ref["n_prompt"] and m.usage.output_tokens == ref["n_tokens"],
              f"usage {m.usage!r}")
        check(m.role == "assistant" and m.type == "message" and m.model == "default", f"envelope {m!r}")

        with c.messages.stream(model="default", system=SYSTEM, messages=[{"role": "user", "content": USER}],
                               max_tokens=16, **greedy) as stream:
            streamed = "".join(stream.text_stream)
            final = stream.get_final_message()
        check(streamed == ref["text"], f"text_stream {streamed!r} != {ref['text']!r}")
        check(final.stop_reason == m.stop_reason and final.usage.output_tokens == ref["n_tokens"] and
              prompt_of(final.usage) == ref["n_prompt"], f"the stream's final message {final!r}")

        counted = c.messages.count_tokens(model="default", system=SYSTEM, messages=[{"role": "user", "content": USER}])
        check(counted.input_tokens == ref["n_prompt"], f"count_tokens {counted.input_tokens} != {ref['n_prompt']}")

        # A stop sequence from the middle of the answer: the text before it, stop_reason stop_sequence
        # and the sequence named, whole and streamed.
        text = ref["text"]
        stop = text[len(text) // 2:len(text) // 2 + 3]
        for streamed in (False, True):
            req = {"model": "default", "system": SYSTEM, "messages": [{"role": "user", "content": USER}],
                   "max_tokens": 16, "stop_sequences": ["\x01never", stop], **greedy}
            if streamed:
                with c.messages.stream(**req) as stream:
                    got = "".join(stream.text_stream)
                    s = stream.get_final_message()
            else:
                s = c.messages.create(**req)
                got = "".join(b.text for b in s.content if b.type == "text")
            check(got == text[:text.find(stop)] and s.stop_reason == "stop_sequence" and s.stop_sequence == stop,
                  f"stop_sequences {stop!r} (streamed: {streamed}): {got!r}, {s.stop_reason}, {s.stop_sequence!r}")
    log(f"messages: create, stream and count_tokens equal native llama.cpp's ({ref['text']!r}, "
        f"{ref['n_prompt']} prompt tokens), the key sent as x-api-key")


def case_errors(ctx):
    import anthropic
    import openai
    with ctx.server(extra=["--api-key", KEY]) as server:
        c = client(server, api_key=KEY)
        for kwargs, param in (({"previous_response_id": "resp_1"}, "previous_response_id"),
                              ({"store": True}, "store"),
                              ({"tools": [{"type": "web_search"}]}, "tools"),
                              ({"extra_body": {"messages": []}}, "messages")):
            try:
                c.responses.create(model="default", input=USER, max_output_tokens=4, **kwargs)
                check(False, f"responses.create with {kwargs} was answered")
            except openai.BadRequestError as e:
                check(e.body.get("param") == param, f"{kwargs}: param {e.body.get('param')!r}: {e.message}")
        a = anthropic_client(server)
        for kwargs, field in (({}, "max_tokens"),
                              ({"max_tokens": 4, "extra_body": {"foo": 1}}, "foo"),
                              ({"max_tokens": 4, "tools": [{"type": "web_search_20250305", "name": "web_search"}]},
                               "tools[0]")):
            try:
                a.messages.create(model="default", messages=[{"role": "user", "content": USER}], **kwargs)
                check(False, f"messages.create with {kwargs} was answered")
            except (anthropic.BadRequestError, TypeError) as e:
                if isinstance(e, TypeError):  # the client itself insists on max_tokens
                    check(field == "max_tokens", f"{kwargs}: {e}")
                    continue
                err = e.body.get("error", {}) if isinstance(e.body, dict) else {}
                check(e.body.get("type") == "error" and err.get("type") == "invalid_request_error" and
                      field in err.get("message", ""), f"{kwargs}: {e.body!r}")
        try:
            anthropic_client(server, api_key="sk-wrong").messages.create(
                model="default", max_tokens=4, messages=[{"role": "user", "content": USER}])
            check(False, "a wrong x-api-key was answered")
        except anthropic.AuthenticationError:
            pass
        # The Messages API's own 400 for a body without max_tokens, past the client's check.
        import http.client
        import json
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("POST", "/v1/messages", json.dumps({"model": "default", "messages": [
            {"role": "user", "content": USER}]}), {"x-api-key": KEY, "content-type": "application/json"})
        answer = conn.getresponse()
        body = json.loads(answer.read())
        check(answer.status == 400 and body["type"] == "error" and "max_tokens" in body["error"]["message"],
              f"no max_tokens: {answer.status} {body}")
    log("errors: each API's refusals in its own shape, naming the field, raised by its own client")


def case_tools(ctx):
    """Tool calls through both APIs on the Qwen 2.5 chat fixture equal the chat endpoint's on the same
    server (serve.openai-tools.qwen2.5 holds those equal to llama-server's): the call, whole and
    streamed, the round trip with its result, and count_tokens with tools."""
    import json
    from openai_tools_test import CALL_ID, TOOL_RESULT, WEATHER
    fixture = os.path.join(ctx.args.fixtures, "chat", "qwen2.5.gguf")
    if not os.path.exists(fixture):
        raise Skipped(f"no {fixture} (scripts/make_fixtures.py makes it)")
    fn = WEATHER["function"]
    with ctx.server(model=fixture, nn_options='{"threads": 1, "ctx-size": 4096}') as server:
        c = client(server)
        greedy = {"temperature": 0, "max_tokens": 128}
        chat = c.chat.completions.create(model="default", messages=MESSAGES, tools=[WEATHER], tool_choice="required",
                                         **greedy)
        call = chat.choices[0].message.tool_calls[0].function
        check(chat.choices[0].finish_reason == "tool_calls", f"the chat's reference: {chat!r}")

        # Responses: its function tools are flat, its calls function_call items.
        r_tool = {"type": "function", "name": fn["name"], "description": fn["description"],
                  "parameters": fn["parameters"]}
        r_req = {"model": "default", "instructions": SYSTEM, "tools": [r_tool], "tool_choice": "required",
                 "max_output_tokens": 128, "temperature": 0}
        r = c.responses.create(input=USER, **r_req)
        calls = [o for o in r.output if o.type == "function_call"]
        check(len(calls) == 1 and (calls[0].name, calls[0].arguments) == (call.name, call.arguments) and
              r.status == "completed", f"responses.create: {r.output!r} != the chat's {call!r}")
        args, done = "", None
        with c.responses.stream(input=USER, **r_req) as stream:
            for event in stream:
                if event.type == "response.function_call_arguments.delta":
                    args += event.delta
                if event.type == "response.completed":
                    done = event.response
        check(args == call.arguments and done is not None and done.output[-1].arguments == call.arguments,
              f"responses.stream: arguments {args!r}, final {done!r}")
        # The round trip: the call and its output fed back answer as the chat's same history does.
        history = MESSAGES + [{"role": "assistant", "content": None, "tool_calls": [
            {"id": CALL_ID, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}]},
            {"role": "tool", "tool_call_id": CALL_ID, "content": TOOL_RESULT}]
        chat2 = c.chat.completions.create(model="default", messages=history, tools=[WEATHER], tool_choice="auto",
                                          **greedy)
        m2 = chat2.choices[0].message
        r2 = c.responses.create(input=[{"role": "user", "content": USER},
                                       {"type": "function_call", "call_id": CALL_ID, "name": call.name,
                                        "arguments": call.arguments},
                                       {"type": "function_call_output", "call_id": CALL_ID, "output": TOOL_RESULT}],
                                **{**r_req, "tool_choice": "auto"})
        got = [(o.name, o.arguments) for o in r2.output if o.type == "function_call"]
        want = [(t.function.name, t.function.arguments) for t in m2.tool_calls or []]
        check(got == want and r2.output_text == (m2.content or "") and
              r2.usage.input_tokens == chat2.usage.prompt_tokens,
              f"the Responses round trip {r2.output!r} != the chat's {m2!r}")

        # Messages: tools with input_schema, calls as tool_use blocks with the arguments parsed.
        a = anthropic_client(server, api_key="unused")
        a_req = {"model": "default", "system": SYSTEM, "max_tokens": 128,
                 "tools": [{"name": fn["name"], "description": fn["description"], "input_schema": fn["parameters"]}],
                 "tool_choice": {"type": "any"}, "extra_body": {"temperature": 0}}
        m = a.messages.create(messages=[{"role": "user", "content": USER}], **a_req)
        uses = [b for b in m.content if b.type == "tool_use"]
        check(len(uses) == 1 and uses[0].name == call.name and uses[0].input == json.loads(call.arguments) and
              m.stop_reason == "tool_use" and prompt_of(m.usage) == chat.usage.prompt_tokens,
              f"messages.create: {m!r} != the chat's {call!r}")
        with a.messages.stream(messages=[{"role": "user", "content": USER}], **a_req) as stream:
            final = stream.get_final_message()
        streamed = [b for b in final.content if b.type == "tool_use"]
        check(len(streamed) == 1 and streamed[0].input == uses[0].input and final.stop_reason == "tool_use",
              f"messages.stream: {final!r}")
        turn = [{"role": "user", "content": USER},
                {"role": "assistant", "content": [{"type": "tool_use", "id": CALL_ID, "name": call.name,
                                                   "input": json.loads(call.arguments)}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": CALL_ID,
                                              "content": TOOL_RESULT}]}]
        m3 = a.messages.create(messages=turn, **{**a_req, "tool_choice": {"type": "auto"}})
        # Arguments re-serialized from `input` are compact JSON; the chat's history carries the
        # model's own text, so the reference is the chat with the same compact arguments.
        compact = json.dumps(json.loads(call.arguments), separators=(",", ":"))
        chat3 = c.chat.completions.create(model="default", tools=[WEATHER], tool_choice="auto", **greedy,
                                          messages=MESSAGES + [{"role": "assistant", "content": "", "tool_calls": [
                                              {"id": CALL_ID, "type": "function",
                                               "function": {"name": call.name, "arguments": compact}}]},
                                              {"role": "tool", "tool_call_id": CALL_ID, "content": TOOL_RESULT}])
        m4 = chat3.choices[0].message
        got = [(b.name, b.input) for b in m3.content if b.type == "tool_use"]
        want = [(t.function.name, json.loads(t.function.arguments)) for t in m4.tool_calls or []]
        text = "".join(b.text for b in m3.content if b.type == "text")
        check(got == want and text == (m4.content or "") and prompt_of(m3.usage) == chat3.usage.prompt_tokens,
              f"the Messages round trip {m3!r} != the chat's {m4!r}")
        counted = a.messages.count_tokens(model="default", system=SYSTEM, messages=[{"role": "user", "content": USER}],
                                          tools=a_req["tools"])
        check(counted.input_tokens == chat.usage.prompt_tokens,
              f"count_tokens with tools {counted.input_tokens} != the chat's prompt {chat.usage.prompt_tokens}")
    log(f"tools: {call.name}({call.arguments}) through responses.* and messages.* as through chat, whole and "
        "streamed; the round trips answer as the chat's; count_tokens counts the tools")


def case_metrics(ctx):
    """Both APIs are counted as chat is: the plugin's token metrics are the usage each client got
    (the end-of-generation token aside, which usage counts as llama-server's does), and each answer's
    access-log line has its route, 200 and no cut."""
    import urllib.request
    from openai_test import sample
    from serve_test import metrics_url, wait_lines
    with ctx.server(extra=["--metrics-addr", "127.0.0.1:0"]) as server:
        url = metrics_url(server)
        c, a = client(server), anthropic_client(server, api_key="unused")
        used = []
        r = c.responses.create(model="default", instructions=SYSTEM, input=USER, max_output_tokens=8, temperature=0)
        used.append((r.usage.input_tokens, r.usage.output_tokens))
        with c.responses.stream(model="default", instructions=SYSTEM, input=USER, max_output_tokens=6,
                                temperature=0) as stream:
            done = [e.response for e in stream if e.type in ("response.completed", "response.incomplete")][-1]
        used.append((done.usage.input_tokens, done.usage.output_tokens))
        m = a.messages.create(model="default", system=SYSTEM, messages=[{"role": "user", "content": USER}],
                              max_tokens=5, extra_body={"temperature": 0})
        used.append((prompt_of(m.usage), m.usage.output_tokens))
        with a.messages.stream(model="default", system=SYSTEM, messages=[{"role": "user", "content": USER}],
                               max_tokens=7, extra_body={"temperature": 0}) as stream:
            final = stream.get_final_message()
        used.append((prompt_of(final.usage), final.usage.output_tokens))
        stop_reasons = [r.status, done.status, m.stop_reason, final.stop_reason]
        check(stop_reasons == ["incomplete", "incomplete", "max_tokens", "max_tokens"],
              f"the answers ended otherwise than at their lengths: {stop_reasons} (no end token to leave aside)")
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        got = {k: sample(text, f"wasinn_nn_{k}_tokens_total", graph="default") for k in ("prompt", "generated")}
        want = {"prompt": sum(p for p, _ in used), "generated": sum(g for _, g in used)}
        check(got == want, f"the token metrics {got} != what the clients got {want}")
        for route in ("/v1/responses", "/v1/messages"):
            lines = wait_lines(server, rf"POST {route} 200 ", at_least=2)
            check(len(lines) == 2 and not any("cut:" in l for l in lines), f"{route}'s access-log lines: {lines}")
    log(f"metrics: {want} tokens counted for two Responses and two Messages answers, as their clients got them")


CASES = {"responses": case_responses, "messages": case_messages, "errors": case_errors, "tools": case_tools,
         "metrics": case_metrics}

if __name__ == "__main__":
    sys.exit(openai_main(CASES, __doc__))
