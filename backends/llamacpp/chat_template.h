// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Input 2, "messages": a chat made the prompt by llama.cpp's own chat layer (common/chat.h), as
// llama-server --jinja does: the model's Jinja template (tokenizer.chat_template, or the operator's
// "chat-template"), OpenAI's messages, tools and tool_choice, and from them the grammar, its lazy
// triggers and the parser of the answer. Only this file and chat_message.cpp include chat.h.
//
// Input 2 is either a JSON array of OpenAI chat messages, or an object:
//   {"messages": [...], "tools": [...], "tool_choice": "auto"|"none"|"required"|{"type": "function",
//    "function": {"name": ...}}, "parallel_tool_calls": bool, "chat_template_kwargs": {...},
//    "reasoning_format": "none"|"auto"|"deepseek"|"deepseek-legacy"}
// (docs/backends/llamacpp.md has the contract).
#pragma once

#include <llama.h>

#include <memory>
#include <string>
#include <string_view>

#include "config.h"
#include "token_stream.h"
#include "wasinn/plugin_sdk/error.hpp"

struct common_chat_templates;
struct common_chat_parser_params;

namespace wasinn::llamacpp {

// A graph's templates, parsed once at load.
class ChatTemplates {
 public:
  // The model's template, or `override_source` (a Jinja text) when not empty. An override that
  // does not parse is INVALID_ARGUMENT naming `origin` (the config key it came from); a model's
  // own that does not parse is kept as an error that input 2 reports, so the model still serves
  // prompts on input 0.
  static Error init(const llama_model* model, const std::string& override_source, std::string_view origin,
                    std::unique_ptr<ChatTemplates>& out);
  ~ChatTemplates();
  const common_chat_templates* get() const { return templates_; }
  const std::string& error() const { return error_; }
  bool supports_thinking() const { return supports_thinking_; }

 private:
  common_chat_templates* templates_ = nullptr;
  bool supports_thinking_ = false;
  std::string error_;  // why the model's template could not be used, when templates_ is null
};

// What the chat layer made of one input 2: the prompt, how to sample its answer and how to parse it.
struct ChatTurn {
  std::string prompt;
  // The messages' images (an inline tag's bytes, in order), each a "media_marker" content part's
  // (llama.cpp's, what the OpenAI component sends for an image_url part); the prompt holds
  // media_marker() (vision.h) where the template put each. Text is never an image here.
  std::vector<std::string> images;
  ChatConstraints constraints;
  std::shared_ptr<const common_chat_parser_params> parser;
};

// `options` gives "grammar"/"json-schema", passed on as llama-server passes its request's
// grammar and json_schema. Malformed input, a Jinja error or a refusal of llama.cpp's (it
// throws) is INVALID_ARGUMENT naming the cause; a grammar from tools past kMaxGrammarBytes too.
Error format_chat(const ChatTemplates& templates, const llama_vocab* vocab, std::string_view input,
                  const LlamaOptions& options, ChatTurn& out);

}  // namespace wasinn::llamacpp
