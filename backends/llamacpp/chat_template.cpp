// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Input 2 through llama.cpp's chat layer, step for step as llama-server's oaicompat_chat_params_parse
// (tools/server/server-common.cpp) and its sampling setup (server-schema.cpp) do it.
#include "chat_template.h"

#include <chat.h>
#include <log.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "json_schema.h"
#include "vision.h"

namespace wasinn::llamacpp {
namespace {

constexpr size_t kMaxMessages = 4096;
// llama.cpp's JSON and Jinja code recurse once per level: a guest's deep nesting must not reach them.
constexpr size_t kMaxDepth = 64;
constexpr std::string_view kSource = "messages (input 2)";

Error refused(std::string_view why) { return sdk::invalid(std::string(kSource) + ": " + std::string(why)); }

// llama.cpp's messages can run to several lines (a template's error with its source line).
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  if (text.size() > 500) text = text.substr(0, 497) + "...";
  return text;
}

const std::string_view kKeys[] = {
    "messages", "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs", "reasoning_format"};

// The checks of input 2's shape before llama.cpp reads it (with its own, order-keeping JSON).
Error check_shape(const nlohmann::json& doc) {
  if (doc.is_array()) return doc.empty() ? refused("the chat has no messages") : Error{};
  if (!doc.is_object()) {
    return refused(
        "give a JSON array of chat messages, or an object {\"messages\": [...], \"tools\": [...], ...}; got " +
        std::string(doc.type_name()));
  }
  for (const auto& [key, value] : doc.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return refused("unknown key \"" + key +
                     "\" (it takes messages, tools, tool_choice, parallel_tool_calls, chat_template_kwargs, "
                     "reasoning_format)");
    }
  }
  const auto messages = doc.find("messages");
  if (messages == doc.end() || !messages->is_array() || messages->empty())
    return refused("\"messages\" must be a non-empty array of chat messages");
  if (const auto tools = doc.find("tools"); tools != doc.end() && !tools->is_array() && !tools->is_null())
    return refused("\"tools\" must be an array of function tools");
  if (const auto p = doc.find("parallel_tool_calls"); p != doc.end() && !p->is_boolean())
    return refused("\"parallel_tool_calls\" must be true or false");
  if (const auto k = doc.find("chat_template_kwargs"); k != doc.end() && !k->is_object())
    return refused("\"chat_template_kwargs\" must be an object");
  if (const auto r = doc.find("reasoning_format"); r != doc.end() && !r->is_string())
    return refused("\"reasoning_format\" must be one of \"none\", \"auto\", \"deepseek\", \"deepseek-legacy\"");
  return {};
}

// tool_choice as llama-server reads it: a string is parsed by llama.cpp; any other value is
// "auto" there (json_value's fallback), so a named function offers every tool, lazily. Only
// OpenAI's own object for one of the given tools is taken so; anything else is refused.
Error tool_choice_text(const nlohmann::json& doc, std::string& out) {
  out = "auto";
  const auto it = doc.find("tool_choice");
  if (it == doc.end() || it->is_null()) return {};
  if (it->is_string()) {
    out = it->get<std::string>();
    return {};
  }
  const auto bad = refused(
      "\"tool_choice\" must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": "
      "{\"name\": <one of the tools>}}");
  if (!it->is_object() || it->value("type", nlohmann::json()) != "function") return bad;
  const auto fn = it->find("function");
  if (fn == it->end() || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string()) return bad;
  const auto& name = (*fn)["name"].get_ref<const std::string&>();
  const auto tools = doc.find("tools");
  if (tools != doc.end() && tools->is_array()) {
    for (const auto& t : *tools) {
      if (t.is_object() && t.contains("function") && t["function"].is_object() &&
          t["function"].value("name", nlohmann::json()) == name)
        return {};
    }
  }
  return refused("\"tool_choice\" names the function \"" + name + "\", which is not one of \"tools\"");
}

// The generation prompt's tokens, as common_sampler_init computes its prefill.
std::vector<llama_token> prefill_tokens(const llama_vocab* vocab, const std::string& generation_prompt) {
  std::vector<llama_token> out;
  if (generation_prompt.empty()) return out;
  std::vector<llama_token> tokens = common_tokenize(vocab, generation_prompt, false, true);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string piece = common_token_to_piece(vocab, tokens[i], true);
    // Some tokenizers add a space before the first special token.
    if (i == 0 && !piece.empty() && std::isspace(static_cast<unsigned char>(piece[0])) &&
        !std::isspace(static_cast<unsigned char>(generation_prompt[0])))
      continue;
    out.push_back(tokens[i]);
  }
  return out;
}

// The chat layer's sampling parameters as llama-server's sampling setup reads them
// (server-schema.cpp: preserved_tokens, then grammar_triggers; common_sampler_init's patterns).
Error take_sampling(const common_chat_params& p, const llama_vocab* vocab, ChatConstraints& out) {
  out.grammar = p.grammar;
  out.grammar_lazy = p.grammar_lazy;
  if (Error e = check_grammar_size(out.grammar, "tools", kSource)) return e;
  for (const auto& t : p.preserved_tokens) {
    auto ids = common_tokenize(vocab, t, false, true);
    if (ids.size() == 1) out.preserved.insert(ids[0]);
  }
  for (const auto& t : p.grammar_triggers) {
    switch (t.type) {
      case COMMON_GRAMMAR_TRIGGER_TYPE_WORD: {
        auto ids = common_tokenize(vocab, t.value, false, true);
        if (ids.size() == 1) {
          if (!out.preserved.count(ids[0]))
            return refused("the chat layer's trigger word '" + t.value + "' is not a preserved token");
          out.trigger_tokens.push_back(ids[0]);
        } else {
          out.trigger_patterns.push_back(regex_escape(t.value));
        }
        break;
      }
      case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN: out.trigger_patterns.push_back(t.value); break;
      case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL: {
        const auto& v = t.value;
        out.trigger_patterns.push_back(v.empty() ? "^$"
                                                 : (v.front() != '^' ? "^" : "") + v + (v.back() != '$' ? "$" : ""));
        break;
      }
      case COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN: out.trigger_tokens.push_back(t.token); break;
    }
  }
  if (out.grammar_lazy && !out.grammar.empty() && out.trigger_patterns.empty() && out.trigger_tokens.empty())
    return refused("the chat layer made a lazy grammar without triggers");
  out.stops = p.additional_stops;
  out.prefill = prefill_tokens(vocab, p.generation_prompt);
  return {};
}

}  // namespace

Error ChatTemplates::init(const llama_model* model, const std::string& override_source, std::string_view origin,
                          std::unique_ptr<ChatTemplates>& out) {
  // llama.cpp's common logger writes to stderr from a thread of its own, past the host's log
  // levels; what it would say about a chat comes back here as an exception, and so as a status.
  static std::once_flag quiet;
  std::call_once(quiet, [] { common_log_set_verbosity_thold(-1); });
  auto made = std::make_unique<ChatTemplates>();
  try {
    common_chat_templates_ptr templates = common_chat_templates_init(model, override_source);
    // llama-server's default: thinking on when the template supports it (--reasoning auto).
    made->supports_thinking_ = common_chat_templates_support_enable_thinking(templates.get());
    made->templates_ = templates.release();
  } catch (const std::exception& e) {
    if (!override_source.empty())
      return sdk::invalid("load config: " + std::string(origin) +
                          " is not a template llama.cpp can use: " + one_line(e.what()));
    made->error_ =
        "the model's chat template (tokenizer.chat_template) is not a Jinja template llama.cpp can use (" +
        one_line(e.what()) +
        "); load the graph with a \"chat-template\" (or \"chat-template-file\"), or format the chat yourself as "
        "input 0 (\"prompt\")";
  }
  out = std::move(made);
  return {};
}

ChatTemplates::~ChatTemplates() { common_chat_templates_free(templates_); }

Error format_chat(const ChatTemplates& templates, const llama_vocab* vocab, std::string_view input,
                  const LlamaOptions& options, ChatTurn& out) {
  const auto doc = nlohmann::json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return refused("malformed JSON");
  if (Error e = check_shape(doc)) return e;
  const auto& messages = doc.is_array() ? doc : doc["messages"];
  if (messages.size() > kMaxMessages) return refused("more than " + std::to_string(kMaxMessages) + " messages");
  if (nested_deeper_than(doc, kMaxDepth)) return refused("nested deeper than " + std::to_string(kMaxDepth) + " levels");
  if (!templates.get()) return refused(templates.error());
  std::string tool_choice;
  if (Error e = tool_choice_text(doc, tool_choice)) return e;
  try {
    // llama.cpp's own JSON keeps the keys' order (a tool's parameters are rendered as given).
    const common_json body = common_json::parse(std::string(input));
    common_json msgs = doc.is_array() ? body : body.at("messages");
    // Each "media_marker" part holds an image's inline tag: its bytes taken out, the part's text
    // the plugin's own marker, which the template renders where the part was.
    std::vector<std::string> images;
    for (size_t i = 0; i < msgs.size(); ++i) {
      common_json& m = msgs.at(i);
      if (!m.is_object() || !m.contains("content") || !m.at("content").is_array()) continue;
      common_json& content = m.at("content");
      for (size_t k = 0; k < content.size(); ++k) {
        common_json& part = content.at(k);
        if (!part.is_object() || !part.contains("type") || !part.at("type").is_string() ||
            part.at("type").get<std::string>() != "media_marker")
          continue;
        if (!part.contains("text") || !part.at("text").is_string())
          return refused("a \"media_marker\" content part needs a \"text\": an inline image tag");
        std::string tag = part.at("text").get<std::string>();
        const size_t before = images.size();
        if (Error e = take_inline_images(tag, images)) return refused(e.detail);
        if (images.size() != before + 1 || tag != media_marker())
          return refused(
              "a \"media_marker\" content part's text must be one inline image, <img "
              "src=\"data:image/...;base64,...\">");
        part["text"] = tag;
      }
    }
    const common_json tools = body.is_object() && body.contains("tools") ? body.at("tools") : common_json();
    // llama-server's checks before it parses the messages.
    for (size_t i = 0; i < msgs.size(); ++i) {
      const auto& m = msgs.at(i);
      const std::string role = m.is_object() ? m.value("role", std::string()) : std::string();
      if (role != "assistant" && m.is_object() && !m.contains("content"))
        return refused("message " + std::to_string(i) + ": all non-assistant messages must contain 'content'");
      if (role == "assistant" && !m.contains("content") && !m.contains("tool_calls"))
        return refused("message " + std::to_string(i) +
                       ": an assistant message must contain 'content' or 'tool_calls'");
    }
    const auto caps = common_chat_templates_get_caps(templates.get());
    common_chat_templates_inputs in;
    in.messages = common_chat_msgs_parse_oaicompat(msgs);
    in.tools = common_chat_tools_parse_oaicompat(tools.is_array() ? tools : common_json::array());
    in.tool_choice = common_chat_tool_choice_parse_oaicompat(tool_choice);
    // With tools, a "json-schema" option is the request's json_schema and a "grammar" of one's
    // own its grammar (which llama.cpp refuses unless tool_choice is "none"), as llama-server takes
    // them. Without tools they constrain the answer as they do a prompt's (the JSON alone, no
    // generation prompt to accept first): llama-server's chat grammar for a schema starts with the
    // template's generation prompt, which a vocabulary that splits its markers cannot give.
    if (!in.tools.empty()) {
      in.json_schema = options.json_schema;
      in.grammar = options.json_schema.empty() ? options.grammar : std::string();
    }
    in.use_jinja = true;
    const auto caps_parallel = caps.find("supports_parallel_tool_calls");
    in.parallel_tool_calls = doc.is_object() && doc.contains("parallel_tool_calls")
                                 ? doc["parallel_tool_calls"].get<bool>()
                                 : caps_parallel != caps.end() && caps_parallel->second;
    in.add_generation_prompt = true;
    // llama-server's prefill_assistant: a trailing assistant message is continued.
    if (!in.messages.empty() && in.messages.back().role == "assistant") {
      if (in.messages.size() >= 2 && in.messages[in.messages.size() - 2].role == "assistant")
        return refused("cannot have 2 or more assistant messages at the end of the list");
      if (!in.messages.back().tool_calls.empty())
        return refused("cannot continue an assistant message that contains tool calls");
      in.continue_final_message = COMMON_CHAT_CONTINUATION_AUTO;
      in.add_generation_prompt = false;
    }
    in.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;  // llama-server's default
    if (doc.is_object() && doc.contains("reasoning_format"))
      in.reasoning_format = common_reasoning_format_from_name(doc["reasoning_format"].get<std::string>());
    in.enable_thinking = templates.supports_thinking();
    if (!in.tools.empty() && in.tool_choice != COMMON_CHAT_TOOL_CHOICE_NONE && !in.grammar.empty())
      return refused("cannot use custom grammar constraints (\"grammar\") with tools");
    if (body.is_object() && body.contains("chat_template_kwargs")) {
      for (const auto& item : body.at("chat_template_kwargs").items())
        in.chat_template_kwargs[item.key()] = item.value().dump();
    }
    if (const auto it = in.chat_template_kwargs.find("enable_thinking"); it != in.chat_template_kwargs.end()) {
      if (it->second == "true") {
        in.enable_thinking = true;
      } else if (it->second == "false") {
        in.enable_thinking = false;
      } else if (!it->second.empty() && it->second[0] == '"') {
        return refused("invalid type for \"enable_thinking\" (expected boolean, got string)");
      }
    }
    const common_chat_params params = common_chat_templates_apply(templates.get(), in);

    ChatTurn turn;
    turn.prompt = params.prompt;
    turn.images = std::move(images);
    if (Error e = take_sampling(params, vocab, turn.constraints)) return e;
    auto parser = std::make_shared<common_chat_parser_params>(params);
    parser->reasoning_format = in.reasoning_format;
    // llama-server inlines deepseek-legacy reasoning only when streaming; the message here is
    // read whole (diffed by the guest), so the reasoning stays in reasoning_content.
    parser->reasoning_in_content = false;
    parser->is_continuation = in.continue_final_message != COMMON_CHAT_CONTINUATION_NONE;
    if (!params.parser.empty()) parser->parser.load(params.parser);
    turn.parser = std::move(parser);
    out = std::move(turn);
    return {};
  } catch (const std::exception& e) {
    return refused(one_line(e.what()));
  } catch (...) {
    return refused("llama.cpp's chat layer failed");
  }
}

}  // namespace wasinn::llamacpp
