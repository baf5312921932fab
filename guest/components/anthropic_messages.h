// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Anthropic's Messages API (POST /v1/messages, /v1/messages/count_tokens) over the chat completions
// the guest already serves: a request becomes a chat request, and the chat's answer (whole, or its
// stream of chat.completion.chunk objects) becomes a Message, or Anthropic's event sequence; errors
// take Anthropic's shape. Pure (nlohmann/json only), as openai_request.h. Never throws.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "openai_request.h"

namespace openai {
namespace anthropic {

// The Messages `body` as a chat completions body (then checked by parse_request): true with
// `chat`, false with `why`. `count_only`: /v1/messages/count_tokens, where max_tokens is not needed.
bool to_chat(const json& body, json& chat, Refusal& why, bool count_only = false);

// An error as Anthropic answers one: {"type": "error", "error": {"type": ..., "message": ...}}.
json error_json(int status, const std::string& message);

// A whole chat.completion as the Message; `stop` is the stop sequence that ended it ("" if none).
json from_chat(const json& completion, const std::string& stop);

// Anthropic's event sequence from a chat stream's chunks: each call returns the server-sent events
// to write ("event: TYPE\ndata: JSON\n\n"...).
class EventStream {
 public:
  EventStream(std::string id, std::string model) : id_(std::move(id)), model_(std::move(model)) {}
  // message_start, with the prompt's tokens from the chat's `usage` so far (as llama-server's:
  // input_tokens those not read from the prompt cache, cache_read_input_tokens those read).
  std::string begin(const json& usage);
  // One chat.completion.chunk: its deltas as content blocks, each closed before the next opens.
  std::string chunk(const json& chunk);
  // The open block closed, message_delta (stop_reason, stop_sequence, usage) and message_stop.
  std::string finish(const std::string& finish_reason, const std::string& stop, const json& usage);
  // A failure after the stream began: Anthropic's error event.
  std::string fail(int status, const std::string& message);

 private:
  enum class Block { none, thinking, text, tool_use };
  std::string event(const std::string& type, json data);
  std::string open(Block kind, const json& start);
  std::string close();

  std::string id_, model_;
  Block open_ = Block::none;
  int64_t index_ = -1;  // the open block's index
  size_t calls_ = 0;    // tool calls seen (the chat's tool-call indices)
};

// Anthropic's stop_reason for a chat finish_reason.
std::string stop_reason(const std::string& finish_reason, const std::string& stop);

}  // namespace anthropic
}  // namespace openai
