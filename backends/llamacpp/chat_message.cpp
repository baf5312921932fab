// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "chat_message.h"

#include <chat.h>

#include <exception>
#include <random>
#include <utility>

namespace wasinn::llamacpp {
namespace {

// llama-server's gen_tool_call_id: 32 random letters and digits.
std::string tool_call_id() {
  static const std::string chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::random_device rd;
  std::mt19937 gen(rd());
  std::string id(32, ' ');
  for (char& c : id) c = chars[gen() % chars.size()];
  return id;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// `next` only adds to `prev`: text appended, tool calls appended or their arguments grown, a
// call's name set once.
bool extends(const common_chat_msg& prev, const common_chat_msg& next) {
  if (!starts_with(next.content, prev.content) || !starts_with(next.reasoning_content, prev.reasoning_content))
    return false;
  if (next.tool_calls.size() < prev.tool_calls.size()) return false;
  for (size_t i = 0; i < prev.tool_calls.size(); ++i) {
    const auto &a = prev.tool_calls[i], &b = next.tool_calls[i];
    if ((!a.name.empty() && a.name != b.name) || a.id != b.id || !starts_with(b.arguments, a.arguments)) return false;
  }
  return true;
}

// The text without a tail that may still grow into a stop string (llama-server holds such a
// tail back from the stream too), so a stop found later never takes content back.
std::string without_partial_stop(const std::string& text, const std::vector<std::string>& stops) {
  size_t keep = text.size();
  for (const auto& stop : stops) {
    for (size_t n = std::min(stop.size() - (stop.empty() ? 0 : 1), text.size()); n > 0; --n) {
      if (text.compare(text.size() - n, n, stop, 0, n) == 0) {
        keep = std::min(keep, text.size() - n);
        break;
      }
    }
  }
  return text.substr(0, keep);
}

// The text without a last UTF-8 character whose bytes have not all come yet (a token can end
// inside one), as llama-server holds such a tail back: parsed now it would read as U+FFFD, and
// the next token would change that text instead of extending it.
size_t complete_utf8(const std::string& text) {
  for (size_t back = 1; back <= 4 && back <= text.size(); ++back) {
    const auto c = static_cast<unsigned char>(text[text.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    return need > back ? text.size() - back : text.size();
  }
  return text.size();
}

}  // namespace

ChatReply::ChatReply(std::shared_ptr<const common_chat_parser_params> params, std::vector<std::string> stops)
    : params_(std::move(params)), stops_(std::move(stops)), msg_(std::make_unique<common_chat_msg>()) {
  msg_->role = "assistant";
  json_ = msg_->to_json_oaicompat().dump_safe();
}

ChatReply::~ChatReply() = default;

bool ChatReply::has_tool_calls() const { return !msg_->tool_calls.empty(); }

void ChatReply::publish(common_chat_msg&& msg) {
  // Ids as llama-server sets them: the format's own, else one made at the call's first sight.
  for (size_t i = 0; i < msg.tool_calls.size(); ++i) {
    if (ids_.size() <= i) ids_.push_back(msg.tool_calls[i].id.empty() ? tool_call_id() : msg.tool_calls[i].id);
    msg.tool_calls[i].id = ids_[i];
  }
  *msg_ = std::move(msg);
  json_ = msg_->to_json_oaicompat().dump_safe();
}

void ChatReply::update(const std::string& generated, bool ended) {
  std::string text = ended ? generated : without_partial_stop(generated, stops_);
  if (!ended) text.resize(complete_utf8(text));
  if (text == parsed_text_ && ended == parsed_ended_) return;
  parsed_text_ = text;
  parsed_ended_ = ended;
  common_chat_msg msg;
  try {
    msg = common_chat_parse(text, /*is_partial=*/!ended, *params_);
  } catch (const std::exception& e) {
    // Partial: the text so far is not yet parseable, the message stays. Whole: llama-server
    // fails the request with this; here the message stays the last partial one.
    if (ended) parse_error_ = e.what();
    return;
  }
  parse_error_.clear();
  if (msg.empty()) return;  // as llama-server: an empty parse keeps the message
  // Ids are assigned before comparing, so a call's id never counts as a change.
  for (size_t i = 0; i < msg.tool_calls.size() && i < ids_.size(); ++i) msg.tool_calls[i].id = ids_[i];
  if (!ended && !extends(*msg_, msg)) return;
  publish(std::move(msg));
}

}  // namespace wasinn::llamacpp
