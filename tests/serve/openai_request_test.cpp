// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The OpenAI endpoint's request parser and message deltas (guest/components/openai_request.cpp,
// openai_message.cpp), natively: what the http_openai guest sends the llama.cpp plugin for a
// request, the refusals OpenAI's clients read, and the stream deltas of a growing tool call as
// llama-server sends them (tools/server: server_chat_msg_diff_to_json_oaicompat).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "openai_message.h"
#include "openai_request.h"

using namespace openai;

namespace {

Request accepted(Kind kind, const char* body) {
  Request r;
  Refusal why;
  EXPECT_TRUE(parse_request(kind, json::parse(body), r, why)) << body << ": " << why.message;
  return r;
}

Refusal refused(Kind kind, const char* body) {
  Request r;
  Refusal why;
  EXPECT_FALSE(parse_request(kind, json::parse(body), r, why)) << body;
  return why;
}

std::string value_of(const Request& r, const std::string& property) {
  for (const Property& p : r.properties) {
    if (p.name == property) return p.value;
  }
  return "<unset>";
}

const char* kTool = R"({"type": "function", "function": {"name": "get_weather",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}})";

}  // namespace

TEST(OpenAIRequest, PlainChatIsTheMessagesArrayAsBefore) {
  const Request r = accepted(Kind::chat, R"({"model": "m", "messages": [{"role": "system", "content": "terse"},
      {"role": "user", "content": [{"type": "text", "text": "a "}, {"type": "text", "text": "b"}], "name": "x"}],
      "max_tokens": 16, "temperature": 0, "stop": "x", "stream": true, "stream_options": {"include_usage": true}})");
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.input, "messages");
  EXPECT_FALSE(r.message_form);
  EXPECT_EQ(r.text, R"([{"role":"system","content":"terse"},{"role":"user","content":"a b"}])");
  EXPECT_EQ(value_of(r, "temp"), "0");
  EXPECT_EQ(r.max_tokens, 16);
  EXPECT_EQ(r.stops, std::vector<std::string>{"x"});
  EXPECT_TRUE(r.stream && r.include_usage);
}

TEST(OpenAIRequest, LlamaServerExtrasAreThePluginsProperties) {
  const Request r = accepted(Kind::completion, R"({"prompt": ["p"], "top_k": 1, "min_p": 0.05,
      "repeat_penalty": 1.3, "repeat_last_n": 32, "seed": 7, "n_probs": 3, "cache_prompt": true})");
  EXPECT_EQ(r.text, "p");
  EXPECT_EQ(value_of(r, "top-k"), "1");
  EXPECT_EQ(value_of(r, "min-p"), "0.05");
  EXPECT_EQ(value_of(r, "repeat-penalty"), "1.3");
  EXPECT_EQ(value_of(r, "repeat-last-n"), "32");
  EXPECT_EQ(value_of(r, "seed"), "7");
  EXPECT_EQ(value_of(r, "n-probs"), "3");
  EXPECT_TRUE(r.logprobs);
  EXPECT_EQ(r.top_logprobs, 3);
  // The other samplers' fields, each its plugin key.
  const Request s = accepted(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "typical_p": 0.5,
      "xtc_probability": 0.4, "xtc_threshold": 0.2, "dynatemp_range": 0.3, "dynatemp_exponent": 2, "mirostat": 2,
      "mirostat_tau": 4, "mirostat_eta": 0.3, "dry_multiplier": 0.8, "dry_base": 1.5, "dry_allowed_length": 3,
      "dry_penalty_last_n": -1, "min_keep": 2, "ignore_eos": true})");
  const std::pair<const char*, const char*> keys[] = {
      {"typ-p", "0.5"},           {"xtc-probability", "0.4"}, {"xtc-threshold", "0.2"},    {"dynatemp-range", "0.3"},
      {"dynatemp-exponent", "2"}, {"mirostat", "2"},          {"mirostat-ent", "4"},       {"mirostat-eta", "0.3"},
      {"dry-multiplier", "0.8"},  {"dry-base", "1.5"},        {"dry-allowed-length", "3"}, {"dry-penalty-last-n", "-1"},
      {"min-keep", "2"},          {"ignore-eos", "true"}};
  for (const auto& [key, value] : keys) EXPECT_EQ(value_of(s, key), value) << key;
}

TEST(OpenAIRequest, UnknownAndInapplicableFieldsAreRefusedNamingThem) {
  Refusal w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "foo": 1})");
  EXPECT_EQ(w.message, "Unrecognized request argument supplied: foo");
  EXPECT_EQ(w.param, "foo");
  EXPECT_EQ(w.status, 400);
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "top_n_sigma": 1.5})");
  EXPECT_EQ(w.param, "top_n_sigma");
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "mirostat": 3})");
  EXPECT_EQ(w.param, "mirostat");
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "ignore_eos": 1})");
  EXPECT_EQ(w.param, "ignore_eos");
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "audio": {"voice": "alloy"}})");
  EXPECT_EQ(w.param, "audio");
  EXPECT_EQ(w.code, "unsupported_parameter");
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "modalities": ["text", "audio"]})");
  EXPECT_EQ(w.code, "unsupported_value");
  w = refused(Kind::completion, R"({"prompt": "p", "metadata": {}})");
  EXPECT_EQ(w.param, "metadata");
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "top_k": -1})");
  EXPECT_EQ(w.param, "top_k");
  // What asks for nothing is taken: null anywhere, false, empty lists.
  accepted(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "foo": null, "audio": null,
      "logit_bias": {}, "functions": [], "store": false, "service_tier": "auto", "modalities": ["text"],
      "user": "u", "metadata": {"a": "b"}})");
}

TEST(OpenAIRequest, KeysKeepTheirOrder) {
  // A template renders tools with tojson; a schema's properties are written in its grammar's order.
  const Request r = accepted(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}],
      "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
        "properties": {"zeta": {"type": "string"}, "alpha": {"type": "number"}}, "required": ["zeta"]}}}]})");
  EXPECT_NE(r.text.find(R"({"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"}})"),
            std::string::npos)
      << r.text;
  const Request s = accepted(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "response_format":
      {"type": "json_schema", "json_schema": {"name": "n", "schema": {"properties": {"b": {}, "a": {}}}}}})");
  // A string holding the schema: the plugin reads an object value into a sorted map.
  EXPECT_EQ(value_of(s, "json-schema"), R"("{\"properties\":{\"b\":{},\"a\":{}}}")");
  // An object too large to read in order cheaply is refused, not read for minutes.
  std::string big = R"({"messages": [{"role": "user", "content": "hi"}], "metadata": {)";
  for (int i = 0; i < 5000; ++i) big += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\": \"v\"";
  big += "}}";
  json body;
  Refusal why;
  EXPECT_FALSE(parse_body(big, body, why));
  EXPECT_EQ(why.status, 400);
}

TEST(OpenAIRequest, ToolsGoInTheObjectForm) {
  const std::string body = std::string(R"({"messages": [{"role": "user", "content": "weather?"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "sunny"}],
      "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "parallel_tool_calls": false,
      "chat_template_kwargs": {"enable_thinking": false}, "tools": [)") +
                           kTool + "]}";
  const Request r = accepted(Kind::chat, body.c_str());
  EXPECT_TRUE(r.message_form);
  const json sent = json::parse(r.text);
  EXPECT_EQ(sent["tools"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(sent["tool_choice"], "required");  // the named function alone
  EXPECT_EQ(sent["parallel_tool_calls"], false);
  EXPECT_EQ(sent["chat_template_kwargs"]["enable_thinking"], false);
  EXPECT_EQ(sent["messages"][1]["content"], "");
  EXPECT_EQ(sent["messages"][1]["tool_calls"][0]["function"]["arguments"], "{\"city\": \"Paris\"}");
  EXPECT_EQ(sent["messages"][2]["tool_call_id"], "c1");
}

TEST(OpenAIRequest, BadToolsAreRefusedNamingTheField) {
  const std::string tools = std::string(R"("tools": [)") + kTool + "]";
  const std::string with_tools = R"({"messages": [{"role": "user", "content": "hi"}], )" + tools;
  EXPECT_EQ(refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}], "tool_choice": "auto"})").param,
            "tool_choice");
  EXPECT_EQ(
      refused(Kind::chat, (with_tools + R"(, "tool_choice": {"type": "function", "function": {"name": "x"}}})").c_str())
          .param,
      "tool_choice");
  EXPECT_EQ(refused(Kind::chat, (with_tools + R"(, "response_format": {"type": "json_object"}})").c_str()).param,
            "response_format");
  EXPECT_EQ(refused(Kind::chat, R"({"messages": [{"role": "user", "content": "hi"}],
      "tools": [{"type": "function", "function": {"name": "bad name"}}]})")
                .param,
            "tools");
  EXPECT_EQ(refused(Kind::chat, R"({"messages": [{"role": "tool", "content": "x"}]})").param, "messages");
  EXPECT_EQ(refused(Kind::chat, R"({"messages": [{"role": "assistant", "content": null,
      "tool_calls": [{"type": "function", "function": {"name": "f"}}]}]})")
                .param,
            "messages");
}

TEST(OpenAIMessage, DeltasAreLlamaServers) {
  auto message = [](const char* text) {
    Message m;
    EXPECT_TRUE(read_message(json{{"message", json::parse(text)}}, m));
    return m;
  };
  const Message m0 = message(R"({"role": "assistant", "content": ""})");
  const Message m1 = message(R"({"role": "assistant", "content": "Let me", "reasoning_content": "hm"})");
  const Message m2 = message(R"({"role": "assistant", "content": "Let me", "reasoning_content": "hm",
      "tool_calls": [{"type": "function", "id": "c1", "function": {"name": "get_weather", "arguments": "{\"ci"}}]})");
  const Message m3 = message(R"({"role": "assistant", "content": "Let me", "reasoning_content": "hm",
      "tool_calls": [{"type": "function", "id": "c1", "function": {"name": "get_weather", "arguments": "{\"city\": 1}"}},
                     {"type": "function", "id": "c2", "function": {"name": "f", "arguments": ""}}]})");
  MessageDelta d;
  ASSERT_TRUE(diff_messages(m0, m1, d));
  EXPECT_EQ(d.content, "Let me");
  EXPECT_EQ(d.reasoning, "hm");
  EXPECT_TRUE(d.tool_calls.empty());
  ASSERT_TRUE(diff_messages(m1, m2, d));
  EXPECT_EQ(d.content, "");
  ASSERT_EQ(d.tool_calls.size(), 1u);
  EXPECT_EQ(d.tool_calls[0], json::parse(R"({"index": 0, "id": "c1", "type": "function",
                            "function": {"name": "get_weather", "arguments": "{\"ci"}})"));
  ASSERT_TRUE(diff_messages(m2, m3, d));
  ASSERT_EQ(d.tool_calls.size(), 2u);
  EXPECT_EQ(d.tool_calls[0], json::parse(R"({"index": 0, "function": {"arguments": "ty\": 1}"}})"));
  EXPECT_EQ(d.tool_calls[1], json::parse(R"({"index": 1, "id": "c2", "type": "function", "function": {"name": "f"}})"));
  // A message that lost a call, or rewrote its text, is no delta.
  EXPECT_FALSE(diff_messages(m3, m2, d));
  EXPECT_FALSE(diff_messages(m1, message(R"({"content": "Other"})"), d));
  // The whole answer: content null beside tool calls, as OpenAI sends it.
  const json whole = message_json(m3, "");
  EXPECT_TRUE(whole["content"].is_null());
  EXPECT_EQ(whole["tool_calls"][1]["function"]["name"], "f");
  EXPECT_EQ(whole["reasoning_content"], "hm");
  EXPECT_EQ(message_json(m1, "Let me")["content"], "Let me");
}

TEST(OpenAIRequest, ImagePartsGoToThePluginAsInlineTagsInMediaMarkerParts) {
  const Request r = accepted(Kind::chat, R"({"messages": [{"role": "system", "content": "terse"},
      {"role": "user", "content": [{"type": "text", "text": "what is"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
        {"type": "text", "text": "here"}]}]})");
  EXPECT_FALSE(r.message_form);
  EXPECT_EQ(r.text,
            R"([{"role":"system","content":"terse"},{"role":"user","content":[{"type":"text","text":"what is"},)"
            R"({"type":"media_marker","text":"<img src=\"data:image/png;base64,iVBORw0KGgo=\">"},)"
            R"({"type":"text","text":"here"}]}])");
  // The data URL's own type does not matter: the tag names what the bytes are (JPEG here).
  const Request j = accepted(Kind::chat, R"({"messages": [{"role": "user", "content": [
      {"type": "image_url", "image_url": {"url": "DATA:image/x-whatever;BASE64,/9j/4AAQ"}}]}]})");
  EXPECT_NE(j.text.find(R"(<img src=\"data:image/jpeg;base64,/9j/4AAQ\">)"), std::string::npos) << j.text;
}

TEST(OpenAIRequest, RemoteImageUrlsAreListedForTheGuestToFetchWhenOn) {
  const json body = json::parse(R"({"messages": [{"role": "system", "content": "terse"},
      {"role": "user", "content": [{"type": "text", "text": "what"},
        {"type": "image_url", "image_url": {"url": "HTTPS://Example.com:8443/a.png?x=1#frag"}},
        {"type": "image_url", "image_url": {"url": "http://10.0.0.1"}}]}]})");
  Request r;
  Refusal why;
  ASSERT_TRUE(openai::parse_request(Kind::chat, body, r, why, openai::kMaxImageBytes, true)) << why.message;
  ASSERT_EQ(r.remote_images.size(), 2u);
  EXPECT_EQ(r.remote_images[0].message, 1u);
  EXPECT_EQ(r.remote_images[0].part, 1u);
  EXPECT_TRUE(r.remote_images[0].https);
  EXPECT_EQ(r.remote_images[0].authority, "Example.com:8443");
  EXPECT_EQ(r.remote_images[0].path, "/a.png?x=1");  // the fragment is not sent
  EXPECT_EQ(r.remote_images[0].where, "messages[1].content[1]");
  EXPECT_EQ(r.remote_images[1].part, 2u);
  EXPECT_FALSE(r.remote_images[1].https);
  EXPECT_EQ(r.remote_images[1].path, "/");
  // Off (the default): refused, saying how to turn it on.
  ASSERT_FALSE(openai::parse_request(Kind::chat, body, r, why));
  EXPECT_NE(why.message.find("--image-urls"), std::string::npos) << why.message;
  // Bad URLs are refused before anything is fetched.
  for (const char* url : {"http://user:pw@example.com/a.png", "http:///a.png", "https://:80/a", "http://a b/c",
                          "http://example.com/\x01"}) {
    const json bad = {
        {"messages", {{{"role", "user"}, {"content", {{{"type", "image_url"}, {"image_url", {{"url", url}}}}}}}}}};
    EXPECT_FALSE(openai::parse_request(Kind::chat, bad, r, why, openai::kMaxImageBytes, true)) << url;
    EXPECT_EQ(why.code, "invalid_image_url") << url;
  }
  // file: and ftp: stay refused when on.
  const json file = {
      {"messages",
       {{{"role", "user"}, {"content", {{{"type", "image_url"}, {"image_url", {{"url", "file:///etc/passwd"}}}}}}}}}};
  EXPECT_FALSE(openai::parse_request(Kind::chat, file, r, why, openai::kMaxImageBytes, true));
  EXPECT_NE(why.message.find("only http:// and https://"), std::string::npos) << why.message;
}

TEST(OpenAIRequest, BadImagesAreRefusedSayingWhat) {
  auto image = [](const std::string& url) {
    return R"({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": ")" + url +
           R"("}}]}]})";
  };
  Refusal w = refused(Kind::chat, image("https://example.com/a.png").c_str());
  EXPECT_NE(w.message.find("remote image URLs are off"), std::string::npos) << w.message;
  EXPECT_EQ(w.code, "invalid_image_url");
  EXPECT_EQ(w.param, "messages");
  w = refused(Kind::chat, image("file:///etc/passwd").c_str());
  EXPECT_NE(w.message.find("remote image URLs are off"), std::string::npos) << w.message;
  w = refused(Kind::chat, image("data:text/plain;base64,aGk=").c_str());
  EXPECT_NE(w.message.find("must be a base64 data URL of an image"), std::string::npos) << w.message;
  w = refused(Kind::chat, image("data:image/png,rawbytes").c_str());
  EXPECT_NE(w.message.find("must be a base64 data URL of an image"), std::string::npos) << w.message;
  w = refused(Kind::chat, image("data:image/png;base64,a b c").c_str());
  EXPECT_NE(w.message.find("not base64"), std::string::npos) << w.message;
  w = refused(Kind::chat, image("data:image/png;base64,").c_str());
  EXPECT_NE(w.message.find("holds no image"), std::string::npos) << w.message;
  w = refused(Kind::chat, image("data:image/webp;base64,UklGRiQAAABXRUJQVlA4IA==").c_str());
  EXPECT_NE(w.message.find("WebP"), std::string::npos) << w.message;
  EXPECT_EQ(w.code, "invalid_image_format");
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "x"}]}]})");
  EXPECT_NE(w.message.find("messages[0].content[0].image_url must be {\"url\""), std::string::npos) << w.message;
  w = refused(Kind::chat, R"({"messages": [{"role": "user", "content": [{"type": "file", "file": {}}]}]})");
  EXPECT_EQ(w.code, "unsupported_content_type");
  // Bytes over the limit, counted over the request's images (decoded: 8 bytes each here).
  Request r;
  const json two = json::parse(R"({"messages": [{"role": "user", "content": [
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
      {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]})");
  EXPECT_TRUE(parse_request(Kind::chat, two, r, w, 16)) << w.message;
  EXPECT_FALSE(parse_request(Kind::chat, two, r, w, 15));
  EXPECT_NE(w.message.find("16 bytes (decoded) so far, over this server's limit of 15 bytes"), std::string::npos)
      << w.message;
  EXPECT_EQ(w.code, "image_too_large");
}

namespace {

std::string base64(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += abc[v >> 18 & 63];
    out += abc[v >> 12 & 63];
    out += i + 1 < bytes.size() ? abc[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? abc[v & 63] : '=';
  }
  return out;
}

std::string le32(uint32_t v) {
  return {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
}

// A mono 16-bit 16 kHz WAV of `samples` zero samples; `riff` and `data` override its sizes.
std::string wav(uint32_t samples, int64_t riff = -1, int64_t data = -1) {
  std::string fmt =
      le32(16) + std::string("\x01\x00\x01\x00", 4) + le32(16000) + le32(32000) + std::string("\x02\x00\x10\x00", 4);
  return "RIFF" + le32(riff >= 0 ? static_cast<uint32_t>(riff) : 36 + 2 * samples) + "WAVEfmt " + fmt + "data" +
         le32(data >= 0 ? static_cast<uint32_t>(data) : 2 * samples) + std::string(2 * samples, '\0');
}

std::string audio_chat(const std::string& data, const std::string& format) {
  return R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "what is said?"},
      {"type": "input_audio", "input_audio": {"data": ")" +
         data + R"(", "format": ")" + format + R"("}}]}]})";
}

}  // namespace

TEST(OpenAIRequest, AudioPartsGoToThePluginAsInlineTagsInMediaMarkerParts) {
  Request r;
  Refusal w;
  const std::string clip = base64(wav(8));
  ASSERT_TRUE(parse_request(Kind::chat, json::parse(audio_chat(clip, "wav")), r, w)) << w.message;
  EXPECT_EQ(r.text, R"([{"role":"user","content":[{"type":"text","text":"what is said?"},)"
                    R"({"type":"media_marker","text":"<audio src=\"data:audio/wav;base64,)" +
                        clip + R"(\">"}]}])");
  // An MP3 (an ID3 tag, or a frame's sync bits) goes as audio/mpeg; the plugin reads the bytes.
  ASSERT_TRUE(parse_request(Kind::chat, json::parse(audio_chat(base64("ID3\x04\0\0\0\0\0\0"), "mp3")), r, w))
      << w.message;
  EXPECT_NE(r.text.find(R"(<audio src=\"data:audio/mpeg;base64,SUQz)"), std::string::npos) << r.text;
  // Images and audio share the request's byte limit (MAX_IMAGE_BYTES): 60 bytes of WAV, 8 of PNG.
  const json both = json::parse(R"({"messages": [{"role": "user", "content": [
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
      {"type": "input_audio", "input_audio": {"data": ")" +
                                clip + R"(", "format": "wav"}}]}]})");
  EXPECT_TRUE(parse_request(Kind::chat, both, r, w, 68)) << w.message;
  EXPECT_FALSE(parse_request(Kind::chat, both, r, w, 67));
  EXPECT_NE(w.message.find("images and audio are 68 bytes (decoded) so far, over this server's limit of 67 bytes"),
            std::string::npos)
      << w.message;
  EXPECT_EQ(w.code, "audio_too_large");
}

TEST(OpenAIRequest, BadAudioIsRefusedSayingWhat) {
  const std::string clip = base64(wav(8));
  struct Case {
    std::string body, says, code;
  } cases[] = {
      {audio_chat(clip, "flac"), "format must be \"wav\" or \"mp3\"", "invalid_audio_format"},
      {audio_chat(clip, "mp3"), "is a WAV file, not the MP3 its format says", "invalid_audio"},
      {audio_chat("@@@@", "wav"), "input_audio.data is not base64", "invalid_audio"},
      {audio_chat("", "wav"), "holds no audio", "invalid_audio"},
      {audio_chat("data:audio/wav;base64," + clip, "wav"), "is a data URL", "invalid_audio"},
      {audio_chat(base64("this is text, not a sound\n"), "wav"), "no audio file this server reads", "invalid_audio"},
      {audio_chat(base64("fLaC\0\0\0\x22"), "wav"), "is a FLAC file, not the WAV", "invalid_audio"},
      {audio_chat(base64("OggS\0\x02\0\0"), "mp3"), "an Ogg file, which this server does not decode", "invalid_audio"},
      // Cut in half: the RIFF header says more than the data holds.
      {audio_chat(base64(wav(8).substr(0, 30)), "wav"), "truncated WAV file: its RIFF header says 60 bytes",
       "invalid_audio"},
      // A data chunk that claims a gigabyte inside a RIFF of 60 bytes: the header lies.
      {audio_chat(base64(wav(8, -1, 1 << 30)), "wav"), "'data' chunk claims 1073741824 bytes, past the file's end",
       "invalid_audio"},
      {audio_chat(base64("RIFF" + le32(4) + "WAVE"), "wav"), "no 'fmt ' chunk", "invalid_audio"},
      {R"({"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": "AAAA"}]}]})",
       "input_audio must be {\"data\"", ""},
      {R"({"messages": [{"role": "user", "content": [{"type": "input_audio",
          "input_audio": {"data": "AAAA", "format": "wav", "rate": 8000}}]}]})",
       "unknown field 'rate'", ""},
  };
  for (const Case& c : cases) {
    const Refusal w = refused(Kind::chat, c.body.c_str());
    EXPECT_NE(w.message.find(c.says), std::string::npos) << w.message;
    EXPECT_EQ(w.code, c.code) << w.message;
    EXPECT_EQ(w.param, "messages");
  }
}
