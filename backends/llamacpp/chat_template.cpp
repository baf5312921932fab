// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "chat_template.h"

#include <climits>
#include <vector>

#include <nlohmann/json.hpp>

namespace wasinn::llamacpp {

namespace {
constexpr size_t kMaxMessages = 4096;
}

sdk::Error format_chat(const llama_model* model, std::string_view messages_json, std::string& prompt) {
  const auto parsed = nlohmann::json::parse(messages_json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_array() || parsed.empty()) {
    return sdk::invalid("messages (input 2): give a JSON array of {\"role\": ..., \"content\": ...} objects");
  }
  if (parsed.size() > kMaxMessages) {
    return sdk::invalid("messages (input 2): more than " + std::to_string(kMaxMessages) + " messages");
  }
  // llama_chat_message points at the strings, which must outlive the call.
  std::vector<std::string> roles, contents;
  roles.reserve(parsed.size());
  contents.reserve(parsed.size());
  size_t total = 0;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const auto& m = parsed[i];
    const auto role = m.is_object() ? m.find("role") : m.end();
    const auto content = m.is_object() ? m.find("content") : m.end();
    if (!m.is_object() || role == m.end() || !role->is_string() || content == m.end() || !content->is_string()) {
      return sdk::invalid("messages (input 2): message " + std::to_string(i) +
                          " is not {\"role\": string, \"content\": string}");
    }
    roles.push_back(role->get<std::string>());
    contents.push_back(content->get<std::string>());
    total += roles.back().size() + contents.back().size();
  }
  std::vector<llama_chat_message> chat(parsed.size());
  for (size_t i = 0; i < chat.size(); ++i) chat[i] = {roles[i].c_str(), contents[i].c_str()};

  const char* tmpl = llama_model_chat_template(model, nullptr);  // NULL: llama.cpp uses chatml
  // The formatted chat is its text plus the template's markers: start with room for both.
  if (total > static_cast<size_t>(INT32_MAX / 2)) return {WASINN_TOO_LARGE, "messages (input 2) are too large"};
  std::vector<char> buf(total * 2 + 256);
  int32_t n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), /*add_ass=*/true, buf.data(),
                                        static_cast<int32_t>(buf.size()));
  if (n > static_cast<int32_t>(buf.size())) {
    buf.resize(static_cast<size_t>(n));
    n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), true, buf.data(), n);
  }
  if (n < 0) {
    return sdk::unsupported(
        "messages (input 2): the model's chat template is not one llama.cpp's llama_chat_apply_template knows; format "
        "the conversation yourself and set it as input 0 (\"prompt\")");
  }
  prompt.assign(buf.data(), static_cast<size_t>(n));
  return {};
}

}  // namespace wasinn::llamacpp
