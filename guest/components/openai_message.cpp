// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// openai_message.h: the plugin's parsed assistant message, and its growth as stream deltas.
#include "openai_message.h"

namespace openai {
namespace {

std::string string_at(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_string()) return "";
  return o[key].get<std::string>();
}

// What `now` appends to `was`; false when it does not begin with it. A text that shrank to a
// prefix of the last one (a partial marker taken back) adds nothing, as llama.cpp's string_diff.
bool appended(const std::string& was, const std::string& now, std::string& added) {
  added.clear();
  if (now.compare(0, was.size(), was) == 0 && now.size() >= was.size()) {
    added = now.substr(was.size());
    return true;
  }
  return was.compare(0, now.size(), now) == 0;
}

}  // namespace

bool read_message(const json& metadata, Message& m) {
  m = Message{};
  if (!metadata.is_object() || !metadata.contains("message") || !metadata["message"].is_object()) return false;
  const json& msg = metadata["message"];
  m.content = string_at(msg, "content");
  m.reasoning = string_at(msg, "reasoning_content");
  if (msg.contains("tool_calls") && msg["tool_calls"].is_array()) {
    for (const auto& c : msg["tool_calls"]) {
      const json f = c.is_object() && c.contains("function") ? c["function"] : json();
      m.tool_calls.push_back({string_at(c, "id"), string_at(f, "name"), string_at(f, "arguments")});
    }
  }
  return true;
}

bool diff_messages(const Message& before, const Message& after, MessageDelta& d) {
  d = MessageDelta{};
  if (!appended(before.reasoning, after.reasoning, d.reasoning) || !appended(before.content, after.content, d.content))
    return false;
  if (after.tool_calls.size() < before.tool_calls.size()) return false;
  auto delta = [](size_t index, const ToolCall& c, bool head, const std::string& arguments) {
    json call = {{"index", index}};
    if (head && !c.id.empty()) {
      call["id"] = c.id;
      call["type"] = "function";
    }
    json function = json::object();
    if (head && !c.name.empty()) function["name"] = c.name;
    if (!arguments.empty()) function["arguments"] = arguments;
    if (!function.empty()) call["function"] = function;
    return call;
  };
  // The last call known before may have grown (its arguments; its name or id found late).
  if (!before.tool_calls.empty()) {
    const size_t i = before.tool_calls.size() - 1;
    const ToolCall &was = before.tool_calls[i], &now = after.tool_calls[i];
    std::string args;
    if (!appended(was.arguments, now.arguments, args)) return false;
    const bool head = was.id != now.id || was.name != now.name;
    if (head || !args.empty()) d.tool_calls.push_back(delta(i, now, head, args));
  }
  for (size_t i = before.tool_calls.size(); i < after.tool_calls.size(); ++i)
    d.tool_calls.push_back(delta(i, after.tool_calls[i], true, after.tool_calls[i].arguments));
  return true;
}

json message_json(const Message& m, const std::string& content) {
  json msg = {{"role", "assistant"}, {"content", content}};
  if (!m.reasoning.empty()) msg["reasoning_content"] = m.reasoning;
  if (m.tool_calls.empty()) return msg;
  if (content.empty()) msg["content"] = nullptr;
  msg["tool_calls"] = json::array();
  for (const ToolCall& c : m.tool_calls) {
    msg["tool_calls"].push_back(
        {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  }
  return msg;
}

}  // namespace openai
