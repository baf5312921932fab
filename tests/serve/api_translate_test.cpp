// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Responses and Messages APIs' translation to and from chat completions (guest/components/
// openai_responses.cpp, anthropic_messages.cpp), natively: requests as llama-server converts them
// (tools/server/server-chat.cpp), what it would drop refused, and the event sequences each API's
// own client reads. The end-to-end tests with the `openai` and `anthropic` clients are in
// openai_test.py.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "anthropic_messages.h"
#include "openai_responses.h"

namespace {

using openai::json;  // ordered, as the guest's: equal only in the same key order, so compare with plain()
using openai::Refusal;

// `j` as nlohmann::json, whose objects are equal whatever their keys' order.
nlohmann::json plain(const json& j) { return nlohmann::json::parse(j.dump()); }

// "event: T\ndata: {...}\n\n"... as (T, data).
std::vector<std::pair<std::string, json>> events(const std::string& sse) {
  std::vector<std::pair<std::string, json>> out;
  size_t at = 0;
  while (at < sse.size()) {
    const size_t end = sse.find("\n\n", at);
    const std::string block = sse.substr(at, end - at);
    at = end == std::string::npos ? sse.size() : end + 2;
    const size_t nl = block.find('\n');
    EXPECT_EQ(block.rfind("event: ", 0), 0u) << block;
    EXPECT_EQ(block.compare(nl + 1, 6, "data: "), 0) << block;
    out.emplace_back(block.substr(7, nl - 7), json::parse(block.substr(nl + 7)));
    EXPECT_EQ(out.back().second.value("type", ""), out.back().first) << "the data's type is the event's";
  }
  return out;
}

std::vector<std::string> types(const std::vector<std::pair<std::string, json>>& evs) {
  std::vector<std::string> t;
  for (const auto& e : evs) t.push_back(e.first);
  return t;
}

json chunk(json delta) { return {{"choices", json::array({{{"index", 0}, {"delta", std::move(delta)}}})}}; }

TEST(ResponsesRequest, InputAndInstructionsBecomeMessages) {
  json chat;
  Refusal why;
  ASSERT_TRUE(openai::responses_api::to_chat(
      {{"model", "m"}, {"input", "hi"}, {"instructions", "be brief"}, {"max_output_tokens", 16}, {"top_k", 1}}, chat,
      why))
      << why.message;
  EXPECT_EQ(plain(chat["messages"]),
            nlohmann::json::parse(R"([{"role":"system","content":"be brief"},{"role":"user","content":"hi"}])"));
  EXPECT_EQ(chat["max_completion_tokens"], 16);
  EXPECT_EQ(chat["model"], "m");
  EXPECT_EQ(chat["top_k"], 1) << "llama-server's extras pass to the chat's checks";
}

TEST(ResponsesRequest, ToolRoundTripItems) {
  const json body = json::parse(R"({
    "input": [
      {"role": "developer", "content": "use tools"},
      {"role": "user", "content": [{"type": "input_text", "text": "weather in Paris?"}]},
      {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
      {"type": "function_call_output", "call_id": "c1", "output": "sunny"}],
    "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": true}],
    "tool_choice": {"type": "function", "name": "get_weather"},
    "text": {"format": {"type": "json_schema", "name": "w", "schema": {"type": "object"}}},
    "stream": true, "store": false, "parallel_tool_calls": false})");
  json chat;
  Refusal why;
  ASSERT_TRUE(openai::responses_api::to_chat(body, chat, why)) << why.message;
  ASSERT_EQ(chat["messages"].size(), 4u);
  EXPECT_EQ(plain(chat["messages"][0]), nlohmann::json::parse(R"({"role": "system", "content": "use tools"})"));
  EXPECT_EQ(plain(chat["messages"][1]), nlohmann::json::parse(R"({"role": "user", "content": "weather in Paris?"})"));
  EXPECT_EQ(plain(chat["messages"][2]), nlohmann::json::parse(R"({"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]})"));
  EXPECT_EQ(plain(chat["messages"][3]),
            nlohmann::json::parse(R"({"role": "tool", "tool_call_id": "c1", "content": "sunny"})"));
  EXPECT_EQ(plain(chat["tools"]), nlohmann::json::parse(R"([{"type": "function", "function":
    {"name": "get_weather", "parameters": {"type": "object"}, "strict": true}}])"));
  EXPECT_EQ(plain(chat["tool_choice"]),
            nlohmann::json::parse(R"({"type": "function", "function": {"name": "get_weather"}})"));
  EXPECT_EQ(plain(chat["response_format"]["json_schema"]["schema"]), nlohmann::json::parse(R"({"type": "object"})"));
  EXPECT_EQ(plain(chat["stream_options"]), nlohmann::json::parse(R"({"include_usage": true})"))
      << "the usage for response.completed";
  EXPECT_EQ(chat["parallel_tool_calls"], false);
}

TEST(ResponsesRequest, WhatItCannotHonourIsRefusedNamingTheField) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"input", "x"}, {"previous_response_id", "resp_1"}}, "previous_response_id"},
      {{{"input", "x"}, {"store", true}}, "store"},
      {{{"input", "x"}, {"tools", json::parse(R"([{"type": "web_search"}])")}}, "tools"},
      {{{"input", "x"}, {"messages", json::array()}}, "messages"},
      {{{"input", "x"}, {"max_output_tokens", 0}}, "max_output_tokens"},
      {{{"input", json::parse(R"([{"type": "item_reference", "id": "msg_1"}])")}}, "input[0]"},
      {{{"input", json::parse(R"([{"role": "user", "content": [{"type": "input_file"}]}])")}}, "input[0].content"},
      {{{"input", "x"}, {"text", json::parse(R"({"format": {"type": "xml"}})")}}, "text.format"},
      {{{"input", "x"}, {"reasoning", json::parse(R"({"summary": "auto"})")}}, "reasoning.summary"},
      {{{"model", "m"}}, "input"},
  };
  for (const auto& [body, param] : cases) {
    json chat;
    Refusal why;
    EXPECT_FALSE(openai::responses_api::to_chat(body, chat, why)) << body.dump();
    EXPECT_EQ(why.status, 400);
    EXPECT_EQ(why.param, param) << body.dump() << ": " << why.message;
    EXPECT_FALSE(why.message.empty());
  }
}

const json kToolCompletion = json::parse(R"({
  "id": "chatcmpl-abc", "object": "chat.completion", "created": 7, "model": "m",
  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}}]}}],
  "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})");

TEST(ResponsesAnswer, AWholeCompletion) {
  const json r = openai::responses_api::from_chat(kToolCompletion, {{"input", "x"}, {"tool_choice", "required"}});
  EXPECT_EQ(r["object"], "response");
  EXPECT_EQ(r["status"], "completed");
  EXPECT_EQ(r["tool_choice"], "required");
  ASSERT_EQ(r["output"].size(), 1u);
  EXPECT_EQ(r["output"][0]["type"], "function_call");
  EXPECT_EQ(r["output"][0]["call_id"], "call_1");
  EXPECT_EQ(r["output"][0]["arguments"], "{\"a\":1}");
  EXPECT_EQ(r["usage"]["input_tokens"], 10);
  EXPECT_EQ(r["usage"]["total_tokens"], 15);
  json cut = kToolCompletion;
  cut["choices"][0] = {{"finish_reason", "length"}, {"message", {{"role", "assistant"}, {"content", "ab"}}}};
  const json c = openai::responses_api::from_chat(cut, json::object());
  EXPECT_EQ(c["status"], "incomplete");
  EXPECT_EQ(c["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(c["output"][0]["content"][0]["text"], "ab");
}

// The chat usage's prompt_tokens_details.cached_tokens (the plugin's prompt cache) as llama-server
// words it in each API: always there, 0 when nothing was cached or the field is missing or malformed.
json cached_usage(const json& details) {
  json u = {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}};
  if (!details.is_null()) u["prompt_tokens_details"] = details;
  return u;
}

TEST(ResponsesAnswer, CachedPromptTokens) {
  json completion = kToolCompletion;
  completion["usage"] = cached_usage({{"cached_tokens", 7}});
  const json r = openai::responses_api::from_chat(completion, {{"input", "x"}});
  EXPECT_EQ(r["usage"]["input_tokens"], 10) << "input_tokens counts the cached ones too, as OpenAI's";
  EXPECT_EQ(r["usage"]["input_tokens_details"]["cached_tokens"], 7);
  for (const json& none : {json(), json::object(), json("7"), json{{"cached_tokens", "7"}}}) {
    completion["usage"] = cached_usage(none);
    EXPECT_EQ(openai::responses_api::from_chat(completion, {{"input", "x"}})["usage"]["input_tokens_details"],
              json({{"cached_tokens", 0}}))
        << none.dump();
  }
  openai::responses_api::EventStream s(json{{"input", "x"}}, "resp_1", "m", 7);
  std::string sse = s.begin();
  sse += s.chunk(chunk({{"content", "a"}}));
  sse += s.finish("stop", cached_usage({{"cached_tokens", 7}}));
  const json done = events(sse).back().second["response"];
  EXPECT_EQ(done["usage"]["input_tokens"], 10);
  EXPECT_EQ(done["usage"]["input_tokens_details"]["cached_tokens"], 7);
}

TEST(ResponsesStream, TextThenAToolCallAsTheirItems) {
  openai::responses_api::EventStream s(json{{"input", "x"}}, "resp_1", "m", 7);
  std::string sse = s.begin();
  sse += s.chunk(chunk({{"role", "assistant"}, {"content", ""}}));
  sse += s.chunk(chunk({{"content", "Hel"}}));
  sse += s.chunk(chunk({{"content", "lo"}}));
  sse += s.chunk(chunk(json::parse(R"({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                         "function": {"name": "f", "arguments": ""}}]})")));
  sse += s.chunk(chunk(json::parse(R"({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\""}}]})")));
  sse += s.chunk(chunk(json::parse(R"({"tool_calls": [{"index": 0, "function": {"arguments": ":1}"}}]})")));
  sse += s.finish("tool_calls", {{"prompt_tokens", 3}, {"completion_tokens", 4}});
  const auto evs = events(sse);
  EXPECT_EQ(types(evs),
            (std::vector<std::string>{
                "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
                "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.output_item.added",
                "response.function_call_arguments.delta", "response.function_call_arguments.delta",
                "response.function_call_arguments.done", "response.output_item.done", "response.completed"}));
  for (size_t i = 0; i < evs.size(); ++i) EXPECT_EQ(evs[i].second["sequence_number"], i);
  EXPECT_EQ(evs[6].second["text"], "Hello");
  EXPECT_EQ(evs[9].second["output_index"], 1);
  EXPECT_EQ(evs[12].second["arguments"], "{\"a\":1}");
  const json done = evs.back().second["response"];
  EXPECT_EQ(done["status"], "completed");
  ASSERT_EQ(done["output"].size(), 2u);
  EXPECT_EQ(done["output"][1]["call_id"], "c1");
  EXPECT_EQ(done["usage"]["output_tokens"], 4);
}

TEST(ResponsesStream, AFailureAfterTheStart) {
  openai::responses_api::EventStream s(json::object(), "resp_1", "m", 7);
  std::string sse = s.begin();
  sse += s.chunk(chunk({{"content", "a"}}));
  sse += s.fail("timeout", "cut at the deadline");
  const auto evs = events(sse);
  EXPECT_EQ(evs[evs.size() - 2].first, "error");
  EXPECT_EQ(evs.back().first, "response.failed");
  EXPECT_EQ(evs.back().second["response"]["output"][0]["content"][0]["text"], "a");
}

TEST(MessagesRequest, BlocksBecomeChatMessages) {
  const json body = json::parse(R"({
    "model": "m", "max_tokens": 32, "system": [{"type": "text", "text": "sys"}],
    "messages": [
      {"role": "user", "content": "weather?"},
      {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "calling"},
        {"type": "tool_use", "id": "tu1", "name": "get_weather", "input": {"city": "Paris"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1",
        "content": [{"type": "text", "text": "sunny"}]}, {"type": "text", "text": "thanks"}]}],
    "tools": [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}],
    "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true},
    "stop_sequences": ["END"], "top_k": 1, "metadata": {"user_id": "u"}})");
  json chat;
  Refusal why;
  ASSERT_TRUE(openai::anthropic::to_chat(body, chat, why)) << why.message;
  EXPECT_EQ(plain(chat["messages"]), nlohmann::json::parse(R"([
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": "calling", "reasoning_content": "hmm", "tool_calls": [
      {"id": "tu1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "tu1", "content": "sunny"},
    {"role": "user", "content": "thanks"}])"));
  EXPECT_EQ(plain(chat["tools"][0]["function"]["parameters"]), nlohmann::json::parse(R"({"type": "object"})"));
  EXPECT_EQ(plain(chat["tool_choice"]),
            nlohmann::json::parse(R"({"type": "function", "function": {"name": "get_weather"}})"));
  EXPECT_EQ(chat["parallel_tool_calls"], false);
  EXPECT_EQ(plain(chat["stop"]), nlohmann::json::parse(R"(["END"])"));
  EXPECT_EQ(chat["max_tokens"], 32);
  EXPECT_EQ(chat["top_k"], 1);
}

TEST(MessagesRequest, RefusalsNameTheField) {
  const json msgs = json::parse(R"([{"role": "user", "content": "x"}])");
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"messages", msgs}}, "max_tokens"},
      {{{"messages", msgs}, {"max_tokens", 8}, {"foo", 1}}, "foo"},
      {{{"messages", msgs}, {"max_tokens", 8}, {"tools", json::parse(R"([{"type": "web_search_20250305",
                                                                        "name": "web_search"}])")}},
       "tools[0]"},
      {{{"messages", json::parse(R"([{"role": "user", "content": [{"type": "document"}]}])")}, {"max_tokens", 8}},
       "messages[0].content[0]"},
      {{{"messages", json::array()}, {"max_tokens", 8}}, "messages"},
  };
  for (const auto& [body, param] : cases) {
    json chat;
    Refusal why;
    EXPECT_FALSE(openai::anthropic::to_chat(body, chat, why)) << body.dump();
    EXPECT_EQ(why.param, param) << body.dump() << ": " << why.message;
  }
  json chat;
  Refusal why;
  EXPECT_TRUE(openai::anthropic::to_chat({{"messages", msgs}, {"model", "m"}}, chat, why, /*count_only=*/true))
      << "count_tokens needs no max_tokens: " << why.message;
}

TEST(MessagesAnswer, WholeAndErrors) {
  const json m = openai::anthropic::from_chat(kToolCompletion, "");
  EXPECT_EQ(m["type"], "message");
  EXPECT_EQ(m["stop_reason"], "tool_use");
  ASSERT_EQ(m["content"].size(), 1u);
  EXPECT_EQ(plain(m["content"][0]),
            nlohmann::json::parse(R"({"type": "tool_use", "id": "call_1", "name": "f", "input": {"a": 1}})"));
  EXPECT_EQ(m["usage"]["input_tokens"], 10);
  EXPECT_EQ(m["usage"]["output_tokens"], 5);
  EXPECT_EQ(openai::anthropic::stop_reason("stop", "END"), "stop_sequence");
  EXPECT_EQ(openai::anthropic::stop_reason("stop", ""), "end_turn");
  EXPECT_EQ(openai::anthropic::stop_reason("length", ""), "max_tokens");
  EXPECT_EQ(openai::anthropic::error_json(400, "bad")["error"]["type"], "invalid_request_error");
  EXPECT_EQ(openai::anthropic::error_json(401, "key")["error"]["type"], "authentication_error");
  EXPECT_EQ(openai::anthropic::error_json(504, "late")["error"]["type"], "timeout_error");
}

TEST(MessagesAnswer, CachedPromptTokens) {
  json completion = kToolCompletion;
  completion["usage"] = cached_usage({{"cached_tokens", 7}});
  const json m = openai::anthropic::from_chat(completion, "");
  // Anthropic's input_tokens are those after the last cache read (llama-server's: prompt - cached).
  EXPECT_EQ(m["usage"]["input_tokens"], 3);
  EXPECT_EQ(m["usage"]["cache_read_input_tokens"], 7);
  EXPECT_EQ(m["usage"]["cache_creation_input_tokens"], 0);
  EXPECT_EQ(m["usage"]["output_tokens"], 5);
  for (const json& none : {json(), json("7"), json{{"cached_tokens", nullptr}}}) {
    completion["usage"] = cached_usage(none);
    const json u = openai::anthropic::from_chat(completion, "")["usage"];
    EXPECT_EQ(u["input_tokens"], 10) << none.dump();
    EXPECT_EQ(u["cache_read_input_tokens"], 0) << none.dump();
  }
  openai::anthropic::EventStream s("msg_1", "m");
  std::string sse = s.begin(cached_usage({{"cached_tokens", 7}}));
  sse += s.chunk(chunk({{"content", "a"}}));
  sse += s.finish("stop", "", cached_usage({{"cached_tokens", 7}}));
  const auto evs = events(sse);
  const json start = evs.front().second["message"]["usage"];
  EXPECT_EQ(start["input_tokens"], 3);
  EXPECT_EQ(start["cache_read_input_tokens"], 7);
  EXPECT_EQ(start["output_tokens"], 0) << "message_start comes before any output";
  const json delta = evs[evs.size() - 2].second["usage"];
  EXPECT_EQ(delta["cache_read_input_tokens"], 7);
  EXPECT_EQ(delta["output_tokens"], 5);
}

TEST(MessagesStream, BlocksOpenAndCloseInOrder) {
  openai::anthropic::EventStream s("msg_1", "m");
  std::string sse = s.begin({{"prompt_tokens", 12}});
  sse += s.chunk(chunk({{"role", "assistant"}, {"reasoning_content", "think"}}));
  sse += s.chunk(chunk({{"content", "Hi"}}));
  sse += s.chunk(chunk(json::parse(R"({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                         "function": {"name": "f", "arguments": "{\"a\":"}}]})")));
  sse += s.chunk(chunk(json::parse(R"({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]})")));
  sse += s.finish("tool_calls", "", {{"prompt_tokens", 12}, {"completion_tokens", 6}});
  const auto evs = events(sse);
  EXPECT_EQ(types(evs), (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                                  "content_block_delta", "content_block_stop", "content_block_start",
                                                  "content_block_delta", "content_block_stop", "content_block_start",
                                                  "content_block_delta", "content_block_delta", "content_block_stop",
                                                  "message_delta", "message_stop"}));
  EXPECT_EQ(evs[0].second["message"]["usage"]["input_tokens"], 12);
  EXPECT_EQ(evs[3].second["delta"]["type"], "signature_delta") << "a thinking block ends with its signature";
  EXPECT_EQ(evs[8].second["index"], 2);
  EXPECT_EQ(evs[8].second["content_block"]["type"], "tool_use");
  EXPECT_EQ(evs[9].second["delta"]["partial_json"], "{\"a\":");
  EXPECT_EQ(evs[12].second["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(evs[12].second["usage"]["output_tokens"], 6);
}

}  // namespace

TEST(ImagesInOtherApis, InputImageAndImageBlocksBecomeImageUrlPartsAndRemoteOnesAreRefused) {
  json chat;
  Refusal why;
  ASSERT_TRUE(openai::responses_api::to_chat(json::parse(R"({"input": [{"role": "user", "content": [
      {"type": "input_text", "text": "what is it"},
      {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}]}]})"),
                                             chat, why))
      << why.message;
  const auto parts = nlohmann::json::parse(R"([{"type":"text","text":"what is it"},
      {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}])");
  EXPECT_EQ(plain(chat["messages"][0]["content"]), parts);
  // A remote URL goes on as chat's image_url, which fetches it under --image-urls or refuses it.
  const auto remote =
      nlohmann::json::parse(R"([{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}])");
  ASSERT_TRUE(openai::responses_api::to_chat(json::parse(R"({"input": [{"role": "user", "content": [
      {"type": "input_image", "image_url": "https://example.com/a.png"}]}]})"),
                                             chat, why))
      << why.message;
  EXPECT_EQ(plain(chat["messages"][0]["content"]), remote);

  ASSERT_TRUE(openai::anthropic::to_chat(json::parse(R"({"max_tokens": 8, "messages": [{"role": "user", "content": [
      {"type": "text", "text": "what is it"},
      {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]})"),
                                         chat, why))
      << why.message;
  EXPECT_EQ(plain(chat["messages"][0]["content"]), parts);
  ASSERT_TRUE(openai::anthropic::to_chat(json::parse(R"({"max_tokens": 8, "messages": [{"role": "user", "content": [
      {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]}]})"),
                                         chat, why))
      << why.message;
  EXPECT_EQ(plain(chat["messages"][0]["content"]), remote);
}
