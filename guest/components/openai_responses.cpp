// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Responses API as chat completions (openai_responses.h). The conversion follows llama-server's
// (tools/server/server-chat.cpp) where it has one, but refuses what it would drop: non-function
// tools, stored state, fields with no effect here.
#include "openai_responses.h"

#include <utility>

namespace openai {
namespace responses_api {
namespace {

bool refuse(Refusal& why, const std::string& param, const std::string& message, const char* code = "invalid_value") {
  why = Refusal{400, message, code, param};
  return false;
}

bool is_string(const json& j, const char* key) { return j.is_object() && j.contains(key) && j.at(key).is_string(); }

// Input parts as chat content: a string when every part is text (what every template takes), else
// the parts (an image, for the plugin to accept or refuse).
bool content_of(const json& content, const std::string& param, json& out, Refusal& why) {
  if (content.is_string()) {
    out = content;
    return true;
  }
  if (!content.is_array()) return refuse(why, param, param + " must be a string or a list of content parts");
  json parts = json::array();
  std::string text;
  bool only_text = true;
  for (const auto& part : content) {
    const std::string type = is_string(part, "type") ? part.at("type").get<std::string>() : "";
    if ((type == "input_text" || type == "output_text") && is_string(part, "text")) {
      text += part.at("text").get<std::string>();
      parts.push_back({{"type", "text"}, {"text", part.at("text")}});
    } else if (type == "refusal" && is_string(part, "refusal")) {
      text += part.at("refusal").get<std::string>();
      parts.push_back({{"type", "text"}, {"text", part.at("refusal")}});
    } else if (type == "input_image" && is_string(part, "image_url")) {
      // An http(s) URL goes on too: the chat fetches it under --image-urls, else refuses it.
      only_text = false;
      parts.push_back({{"type", "image_url"}, {"image_url", {{"url", part.at("image_url")}}}});
    } else {
      return refuse(why, param,
                    param +
                        ": each content part must be input_text or output_text with a text, or input_image "
                        "with an image_url (input_file and audio are not supported)");
    }
  }
  out = only_text ? json(text) : parts;
  return true;
}

// The last message if it is the assistant's, to which a function call or reasoning item belongs.
json* assistant_turn(json& messages) {
  if (messages.empty() || field(messages.back(), "role", std::string()) != "assistant") return nullptr;
  return &messages.back();
}

bool input_items(const json& input, json& messages, Refusal& why) {
  for (size_t i = 0; i < input.size(); ++i) {
    const json& item = input[i];
    const std::string param = "input[" + std::to_string(i) + "]";
    if (!item.is_object()) return refuse(why, param, param + " must be an object");
    const std::string type = is_string(item, "type") ? item.at("type").get<std::string>() : "message";
    if (type == "message") {
      const std::string role = is_string(item, "role") ? item.at("role").get<std::string>() : "";
      if (role != "user" && role != "system" && role != "developer" && role != "assistant")
        return refuse(why, param + ".role", param + ".role must be user, system, developer or assistant");
      if (!item.contains("content")) return refuse(why, param + ".content", param + " has no content");
      json content;
      if (!content_of(item.at("content"), param + ".content", content, why)) return false;
      if (role == "assistant" && assistant_turn(messages) && content.is_string()) {
        json& turn = *assistant_turn(messages);
        turn["content"] = field(turn, "content", json("")).is_string()
                              ? json(field(turn, "content", std::string()) + content.get<std::string>())
                              : content;
        continue;
      }
      messages.push_back({{"role", role == "developer" ? "system" : role}, {"content", content}});
    } else if (type == "function_call") {
      if (!is_string(item, "call_id") || !is_string(item, "name") || !is_string(item, "arguments"))
        return refuse(why, param, param + ": a function_call needs call_id, name and arguments (strings)");
      const json call = {{"id", item.at("call_id")},
                         {"type", "function"},
                         {"function", {{"name", item.at("name")}, {"arguments", item.at("arguments")}}}};
      if (json* turn = assistant_turn(messages)) {
        if (!turn->contains("tool_calls")) (*turn)["tool_calls"] = json::array();
        (*turn)["tool_calls"].push_back(call);
      } else {
        messages.push_back({{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}});
      }
    } else if (type == "function_call_output") {
      if (!is_string(item, "call_id") || !item.contains("output"))
        return refuse(why, param, param + ": a function_call_output needs call_id and output");
      json content;
      if (!content_of(item.at("output"), param + ".output", content, why)) return false;
      messages.push_back({{"role", "tool"}, {"tool_call_id", item.at("call_id")}, {"content", content}});
    } else if (type == "reasoning") {
      std::string text;
      for (const char* key : {"content", "summary"}) {
        if (!item.contains(key) || !item.at(key).is_array()) continue;
        for (const auto& part : item.at(key))
          if (is_string(part, "text")) text += part.at("text").get<std::string>();
        if (!text.empty()) break;
      }
      json* turn = assistant_turn(messages);
      if (!turn) {
        messages.push_back({{"role", "assistant"}, {"content", ""}});
        turn = &messages.back();
      }
      (*turn)["reasoning_content"] = text;
    } else if (type == "item_reference") {
      return refuse(why, param, param + ": this server stores no items to refer to (send the item itself)",
                    "unsupported_value");
    } else {
      return refuse(
          why, param + ".type",
          param + ".type '" + type + "' is not supported: message, function_call, function_call_output or reasoning");
    }
  }
  return true;
}

bool tools_of(const json& tools, json& out, Refusal& why) {
  if (!tools.is_array()) return refuse(why, "tools", "tools must be a list of function tools");
  out = json::array();
  for (const auto& tool : tools) {
    if (!is_string(tool, "type") || tool.at("type") != "function" || !is_string(tool, "name"))
      return refuse(why, "tools",
                    "tools: only function tools ({\"type\": \"function\", \"name\": ...}) are supported here; "
                    "hosted tools (web_search, file_search, ...) are not",
                    "unsupported_value");
    json function = {{"name", tool.at("name")}};
    for (const char* key : {"description", "parameters", "strict"})
      if (tool.contains(key) && !tool.at(key).is_null()) function[key] = tool.at(key);
    out.push_back({{"type", "function"}, {"function", function}});
  }
  return true;
}

bool tool_choice_of(const json& choice, json& out, Refusal& why) {
  if (choice.is_string() && (choice == "auto" || choice == "none" || choice == "required")) {
    out = choice;
    return true;
  }
  if (is_string(choice, "type") && choice.at("type") == "function" && is_string(choice, "name")) {
    out = {{"type", "function"}, {"function", {{"name", choice.at("name")}}}};
    return true;
  }
  return refuse(why, "tool_choice",
                "tool_choice must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"name\": ...}");
}

bool format_of(const json& text, json& chat, Refusal& why) {
  if (!text.is_object()) return refuse(why, "text", "text must be an object: {\"format\": {...}}");
  for (auto it = text.begin(); it != text.end(); ++it) {
    if (it.key() == "verbosity") {
      if (!it.value().is_null() && it.value() != "medium")
        return refuse(why, "text.verbosity", "text.verbosity: only \"medium\" (the model's own) is supported",
                      "unsupported_value");
    } else if (it.key() != "format") {
      return refuse(why, "text." + it.key(), "Unrecognized request argument supplied: text." + it.key(),
                    "unknown_parameter");
    }
  }
  if (!text.contains("format") || text.at("format").is_null()) return true;
  const json& f = text.at("format");
  const std::string type = is_string(f, "type") ? f.at("type").get<std::string>() : "";
  if (type == "text") return true;
  if (type == "json_object") {
    chat["response_format"] = {{"type", "json_object"}};
    return true;
  }
  if (type == "json_schema" && f.contains("schema") && f.at("schema").is_object()) {
    json spec = {{"name", field(f, "name", std::string("response"))}, {"schema", f.at("schema")}};
    if (f.contains("strict") && !f.at("strict").is_null()) spec["strict"] = f.at("strict");
    chat["response_format"] = {{"type", "json_schema"}, {"json_schema", spec}};
    return true;
  }
  return refuse(why, "text.format",
                "text.format must be {\"type\": \"text\"}, {\"type\": \"json_object\"} or {\"type\": \"json_schema\", "
                "\"name\": ..., \"schema\": {...}}");
}

// Chat fields the Responses API does not have: refused as unknown, as OpenAI's Responses endpoint does.
bool chat_only(const std::string& key) {
  for (const char* f : {"messages", "max_tokens", "max_completion_tokens", "response_format", "n", "stop", "logprobs",
                        "functions", "function_call", "echo", "suffix", "best_of"})
    if (key == f) return true;
  return false;
}

bool absent(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || ((v.is_array() || v.is_object()) && v.empty());
}

}  // namespace

bool to_chat(const json& body, json& chat, Refusal& why) {
  if (!body.is_object()) return refuse(why, "", "the body must be a JSON object");
  chat = json::object();
  json messages = json::array();
  if (body.contains("instructions") && !body.at("instructions").is_null()) {
    if (!body.at("instructions").is_string()) return refuse(why, "instructions", "instructions must be a string");
    messages.push_back({{"role", "system"}, {"content", body.at("instructions")}});
  }
  if (!body.contains("input")) return refuse(why, "input", "input is required: a string or a list of items");
  const json& input = body.at("input");
  if (input.is_string()) {
    messages.push_back({{"role", "user"}, {"content", input}});
  } else if (input.is_array() && !input.empty()) {
    if (!input_items(input, messages, why)) return false;
  } else {
    return refuse(why, "input", "input must be a string or a non-empty list of items");
  }
  chat["messages"] = messages;

  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "input" || key == "instructions") continue;
    if (key == "tools") {
      json tools;
      if (!tools_of(v, tools, why)) return false;
      if (!tools.empty()) chat["tools"] = tools;
    } else if (key == "tool_choice") {
      if (v.is_null()) continue;
      json choice;
      if (!tool_choice_of(v, choice, why)) return false;
      chat["tool_choice"] = choice;
    } else if (key == "max_output_tokens") {
      if (v.is_null()) continue;
      if (!v.is_number_integer() || v.get<int64_t>() < 1)
        return refuse(why, key, "max_output_tokens must be a whole number from 1");
      chat["max_completion_tokens"] = v;
    } else if (key == "text") {
      if (!v.is_null() && !format_of(v, chat, why)) return false;
    } else if (key == "stream") {
      chat["stream"] = v;
      if (v.is_boolean() && v.get<bool>()) chat["stream_options"] = {{"include_usage", true}};
    } else if (key == "stream_options") {
      // include_obfuscation pads events against length side channels: nothing to honour in an answer.
      if (!v.is_null() && !v.is_object()) return refuse(why, key, "stream_options must be an object");
      for (auto o = v.begin(); v.is_object() && o != v.end(); ++o)
        if (o.key() != "include_obfuscation")
          return refuse(why, "stream_options." + o.key(),
                        "Unrecognized request argument supplied: stream_options." + o.key(), "unknown_parameter");
    } else if (key == "store") {
      if (!absent(v))
        return refuse(why, key, "store: this server keeps no responses; send store false or leave it out",
                      "unsupported_value");
    } else if (key == "previous_response_id" || key == "conversation" || key == "prompt") {
      if (!absent(v))
        return refuse(why, key,
                      key + ": this server keeps no responses or conversations; send the whole input each time",
                      "unsupported_parameter");
    } else if (key == "background" || key == "max_tool_calls" || key == "include" || key == "top_logprobs") {
      if (!absent(v) && !(v.is_number_integer() && v.get<int64_t>() == 0))
        return refuse(why, key, "Unsupported parameter: '" + key + "' is not supported by this server",
                      "unsupported_parameter");
    } else if (key == "truncation") {
      if (!v.is_null() && v != "disabled")
        return refuse(why, key, "truncation: only \"disabled\" (a prompt over the context is a 400)",
                      "unsupported_value");
    } else if (key == "reasoning") {
      if (v.is_null()) continue;
      if (!v.is_object()) return refuse(why, key, "reasoning must be an object");
      for (auto r = v.begin(); r != v.end(); ++r) {
        if (!r.value().is_null()) {
          return refuse(why, "reasoning." + r.key(), "Unsupported parameter: 'reasoning." + r.key() + "'",
                        "unsupported_parameter");
        }
      }
    } else if (key == "metadata" || key == "user" || key == "safety_identifier" || key == "prompt_cache_key" ||
               key == "service_tier") {
      continue;  // about the caller or the billing, not the answer
    } else if (chat_only(key)) {
      return refuse(why, key, "Unrecognized request argument supplied: " + key, "unknown_parameter");
    } else {
      chat[key] = v;  // model, sampling and llama-server's extras: parse_request checks them
    }
  }
  return true;
}

namespace {

json usage_of(const json& chat_usage) {
  const json u = chat_usage.is_object() ? chat_usage : json::object();
  const int64_t in = field(u, "prompt_tokens", int64_t{0}), out = field(u, "completion_tokens", int64_t{0});
  int64_t cached = 0;
  if (u.contains("prompt_tokens_details") && u.at("prompt_tokens_details").is_object())
    cached = field(u.at("prompt_tokens_details"), "cached_tokens", int64_t{0});
  return {{"input_tokens", in},
          {"input_tokens_details", {{"cached_tokens", cached}}},
          {"output_tokens", out},
          {"output_tokens_details", {{"reasoning_tokens", 0}}},
          {"total_tokens", in + out}};
}

// The Response's fields that echo the request.
json skeleton(const json& request, const std::string& id, const std::string& model, uint64_t created,
              const std::string& status) {
  auto echo = [&](const char* key, json fallback) {
    return request.contains(key) && !request.at(key).is_null() ? request.at(key) : fallback;
  };
  return {{"id", id},
          {"object", "response"},
          {"created_at", created},
          {"status", status},
          {"model", model},
          {"output", json::array()},
          {"error", nullptr},
          {"incomplete_details", nullptr},
          {"instructions", echo("instructions", nullptr)},
          {"max_output_tokens", echo("max_output_tokens", nullptr)},
          {"metadata", echo("metadata", json::object())},
          {"parallel_tool_calls", echo("parallel_tool_calls", true)},
          {"previous_response_id", nullptr},
          {"store", false},
          {"temperature", echo("temperature", nullptr)},
          {"text", echo("text", json{{"format", {{"type", "text"}}}})},
          {"tool_choice", echo("tool_choice", "auto")},
          {"tools", echo("tools", json::array())},
          {"top_p", echo("top_p", nullptr)},
          {"truncation", "disabled"},
          {"usage", nullptr}};
}

json text_part(const std::string& text) {
  return {{"type", "output_text"}, {"text", text}, {"annotations", json::array()}, {"logprobs", json::array()}};
}

std::string suffix_of(const std::string& chat_id) {
  const size_t dash = chat_id.find('-');
  return dash == std::string::npos ? chat_id : chat_id.substr(dash + 1);
}

}  // namespace

json from_chat(const json& completion, const json& request) {
  const std::string suffix = suffix_of(field(completion, "id", std::string("0")));
  const json choice =
      completion.contains("choices") && completion.at("choices").is_array() && !completion.at("choices").empty()
          ? completion.at("choices")[0]
          : json::object();
  const json msg = field(choice, "message", json::object());
  const bool cut = field(choice, "finish_reason", json()) == "length";
  json r = skeleton(request, "resp_" + suffix, field(completion, "model", std::string()),
                    field(completion, "created", uint64_t{0}), cut ? "incomplete" : "completed");
  if (cut) r["incomplete_details"] = {{"reason", "max_output_tokens"}};
  json& output = r["output"];
  if (is_string(msg, "reasoning_content") && !msg.at("reasoning_content").get<std::string>().empty()) {
    output.push_back({{"type", "reasoning"},
                      {"id", "rs_" + suffix},
                      {"summary", json::array()},
                      {"content", json::array({{{"type", "reasoning_text"}, {"text", msg.at("reasoning_content")}}})},
                      {"status", "completed"}});
  }
  if (is_string(msg, "content") && !msg.at("content").get<std::string>().empty()) {
    output.push_back({{"type", "message"},
                      {"id", "msg_" + suffix},
                      {"role", "assistant"},
                      {"status", cut ? "incomplete" : "completed"},
                      {"content", json::array({text_part(msg.at("content"))})}});
  }
  if (msg.contains("tool_calls") && msg.at("tool_calls").is_array()) {
    for (const auto& call : msg.at("tool_calls")) {
      const json f = field(call, "function", json::object());
      const std::string call_id = field(call, "id", std::string());
      output.push_back({{"type", "function_call"},
                        {"id", "fc_" + call_id},
                        {"call_id", call_id},
                        {"name", field(f, "name", std::string())},
                        {"arguments", field(f, "arguments", std::string())},
                        {"status", "completed"}});
    }
  }
  r["usage"] = usage_of(field(completion, "usage", json::object()));
  return r;
}

EventStream::EventStream(const json& request, std::string id, std::string model, uint64_t created)
    : request_(request), id_(std::move(id)), model_(std::move(model)), created_(created) {}

json EventStream::response(const std::string& status) const {
  return skeleton(request_, id_, model_, created_, status);
}

std::string EventStream::event(const std::string& type, json data) {
  data["type"] = type;
  data["sequence_number"] = sequence_++;
  return "event: " + type + "\ndata: " + data.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

std::string EventStream::begin() {
  std::string out = event("response.created", {{"response", response("in_progress")}});
  return out + event("response.in_progress", {{"response", response("in_progress")}});
}

std::string EventStream::open(Item kind, const json& tool_call) {
  std::string out = close();
  const int64_t index = static_cast<int64_t>(output_.size());
  const std::string n = std::to_string(items_++);
  text_.clear();
  open_ = kind;
  if (kind == Item::reasoning) {
    item_ = {
        {"type", "reasoning"}, {"id", "rs_" + n + "_" + id_}, {"summary", json::array()}, {"content", json::array()}};
  } else if (kind == Item::message) {
    item_ = {{"type", "message"},
             {"id", "msg_" + n + "_" + id_},
             {"role", "assistant"},
             {"status", "in_progress"},
             {"content", json::array()}};
  } else {
    const std::string call_id = field(tool_call, "id", "call_" + n + "_" + id_);
    const json f = field(tool_call, "function", json::object());
    item_ = {{"type", "function_call"}, {"id", "fc_" + call_id},
             {"call_id", call_id},      {"name", field(f, "name", std::string())},
             {"arguments", ""},         {"status", "in_progress"}};
  }
  out += event("response.output_item.added", {{"output_index", index}, {"item", item_}});
  if (kind == Item::message) {
    out += event("response.content_part.added",
                 {{"item_id", item_["id"]}, {"output_index", index}, {"content_index", 0}, {"part", text_part("")}});
  }
  return out;
}

std::string EventStream::close() {
  if (open_ == Item::none) return {};
  const int64_t index = static_cast<int64_t>(output_.size());
  const json id = item_["id"];
  std::string out;
  if (open_ == Item::reasoning) {
    out += event("response.reasoning_text.done",
                 {{"item_id", id}, {"output_index", index}, {"content_index", 0}, {"text", text_}});
    item_["content"] = json::array({{{"type", "reasoning_text"}, {"text", text_}}});
  } else if (open_ == Item::message) {
    out += event(
        "response.output_text.done",
        {{"item_id", id}, {"output_index", index}, {"content_index", 0}, {"text", text_}, {"logprobs", json::array()}});
    out += event("response.content_part.done",
                 {{"item_id", id}, {"output_index", index}, {"content_index", 0}, {"part", text_part(text_)}});
    item_["content"] = json::array({text_part(text_)});
  } else {
    out += event("response.function_call_arguments.done",
                 {{"item_id", id}, {"output_index", index}, {"name", item_["name"]}, {"arguments", text_}});
    item_["arguments"] = text_;
  }
  item_["status"] = "completed";
  out += event("response.output_item.done", {{"output_index", index}, {"item", item_}});
  output_.push_back(item_);
  open_ = Item::none;
  return out;
}

std::string EventStream::chunk(const json& chunk) {
  if (!chunk.contains("choices") || !chunk.at("choices").is_array() || chunk.at("choices").empty()) return {};
  const json delta = field(chunk.at("choices")[0], "delta", json::object());
  std::string out;
  if (is_string(delta, "reasoning_content") && !delta.at("reasoning_content").get<std::string>().empty()) {
    if (open_ != Item::reasoning) out += open(Item::reasoning, {});
    const std::string piece = delta.at("reasoning_content");
    text_ += piece;
    out += event("response.reasoning_text.delta", {{"item_id", item_["id"]},
                                                   {"output_index", static_cast<int64_t>(output_.size())},
                                                   {"content_index", 0},
                                                   {"delta", piece}});
  }
  if (is_string(delta, "content") && !delta.at("content").get<std::string>().empty()) {
    if (open_ != Item::message) out += open(Item::message, {});
    const std::string piece = delta.at("content");
    text_ += piece;
    out += event("response.output_text.delta", {{"item_id", item_["id"]},
                                                {"output_index", static_cast<int64_t>(output_.size())},
                                                {"content_index", 0},
                                                {"delta", piece},
                                                {"logprobs", json::array()}});
  }
  if (delta.contains("tool_calls") && delta.at("tool_calls").is_array()) {
    for (const auto& call : delta.at("tool_calls")) {
      if (!call.is_object()) continue;
      const int64_t index = field(call, "index", int64_t{0});
      // A call's first delta names it (id, name): it opens its item; the rest extend its arguments.
      if (index < 0 || index > 4096) continue;
      if (static_cast<size_t>(index) >= calls_) {
        out += open(Item::function_call, call);
        calls_ = static_cast<size_t>(index) + 1;
      }
      const json f = field(call, "function", json::object());
      if (open_ == Item::function_call && is_string(f, "arguments")) {
        const std::string piece = f.at("arguments");
        if (piece.empty()) continue;
        text_ += piece;
        out +=
            event("response.function_call_arguments.delta",
                  {{"item_id", item_["id"]}, {"output_index", static_cast<int64_t>(output_.size())}, {"delta", piece}});
      }
    }
  }
  return out;
}

std::string EventStream::finish(const std::string& finish_reason, const json& usage) {
  std::string out = close();
  const bool cut = finish_reason == "length";
  json r = response(cut ? "incomplete" : "completed");
  if (cut) r["incomplete_details"] = {{"reason", "max_output_tokens"}};
  r["output"] = output_;
  r["usage"] = usage_of(usage);
  return out + event(cut ? "response.incomplete" : "response.completed", {{"response", r}});
}

std::string EventStream::fail(const std::string& code, const std::string& message) {
  std::string out = close();
  out += event("error", {{"code", code}, {"message", message}, {"param", nullptr}});
  json r = response("failed");
  r["output"] = output_;
  r["error"] = {{"code", code == "timeout" ? "server_error" : code}, {"message", message}};
  return out + event("response.failed", {{"response", r}});
}

}  // namespace responses_api
}  // namespace openai
