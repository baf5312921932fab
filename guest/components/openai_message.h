// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The assistant message the llama.cpp plugin parses from an answer so far (its metadata's
// "message" when the messages went in the object form: tools, tool calls), and what one message
// adds to the one before, as llama-server streams it (common_chat_msg_diff and
// server_chat_msg_diff_to_json_oaicompat): reasoning_content, content, then each tool call's id and
// name in its first delta and its arguments in pieces. Pure, like openai_request.h.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace openai {

using json = nlohmann::ordered_json;  // as openai_request.h's

struct ToolCall {
  std::string id, name, arguments;
};

struct Message {
  std::string content, reasoning;
  std::vector<ToolCall> tool_calls;
};

// The plugin's metadata "message" ({"role": "assistant", "content", "reasoning_content"?,
// "tool_calls"?}); false when `metadata` has none of that shape.
bool read_message(const json& metadata, Message& m);

// What `after` adds to `before`: the text appended to each, and one delta per tool call that
// changed ({"index", "id"?, "type"?, "function": {"name"?, "arguments"?}}). False when `after`
// does not extend `before` (a tool call gone, a text rewritten): nothing is sent for it.
struct MessageDelta {
  std::string reasoning, content;
  std::vector<json> tool_calls;
};
bool diff_messages(const Message& before, const Message& after, MessageDelta& d);

// The whole message for a non-streamed answer, its content given (the stop texts applied): null
// when empty beside tool calls, as OpenAI sends it.
json message_json(const Message& m, const std::string& content);

}  // namespace openai
