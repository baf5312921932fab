// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenAI's Responses API (POST /v1/responses) over the chat completions the guest already serves:
// a request becomes a chat request, and the chat's answer (whole, or its stream of
// chat.completion.chunk objects) becomes a Response, or the Responses event sequence. Stateless:
// nothing is stored, so previous_response_id and item references are refused. Pure (nlohmann/json
// only), as openai_request.h, so it runs natively in tests and the fuzz target. Never throws.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "openai_request.h"

namespace openai {
namespace responses_api {

// The Responses `body` as a chat completions body (then checked by parse_request like any other):
// true with `chat`, false with `why`.
bool to_chat(const json& body, json& chat, Refusal& why);

// A whole chat.completion (with its usage) as the Response object; `request` is the Responses
// body (echoed fields: tools, tool_choice, instructions ...).
json from_chat(const json& completion, const json& request);

// The Responses event sequence from a chat stream's chunks: each call returns the server-sent
// events to write ("event: TYPE\ndata: JSON\n\n"...), numbered in order.
class EventStream {
 public:
  EventStream(const json& request, std::string id, std::string model, uint64_t created);
  // response.created and response.in_progress.
  std::string begin();
  // One chat.completion.chunk: its deltas as the items they open, extend and close.
  std::string chunk(const json& chunk);
  // The end: the open item closed, then response.completed (response.incomplete when the answer
  // was cut at its length: finish_reason "length").
  std::string finish(const std::string& finish_reason, const json& usage);
  // A failure after the stream began: the error event and response.failed.
  std::string fail(const std::string& code, const std::string& message);

 private:
  enum class Item { none, reasoning, message, function_call };
  std::string event(const std::string& type, json data);
  std::string open(Item kind, const json& tool_call);
  std::string close();
  json response(const std::string& status) const;

  json request_;
  std::string id_, model_;
  uint64_t created_;
  int64_t sequence_ = 0;
  Item open_ = Item::none;
  json item_;         // the open item as output_item.done will show it
  std::string text_;  // its text or arguments so far
  std::vector<json> output_;
  size_t calls_ = 0;  // the chat's tool calls opened so far (their indices)
  int items_ = 0;     // ids of this response's items: <prefix>_<id>_<n>
};

}  // namespace responses_api
}  // namespace openai
