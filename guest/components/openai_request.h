// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An OpenAI request body checked into what http_openai sends the llama.cpp plugin, or refused as
// OpenAI refuses (status, message, code, param). Pure: nlohmann/json only, no WIT and no WASI, so
// the same code runs in the guest and natively (tests/fuzz/fuzz_openai_request.cpp). Never throws:
// every value's type is checked before it is read.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace openai {

// JSON that keeps its keys in the order they came: a chat template renders the request's tools
// with tojson, and a schema's property order is the order its grammar writes them in.
using json = nlohmann::ordered_json;

enum class Kind { chat, completion };

// OpenAI's error: {"error": {"message", "type", "param", "code"}}; "" is null.
struct Refusal {
  int status = 400;
  std::string message;
  std::string code;
  std::string param;
};
json error_json(const Refusal& r);

// One of the prompt session's llama.cpp properties (backends/llamacpp/config.cpp) and its value
// as the plugin reads it (a JSON number's text, a schema's JSON text).
struct Property {
  std::string name, value;
  std::string field;  // the request's field that gave it (the param of its refusal)
};

// An image_url part's http(s) URL, which the guest fetches (openai_image_fetch.cpp) when remote
// image URLs are on, then parses the request again with the bytes as a data URL.
struct RemoteImage {
  size_t message = 0, part = 0;  // body["messages"][message]["content"][part]
  std::string url, where;        // as given; "messages[0].content[1]"
  bool https = false;
  std::string authority, path;  // host[:port]; the path with its query, the #fragment dropped
};

// URL's scheme, host and path, or false with why: only http and https, a host, no user:password@
// (no credentials go out), no spaces or control characters, at most 8 KiB.
bool split_remote_url(const std::string& url, RemoteImage& out, std::string& why);

struct Request {
  Kind kind = Kind::chat;
  std::string model;  // "" when the body has none (the only model answers)
  // The plugin's input and its text: "messages" with a JSON array of {role, content}, or (tools,
  // tool calls, template arguments) the object form whose answer is the plugin's parsed "message";
  // "prompt" with the raw prompt.
  std::string input = "prompt";
  std::string text;
  bool message_form = false;         // the object form: the answer is the metadata's "message"
  std::vector<Property> properties;  // set in this order, after NN_OPTIONS
  std::vector<std::string> stops;
  int64_t max_tokens = -1;  // -1: as long as the context holds
  std::string max_tokens_field = "max_tokens";
  bool stream = false;
  bool include_usage = false;
  bool logprobs = false;     // each token's log-probability (the plugin's n-probs) ...
  int64_t top_logprobs = 0;  // ... and that many likeliest candidates'
  // The most bytes a request's images and audio may decode to (image_url parts' base64 data URLs,
  // input_audio parts' data).
  uint64_t max_image_bytes = 0;
  // Remote image URLs on: http(s) image_url parts are listed in remote_images, not refused (and
  // count no bytes here: the fetched bytes are counted when the request is parsed again).
  bool remote_urls = false;
  std::vector<RemoteImage> remote_images;
};

// The default of Request::max_image_bytes (the guest's MAX_IMAGE_BYTES sets another): 20 MiB.
constexpr uint64_t kMaxImageBytes = uint64_t{20} << 20;

// The request body's text as a JSON object in its keys' order, or the refusal of one that is not
// (or whose objects have so many keys that reading them in order would take long).
bool parse_body(const std::string& text, json& body, Refusal& why);

// `j[key]` when `j` is an object holding a value of the fallback's type there, else `fallback`:
// nlohmann's value() throws on a wrong type (and aborts the guest, built without exceptions).
json field(const json& j, const char* key, const json& fallback);
std::string field(const json& j, const char* key, const std::string& fallback);
int64_t field(const json& j, const char* key, int64_t fallback);
uint64_t field(const json& j, const char* key, uint64_t fallback);
bool field(const json& j, const char* key, bool fallback);
// `body` as a request of `kind`: true with `req` filled, false with `why`. A chat message's
// image_url parts (base64 data URLs only) go to the plugin as WasmEdge's inline <img
// src="data:image/...;base64,..."> tags in llama.cpp's "media_marker" content parts, and its
// input_audio parts (base64 WAV or MP3) as <audio src="data:audio/...;base64,..."> tags; at most
// `max_image_bytes` decoded in all. With `remote_urls`, http(s) URLs are listed in req.remote_images.
bool parse_request(Kind kind, const json& body, Request& req, Refusal& why, uint64_t max_image_bytes = kMaxImageBytes,
                   bool remote_urls = false);

// The fields each route honours or accepts (docs/serving.md lists them); for the fuzz target's
// checks and the docs test.
const std::vector<std::string>& known_fields(Kind kind);

}  // namespace openai
