// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Messages API as chat completions (anthropic_messages.h). The conversion follows llama-server's
// (tools/server/server-chat.cpp) but keeps a named tool_choice's name, and refuses what it would
// drop (documents, server tools, a missing max_tokens).
#include "anthropic_messages.h"

#include <utility>

namespace openai {
namespace anthropic {
namespace {

bool refuse(Refusal& why, const std::string& param, const std::string& message) {
  why = Refusal{400, message, "invalid_request_error", param};
  return false;
}

bool is_string(const json& j, const char* key) { return j.is_object() && j.contains(key) && j.at(key).is_string(); }

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A base64 (or URL) image block as the chat's image_url part (the plugin takes or refuses it).
bool image_part(const json& block, const std::string& param, json& out, Refusal& why) {
  const json source = field(block, "source", json::object());
  if (is_string(source, "type") && source.at("type") == "base64" && is_string(source, "data")) {
    const std::string media =
        is_string(source, "media_type") ? source.at("media_type").get<std::string>() : "image/png";
    out = {{"type", "image_url"},
           {"image_url", {{"url", "data:" + media + ";base64," + source.at("data").get<std::string>()}}}};
    return true;
  }
  // A URL goes on as chat's image_url: the chat fetches http(s) ones under --image-urls, else refuses.
  if (is_string(source, "type") && source.at("type") == "url" && is_string(source, "url")) {
    out = {{"type", "image_url"}, {"image_url", {{"url", source.at("url")}}}};
    return true;
  }
  return refuse(why, param, param + ": an image's source must be base64 data or a url");
}

// Blocks of text (and images) as chat content: a string when all are text.
bool text_content(const json& blocks, const std::string& param, json& out, Refusal& why) {
  if (blocks.is_string()) {
    out = blocks;
    return true;
  }
  if (!blocks.is_array()) return refuse(why, param, param + " must be a string or a list of content blocks");
  std::string text;
  json parts = json::array();
  bool only_text = true;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const json& b = blocks[i];
    const std::string type = is_string(b, "type") ? b.at("type").get<std::string>() : "";
    if (type == "text" && is_string(b, "text")) {
      text += b.at("text").get<std::string>();
      parts.push_back({{"type", "text"}, {"text", b.at("text")}});
    } else if (type == "image") {
      json part;
      if (!image_part(b, param + "[" + std::to_string(i) + "]", part, why)) return false;
      parts.push_back(part);
      only_text = false;
    } else {
      return refuse(why, param, param + ": only text and image blocks belong here, not '" + type + "'");
    }
  }
  out = only_text ? json(text) : parts;
  return true;
}

// One message's blocks as chat messages: the turn itself (text, thinking, tool_use) and, for a
// user turn, a tool message per tool_result, ahead of its text, as the tool results answer the
// previous turn's calls.
bool message_of(const json& msg, const std::string& param, json& messages, Refusal& why) {
  if (!msg.is_object()) return refuse(why, param, param + " must be an object");
  const std::string role = is_string(msg, "role") ? msg.at("role").get<std::string>() : "";
  if (role != "user" && role != "assistant")
    return refuse(why, param + ".role", param + ".role must be user or assistant");
  if (!msg.contains("content")) return refuse(why, param + ".content", param + " has no content");
  const json& content = msg.at("content");
  if (content.is_string()) {
    messages.push_back({{"role", role}, {"content", content}});
    return true;
  }
  if (!content.is_array())
    return refuse(why, param + ".content", param + ".content must be a string or a list of blocks");
  json text_blocks = json::array(), calls = json::array();
  std::string thinking;
  for (size_t i = 0; i < content.size(); ++i) {
    const json& b = content[i];
    const std::string at = param + ".content[" + std::to_string(i) + "]";
    const std::string type = is_string(b, "type") ? b.at("type").get<std::string>() : "";
    if (type == "text" || type == "image") {
      text_blocks.push_back(b);
    } else if (type == "thinking" && role == "assistant") {
      if (is_string(b, "thinking")) thinking += b.at("thinking").get<std::string>();
    } else if (type == "redacted_thinking" && role == "assistant") {
      continue;  // encrypted by another provider: nothing a local model can read
    } else if (type == "tool_use" && role == "assistant") {
      if (!is_string(b, "id") || !is_string(b, "name"))
        return refuse(why, at, at + ": a tool_use block needs an id and a name");
      const json input = b.contains("input") ? b.at("input") : json::object();
      calls.push_back({{"id", b.at("id")},
                       {"type", "function"},
                       {"function", {{"name", b.at("name")}, {"arguments", dump(input)}}}});
    } else if (type == "tool_result" && role == "user") {
      if (!is_string(b, "tool_use_id")) return refuse(why, at, at + ": a tool_result block needs a tool_use_id");
      json result = "";
      if (b.contains("content") && !b.at("content").is_null() &&
          !text_content(b.at("content"), at + ".content", result, why))
        return false;
      if (field(b, "is_error", false) && result.is_string()) result = "Error: " + result.get<std::string>();
      messages.push_back({{"role", "tool"}, {"tool_call_id", b.at("tool_use_id")}, {"content", result}});
    } else {
      return refuse(why, at,
                    at + ": block type '" + type + "' is not supported in a " + role +
                        " message (text, image, tool_use, tool_result, thinking)");
    }
  }
  if (text_blocks.empty() && calls.empty() && thinking.empty()) return true;
  json turn = {{"role", role}};
  json text = "";
  if (!text_blocks.empty() && !text_content(text_blocks, param + ".content", text, why)) return false;
  turn["content"] = text;
  if (!calls.empty()) turn["tool_calls"] = calls;
  if (!thinking.empty()) turn["reasoning_content"] = thinking;
  messages.push_back(turn);
  return true;
}

bool tools_of(const json& tools, json& out, Refusal& why) {
  if (!tools.is_array()) return refuse(why, "tools", "tools must be a list of tools");
  out = json::array();
  for (size_t i = 0; i < tools.size(); ++i) {
    const json& t = tools[i];
    const std::string at = "tools[" + std::to_string(i) + "]";
    const std::string type = is_string(t, "type") ? t.at("type").get<std::string>() : "custom";
    if (type != "custom" || !is_string(t, "name") || !t.contains("input_schema") || !t.at("input_schema").is_object())
      return refuse(why, at,
                    at + ": only client tools with a name and an input_schema object are supported here (no server "
                         "tools such as web_search or bash)");
    json function = {{"name", t.at("name")}, {"parameters", t.at("input_schema")}};
    if (is_string(t, "description")) function["description"] = t.at("description");
    out.push_back({{"type", "function"}, {"function", function}});
  }
  return true;
}

}  // namespace

bool to_chat(const json& body, json& chat, Refusal& why, bool count_only) {
  if (!body.is_object()) return refuse(why, "", "the body must be a JSON object");
  chat = json::object();
  json messages = json::array();
  if (body.contains("system") && !body.at("system").is_null()) {
    json system;
    if (!text_content(body.at("system"), "system", system, why)) return false;
    if (!system.is_string()) return refuse(why, "system", "system takes text blocks only");
    messages.push_back({{"role", "system"}, {"content", system}});
  }
  if (!body.contains("messages") || !body.at("messages").is_array() || body.at("messages").empty())
    return refuse(why, "messages", "messages: a non-empty list is required");
  const json& msgs = body.at("messages");
  for (size_t i = 0; i < msgs.size(); ++i)
    if (!message_of(msgs[i], "messages[" + std::to_string(i) + "]", messages, why)) return false;
  chat["messages"] = messages;
  if (!count_only && !body.contains("max_tokens")) return refuse(why, "max_tokens", "max_tokens: Field required");

  bool parallel = true;
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "system" || key == "messages") continue;
    if (key == "max_tokens") {
      if (count_only) continue;
      if (!v.is_number_integer() || v.get<int64_t>() < 1)
        return refuse(why, key, "max_tokens: a whole number from 1 is required");
      chat["max_tokens"] = v;
    } else if (key == "stop_sequences") {
      if (v.is_array() && !v.empty()) chat["stop"] = v;
    } else if (key == "tools") {
      json tools;
      if (!tools_of(v, tools, why)) return false;
      if (!tools.empty()) chat["tools"] = tools;
    } else if (key == "tool_choice") {
      const std::string type = is_string(v, "type") ? v.at("type").get<std::string>() : "";
      if (type == "auto" || type == "none") {
        chat["tool_choice"] = type;
      } else if (type == "any") {
        chat["tool_choice"] = "required";
      } else if (type == "tool" && is_string(v, "name")) {
        chat["tool_choice"] = {{"type", "function"}, {"function", {{"name", v.at("name")}}}};
      } else if (!v.is_null()) {
        return refuse(why, key,
                      "tool_choice must be {\"type\": \"auto\"}, {\"type\": \"any\"}, {\"type\": \"none\"} or "
                      "{\"type\": \"tool\", \"name\": ...}");
      }
      if (v.is_object() && field(v, "disable_parallel_tool_use", false)) parallel = false;
    } else if (key == "stream") {
      if (count_only) continue;
      chat["stream"] = v;
      if (v.is_boolean() && v.get<bool>()) chat["stream_options"] = {{"include_usage", true}};
    } else if (key == "thinking") {
      // The template's own thinking switch (enable_thinking); budget_tokens bounds nothing beyond
      // max_tokens here (docs/serving.md).
      const std::string type = is_string(v, "type") ? v.at("type").get<std::string>() : "";
      if (type == "disabled") {
        chat["chat_template_kwargs"]["enable_thinking"] = false;
      } else if (type != "enabled" && type != "adaptive") {
        return refuse(why, key, "thinking must be {\"type\": \"enabled\"} or {\"type\": \"disabled\"}");
      }
    } else if (key == "metadata" || key == "service_tier" || key == "cache_control" || key == "inference_geo" ||
               key == "speed" || key == "user_profile_id" || key == "workspace_id") {
      continue;  // about the caller, the billing or the cache, not the answer
    } else if (key == "output_config") {
      if (v.is_null()) continue;
      if (!v.is_object()) return refuse(why, key, "output_config must be an object");
      for (auto o = v.begin(); o != v.end(); ++o) {
        const json& f = o.value();
        if (f.is_null()) continue;
        if (o.key() == "format" && is_string(f, "type") && f.at("type") == "json_schema" && f.contains("schema") &&
            f.at("schema").is_object()) {
          chat["response_format"] = {{"type", "json_schema"},
                                     {"json_schema", {{"name", "output"}, {"schema", f.at("schema")}}}};
        } else {
          return refuse(why, "output_config." + o.key(),
                        "output_config." + o.key() +
                            ": only format {\"type\": \"json_schema\", \"schema\": {...}} is "
                            "supported here");
        }
      }
    } else if (key == "model") {
      chat[key] = v;
    } else if (key == "chat_template_kwargs") {
      if (!v.is_object()) return refuse(why, key, "chat_template_kwargs must be an object");
      for (auto kw = v.begin(); kw != v.end(); ++kw) chat[key][kw.key()] = kw.value();
    } else if (key == "temperature" || key == "top_p" || key == "top_k") {
      if (!count_only) chat[key] = v;
    } else {
      return refuse(why, key, key + ": Extra inputs are not permitted");
    }
  }
  if (!parallel) chat["parallel_tool_calls"] = false;
  return true;
}

json error_json(int status, const std::string& message) {
  const char* type = status == 401   ? "authentication_error"
                     : status == 403 ? "permission_error"
                     : status == 404 ? "not_found_error"
                     : status == 413 ? "request_too_large"
                     : status == 429 ? "rate_limit_error"
                     : status == 503 ? "overloaded_error"
                     : status == 504 ? "timeout_error"
                     : status >= 500 ? "api_error"
                                     : "invalid_request_error";
  return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
}

std::string stop_reason(const std::string& finish_reason, const std::string& stop) {
  if (finish_reason == "tool_calls") return "tool_use";
  if (finish_reason == "length") return "max_tokens";
  return stop.empty() ? "end_turn" : "stop_sequence";
}

namespace {
json usage_of(const json& chat_usage) {
  const json u = chat_usage.is_object() ? chat_usage : json::object();
  int64_t cached = 0;
  if (u.contains("prompt_tokens_details") && u.at("prompt_tokens_details").is_object())
    cached = field(u.at("prompt_tokens_details"), "cached_tokens", int64_t{0});
  return {{"input_tokens", field(u, "prompt_tokens", int64_t{0}) - cached},
          {"cache_read_input_tokens", cached},
          {"cache_creation_input_tokens", 0},
          {"output_tokens", field(u, "completion_tokens", int64_t{0})}};
}

json tool_input(const std::string& arguments) {
  const json input = json::parse(arguments, nullptr, false);
  return input.is_object() ? input : json::object();
}
}  // namespace

json from_chat(const json& completion, const std::string& stop) {
  const json choice =
      completion.contains("choices") && completion.at("choices").is_array() && !completion.at("choices").empty()
          ? completion.at("choices")[0]
          : json::object();
  const json msg = field(choice, "message", json::object());
  json content = json::array();
  if (is_string(msg, "reasoning_content") && !msg.at("reasoning_content").get<std::string>().empty())
    content.push_back({{"type", "thinking"}, {"thinking", msg.at("reasoning_content")}, {"signature", ""}});
  if (is_string(msg, "content") && !msg.at("content").get<std::string>().empty())
    content.push_back({{"type", "text"}, {"text", msg.at("content")}});
  if (msg.contains("tool_calls") && msg.at("tool_calls").is_array()) {
    for (const auto& call : msg.at("tool_calls")) {
      const json f = field(call, "function", json::object());
      content.push_back({{"type", "tool_use"},
                         {"id", field(call, "id", std::string())},
                         {"name", field(f, "name", std::string())},
                         {"input", tool_input(field(f, "arguments", std::string()))}});
    }
  }
  const std::string id = field(completion, "id", std::string("0"));
  const std::string finish = field(choice, "finish_reason", json("stop")).is_string()
                                 ? field(choice, "finish_reason", std::string("stop"))
                                 : std::string("stop");
  return {{"id", "msg_" + id.substr(id.find('-') == std::string::npos ? 0 : id.find('-') + 1)},
          {"type", "message"},
          {"role", "assistant"},
          {"model", field(completion, "model", std::string())},
          {"content", content},
          {"stop_reason", stop_reason(finish, stop)},
          {"stop_sequence", stop.empty() ? json(nullptr) : json(stop)},
          {"usage", usage_of(field(completion, "usage", json::object()))}};
}

std::string EventStream::event(const std::string& type, json data) {
  data["type"] = type;
  return "event: " + type + "\ndata: " + dump(data) + "\n\n";
}

std::string EventStream::begin(const json& usage) {
  json u = usage_of(usage);
  u["output_tokens"] = 0;
  return event("message_start", {{"message",
                                  {{"id", id_},
                                   {"type", "message"},
                                   {"role", "assistant"},
                                   {"model", model_},
                                   {"content", json::array()},
                                   {"stop_reason", nullptr},
                                   {"stop_sequence", nullptr},
                                   {"usage", u}}}});
}

std::string EventStream::open(Block kind, const json& start) {
  std::string out = close();
  open_ = kind;
  ++index_;
  return out + event("content_block_start", {{"index", index_}, {"content_block", start}});
}

std::string EventStream::close() {
  if (open_ == Block::none) return {};
  std::string out;
  // Anthropic's clients expect a thinking block to end with its signature; a local model has none.
  if (open_ == Block::thinking)
    out +=
        event("content_block_delta", {{"index", index_}, {"delta", {{"type", "signature_delta"}, {"signature", ""}}}});
  open_ = Block::none;
  return out + event("content_block_stop", {{"index", index_}});
}

std::string EventStream::chunk(const json& chunk) {
  if (!chunk.contains("choices") || !chunk.at("choices").is_array() || chunk.at("choices").empty()) return {};
  const json delta = field(chunk.at("choices")[0], "delta", json::object());
  std::string out;
  if (is_string(delta, "reasoning_content") && !delta.at("reasoning_content").get<std::string>().empty()) {
    if (open_ != Block::thinking)
      out += open(Block::thinking, {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}});
    out += event(
        "content_block_delta",
        {{"index", index_}, {"delta", {{"type", "thinking_delta"}, {"thinking", delta.at("reasoning_content")}}}});
  }
  if (is_string(delta, "content") && !delta.at("content").get<std::string>().empty()) {
    if (open_ != Block::text) out += open(Block::text, {{"type", "text"}, {"text", ""}});
    out += event("content_block_delta",
                 {{"index", index_}, {"delta", {{"type", "text_delta"}, {"text", delta.at("content")}}}});
  }
  if (delta.contains("tool_calls") && delta.at("tool_calls").is_array()) {
    for (const auto& call : delta.at("tool_calls")) {
      if (!call.is_object()) continue;
      const json f = field(call, "function", json::object());
      const int64_t index = field(call, "index", int64_t{0});
      if (index >= 0 && static_cast<size_t>(index) >= calls_) {  // a new call: its block opens
        calls_ = static_cast<size_t>(index) + 1;
        out += open(Block::tool_use, {{"type", "tool_use"},
                                      {"id", field(call, "id", id_ + "_" + std::to_string(index))},
                                      {"name", field(f, "name", std::string())},
                                      {"input", json::object()}});
      }
      if (open_ == Block::tool_use && is_string(f, "arguments") && !f.at("arguments").get<std::string>().empty()) {
        out +=
            event("content_block_delta",
                  {{"index", index_}, {"delta", {{"type", "input_json_delta"}, {"partial_json", f.at("arguments")}}}});
      }
    }
  }
  return out;
}

std::string EventStream::finish(const std::string& finish_reason, const std::string& stop, const json& usage) {
  std::string out = close();
  const json u = usage_of(usage);
  out += event("message_delta", {{"delta",
                                  {{"stop_reason", stop_reason(finish_reason, stop)},
                                   {"stop_sequence", stop.empty() ? json(nullptr) : json(stop)}}},
                                 {"usage", u}});
  return out + event("message_stop", json::object());
}

std::string EventStream::fail(int status, const std::string& message) {
  const json e = error_json(status, message);
  std::string out = close();
  return out + event("error", {{"error", e.at("error")}});
}

}  // namespace anthropic
}  // namespace openai
