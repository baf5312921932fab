// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The assistant message of a chat's answer, parsed from the text generated so far by llama.cpp's
// own per-format parser (common_chat_parse), as llama-server parses it: partial while the answer
// grows, whole once it ended. Tool-call ids are made once and kept, as llama-server keeps them.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct common_chat_parser_params;
struct common_chat_msg;

namespace wasinn::llamacpp {

class ChatReply {
 public:
  // `stops`: the chat's stop strings; a partial parse leaves out a tail that may become one.
  ChatReply(std::shared_ptr<const common_chat_parser_params> params, std::vector<std::string> stops);
  ~ChatReply();
  ChatReply(const ChatReply&) = delete;
  ChatReply& operator=(const ChatReply&) = delete;

  // Parses `text` (the generation so far; `ended`: it is whole). A partial parse only ever
  // extends the message: one that would take text back (llama.cpp's partial parse can, when
  // what looked like content turns out to start a tool call) is held until it extends it again.
  void update(const std::string& text, bool ended);

  // The message in OpenAI's shape as llama-server writes it ({"role": "assistant", "content":
  // ..., "reasoning_content": ..., "tool_calls": [...]}), JSON text.
  const std::string& json() const { return json_; }
  bool has_tool_calls() const;
  // Why the whole text did not parse ("" when it did); the message is then the last partial one.
  const std::string& parse_error() const { return parse_error_; }

 private:
  void publish(common_chat_msg&& msg);

  std::shared_ptr<const common_chat_parser_params> params_;
  std::vector<std::string> stops_;
  std::unique_ptr<common_chat_msg> msg_;
  std::vector<std::string> ids_;  // tool-call ids, by index
  std::string json_;
  std::string parse_error_;
  std::string parsed_text_;  // what msg_ was parsed from, so an unchanged text is not parsed twice
  bool parsed_ended_ = false;
};

}  // namespace wasinn::llamacpp
