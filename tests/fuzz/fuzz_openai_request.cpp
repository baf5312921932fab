// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_openai_request: the OpenAI endpoint's request parsers
// (guest/components/openai_request.cpp, and the Responses and Messages APIs' translations to chat,
// openai_responses.cpp and anthropic_messages.cpp; compiled here natively as they are into the
// http_openai guest). Each input is a request body, read as the guest reads it and parsed as a chat
// and as a text completion request, and translated from each other API. The parser must never throw or crash; a refusal
// must be OpenAI's error (400, a message); an accepted request must be what the guest sends the llama.cpp plugin: its
// messages or prompt text reads back to the same request, and every property is one the plugin
// has, with a value in its range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "anthropic_messages.h"
#include "openai_message.h"
#include "openai_request.h"
#include "openai_responses.h"

using namespace openai;

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& body) {
  std::fprintf(stderr, "fuzz invariant: %s\nbody: %s\n", what.c_str(), body.c_str());
  std::abort();
}

// The plugin's range of each property the parser may set (backends/llamacpp/config.cpp).
bool property_ok(const Property& p) {
  const json v = json::parse(p.value, nullptr, false);
  auto in = [&](double lo, double hi) { return v.is_number() && v.get<double>() >= lo && v.get<double>() <= hi; };
  auto whole = [&](double lo, double hi) { return v.is_number_integer() && in(lo, hi); };
  if (p.name == "temp") return in(0, 2);
  if (p.name == "top-p" || p.name == "min-p") return in(0, 1);
  if (p.name == "presence-penalty" || p.name == "frequency-penalty") return in(-2, 2);
  if (p.name == "seed") return whole(0, 4294967295.0);
  if (p.name == "top-k") return whole(0, 2147483647.0);
  if (p.name == "repeat-penalty") return in(1e-6, 1e6);
  if (p.name == "repeat-last-n") return whole(-1, 1 << 20);
  if (p.name == "n-probs") return whole(1, 100);
  if (p.name == "typ-p" || p.name == "xtc-probability" || p.name == "xtc-threshold" || p.name == "mirostat-eta")
    return in(0, 1);
  if (p.name == "dynatemp-range" || p.name == "dynatemp-exponent" || p.name == "mirostat-ent" ||
      p.name == "dry-multiplier")
    return in(0, 1e6);
  if (p.name == "dry-base") return in(1, 1e6);
  if (p.name == "mirostat") return whole(0, 2);
  if (p.name == "dry-allowed-length" || p.name == "min-keep") return whole(0, 1 << 20);
  if (p.name == "dry-penalty-last-n") return whole(-1, 1 << 20);
  if (p.name == "ignore-eos") return v.is_boolean();
  if (p.name == "json-schema") return v.is_string() && json::parse(v.get<std::string>(), nullptr, false).is_object();
  if (p.name == "grammar") return v.is_string() && !v.get<std::string>().empty();
  return false;
}

// The body the guest's request reads back to: its messages (and tools ...) or its prompt.
json body_of(const Request& r, const json& sent) {
  if (r.kind == Kind::completion) return {{"prompt", r.text}};
  if (!r.message_form) return {{"messages", sent}};
  json body = sent;  // the object form's keys are the request's own fields
  return body;
}

void check_accepted(const Request& r, const std::string& text) {
  const bool chat = r.kind == Kind::chat;
  if (r.input != (chat ? "messages" : "prompt")) fail("input " + r.input, text);
  for (const Property& p : r.properties) {
    if (!property_ok(p)) fail("property " + p.name + " = " + p.value, text);
  }
  if (r.stops.size() > 4) fail("more than 4 stops", text);
  for (const auto& s : r.stops) {
    if (s.empty()) fail("an empty stop", text);
  }
  if (r.max_tokens != -1 && r.max_tokens < 1) fail("max_tokens " + std::to_string(r.max_tokens), text);
  if (r.top_logprobs < 0 || r.top_logprobs > 100 || (r.top_logprobs > 0 && !r.logprobs))
    fail("top_logprobs " + std::to_string(r.top_logprobs), text);
  json sent;
  if (chat) {
    sent = json::parse(r.text, nullptr, false);
    const json* messages =
        r.message_form ? (sent.is_object() && sent.contains("messages") ? &sent["messages"] : nullptr) : &sent;
    if (!messages || !messages->is_array() || messages->empty()) fail("messages text " + r.text, text);
    bool images = false;
    for (const auto& m : *messages) {
      if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content"))
        fail("a message sent as " + m.dump(), text);
      // A message with images or audio: llama.cpp's parts, text and each clip's or image's inline tag
      // (a media marker).
      if (m["content"].is_array()) {
        images = true;
        for (const auto& part : m["content"]) {
          const bool text_part = part.is_object() && part.size() == 2 && part.value("type", "") == "text" &&
                                 part.contains("text") && part["text"].is_string();
          const std::string tag = part.is_object() && part.contains("text") && part["text"].is_string()
                                      ? part["text"].get<std::string>()
                                      : std::string();
          const bool image_part =
              part.is_object() && part.size() == 2 && part.value("type", "") == "media_marker" &&
              (tag.rfind("<img src=\"data:image/", 0) == 0 || tag.rfind("<audio src=\"data:audio/", 0) == 0);
          if (!text_part && !image_part) fail("a content part sent as " + part.dump(), text);
        }
      } else if (!m["content"].is_string()) {
        fail("a message sent as " + m.dump(), text);
      }
      if (!r.message_form && m.size() != 2) fail("a plain message with more than role and content", text);
    }
    if (images) return;  // the parts are the plugin's, not a request's
  }
  // What the guest sends reads back to the same request.
  Request again;
  Refusal why;
  if (!parse_request(r.kind, body_of(r, sent), again, why)) fail("the sent request is refused: " + why.message, text);
  if (again.text != r.text || again.message_form != r.message_form)
    fail("the sent request reads back as " + again.text, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  json body;
  Refusal why;
  if (!parse_body(text, body, why)) {
    if (why.status != 400 || why.message.empty()) fail("a bad body's refusal", text);
    return 0;
  }
  for (Kind kind : {Kind::chat, Kind::completion}) {
    Request r;
    if (!parse_request(kind, body, r, why)) {
      const json e = error_json(why);
      if (why.status != 400 || why.message.empty() || !e["error"]["message"].is_string())
        fail("a refusal that is not OpenAI's 400: " + e.dump(), text);
      continue;
    }
    check_accepted(r, text);
  }
  // The other APIs: a translation is refused as a 400, or is a chat request that parse_request takes
  // or refuses as any other; the body as a chat answer and as a stream's chunk never breaks their
  // answers' writers.
  for (int api = 0; api < 3; ++api) {
    json chat;
    Refusal refused;
    const bool translated = api == 0   ? responses_api::to_chat(body, chat, refused)
                            : api == 1 ? anthropic::to_chat(body, chat, refused)
                                       : anthropic::to_chat(body, chat, refused, /*count_only=*/true);
    if (!translated) {
      if (refused.status != 400 || refused.message.empty()) fail("a translation's refusal", text);
      continue;
    }
    Request r;
    if (parse_request(Kind::chat, chat, r, why)) check_accepted(r, text);
  }
  (void)responses_api::from_chat(body, body).dump();
  (void)anthropic::from_chat(body, "").dump();
  responses_api::EventStream events(body, "resp_1", "m", 0);
  anthropic::EventStream blocks("msg_1", "m");
  (void)(events.begin() + events.chunk(body) + events.finish("stop", body) + blocks.begin(body) + blocks.chunk(body) +
         blocks.finish("stop", "", body));
  // The body as the plugin's metadata: a message, and the same message grown by the body's text.
  Message before, after;
  if (read_message(body, before)) {
    after = before;
    after.content += text.substr(0, 8);
    if (!after.tool_calls.empty()) after.tool_calls.back().arguments += "}";
    after.tool_calls.push_back({"id", "name", "{"});
    MessageDelta d;
    if (!diff_messages(before, after, d)) fail("a grown message does not extend the one before", text);
    if (d.content != text.substr(0, 8) || d.tool_calls.empty()) fail("the delta of a grown message", text);
    (void)message_json(after, after.content).dump();
  }
  return 0;
}
