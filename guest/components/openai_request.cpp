// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// openai_request.h: every field of a chat or text completion request is honoured (as a llama.cpp
// property, a stop text, the answer's shape), accepted because it changes nothing about the answer,
// or refused naming it: a client that sent a field expects its effect, so none is dropped.
#include "openai_request.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace openai {
namespace {

std::string text_of(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

bool refuse(Refusal& why, const std::string& message, const std::string& param, const std::string& code = "") {
  why = Refusal{400, message, code, param};
  return false;
}

// Adds a part's decoded bytes to the request's media so far; false after refusing past MAX_IMAGE_BYTES.
bool within_media_limit(uint64_t& bytes, uint64_t size, uint64_t max_bytes, const char* what, const char* code,
                        Refusal& why) {
  bytes += size;
  if (bytes <= max_bytes) return true;
  return refuse(why,
                std::string("the request's ") + what + " are " + std::to_string(bytes) + " bytes (decoded) so far, " +
                    "over this server's limit of " + std::to_string(max_bytes) + " bytes per request (MAX_IMAGE_BYTES)",
                "messages", code);
}

// Null, false and an empty list or object ask for nothing.
bool asks_something(const json& v) {
  if (v.is_null() || (v.is_boolean() && !v.get<bool>())) return false;
  return !((v.is_array() || v.is_object()) && v.empty());
}

bool whole_in(const json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned())
    return v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX) && lo <= v.get<int64_t>() && v.get<int64_t>() <= hi;
  return v.is_number_integer() && lo <= v.get<int64_t>() && v.get<int64_t>() <= hi;
}

bool number_in(const json& v, double lo, double hi) {
  return v.is_number() && std::isfinite(v.get<double>()) && lo <= v.get<double>() && v.get<double>() <= hi;
}

bool is_string(const json& o, const char* key) { return o.is_object() && o.contains(key) && o[key].is_string(); }

// Everything the fields say, before the messages' form is chosen.
struct Reading {
  Reading(Request& q, Refusal& w) : req(q), why(w) {}
  Request& req;
  Refusal& why;
  json messages;  // the messages, checked, each {role, content, ...}
  bool messages_need_object = false;
  json tools = json::array();
  json tool_choice;  // null: not given
  json parallel_tool_calls;
  json chat_template_kwargs;
  json reasoning_format;
  const char* constraint = nullptr;  // the field that set a grammar: response_format, json_schema or grammar
  bool has_n_probs = false;
};

using Reader = bool (*)(const json& v, const char* field, Reading& r);

// A message's content: a string, null, or OpenAI's list of parts of which the text ones are joined.
bool content_text(const json& content, std::string& text) {
  text.clear();
  if (content.is_string()) {
    text = content.get<std::string>();
    return true;
  }
  if (content.is_null()) return true;
  if (!content.is_array()) return false;
  for (const auto& part : content) {
    if (!is_string(part, "type") || part["type"] != "text" || !is_string(part, "text")) return false;
    text += part["text"].get<std::string>();
  }
  return true;
}

// Standard base64 (RFC 4648 section 4: A-Z a-z 0-9 + /, '=' padding optional), as the plugin
// decodes it: the decoded size, and the first bytes (up to `head_size`) for the format's signature.
bool base64_size(const std::string& text, size_t from, uint64_t& size, std::string& head, size_t head_size) {
  size_t end = text.size();
  while (end > from && text[end - 1] == '=' && text.size() - end < 2) --end;  // up to two '='s of padding
  const size_t n = end - from;
  if (n % 4 == 1) return false;
  uint32_t bits = 0;
  int n_bits = 0;
  head.clear();
  for (size_t i = from; i < end; ++i) {
    const char c = text[i];
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) return false;
    if (head.size() < head_size) {
      bits = (bits << 6) | static_cast<uint32_t>(v);
      n_bits += 6;
      if (n_bits >= 8) {
        n_bits -= 8;
        head.push_back(static_cast<char>((bits >> n_bits) & 0xFF));
      }
    }
  }
  size = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
  return true;
}

bool starts(const std::string& bytes, size_t at, const char* sig, size_t n) {
  return bytes.size() >= at + n && !bytes.compare(at, n, sig, n);
}

// The image formats this server's decoder (stb_image, in the llama.cpp plugin's libmtmd) does not
// read but a client may well send: named in the refusal. Everything else goes to the plugin, which
// reads PNG, JPEG, GIF, BMP (and TGA, PSD, HDR, PNM) and refuses the rest with stb_image's reason.
const char* unreadable_format(const std::string& head) {
  if (starts(head, 0, "RIFF", 4) && starts(head, 8, "WEBP", 4)) return "WebP";
  if (starts(head, 0, "II*\0", 4) || starts(head, 0, "MM\0*", 4)) return "TIFF";
  if (starts(head, 4, "ftypavi", 7)) return "AVIF";
  if (starts(head, 4, "ftyphei", 7) || starts(head, 4, "ftypmif1", 8) || starts(head, 4, "ftyphev", 7)) return "HEIF";
  if (starts(head, 0, "\0\0\1\0", 4)) return "ICO";
  if (starts(head, 0, "<svg", 4) || starts(head, 0, "<?xml", 5)) return "SVG";
  return nullptr;
}

// The subtype of the image's data URL the plugin gets (it reads the bytes, not the name).
const char* format_name(const std::string& head) {
  if (starts(head, 0, "\x89PNG", 4)) return "png";
  if (starts(head, 0, "\xFF\xD8\xFF", 3)) return "jpeg";
  if (starts(head, 0, "GIF8", 4)) return "gif";
  if (starts(head, 0, "BM", 2)) return "bmp";
  return "unknown";
}

}  // namespace

bool split_remote_url(const std::string& url, RemoteImage& out, std::string& why) {
  if (url.size() > 8192) {
    why = "the URL is longer than 8 KiB";
    return false;
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) {
      why = "the URL holds a space or a control character (percent-encode them)";
      return false;
    }
  }
  std::string lower;
  for (size_t i = 0; i < url.size() && i < 8; ++i)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(url[i])));
  size_t at;
  if (!lower.compare(0, 7, "http://")) {
    out.https = false;
    at = 7;
  } else if (!lower.compare(0, 8, "https://")) {
    out.https = true;
    at = 8;
  } else {
    why = "only http:// and https:// URLs are fetched";
    return false;
  }
  const size_t end = url.find_first_of("/?#", at);
  out.authority = url.substr(at, end == std::string::npos ? std::string::npos : end - at);
  if (out.authority.find('@') != std::string::npos) {
    why = "the URL holds credentials (user:password@), which this server does not send";
    return false;
  }
  if (out.authority.empty() || out.authority[0] == ':') {
    why = "the URL names no host";
    return false;
  }
  std::string rest = end == std::string::npos ? "" : url.substr(end);
  const size_t hash = rest.find('#');
  if (hash != std::string::npos) rest.resize(hash);  // a fragment is the client's, never sent
  if (rest.empty() || rest[0] == '?') rest = "/" + rest;
  out.path = rest;
  out.url = url;
  return true;
}

namespace {

// An image_url part's URL as the plugin takes an image: WasmEdge's inline tag, <img
// src="data:image/...;base64,...">, which the plugin's chat layer carries through the template and
// then decodes where the template put it. Only data: URLs: a server must not fetch what a client
// names. `bytes` adds the image's decoded size.
bool image_tag(const json& part, const std::string& where, uint64_t max_bytes, uint64_t& bytes, std::string& tag,
               Refusal& why, std::vector<RemoteImage>* remote) {
  const json image_url = part.contains("image_url") ? part["image_url"] : json();
  if (!image_url.is_object() || !is_string(image_url, "url"))
    return refuse(why, where + ".image_url must be {\"url\": \"data:image/png;base64,...\"}", "messages");
  for (auto it = image_url.begin(); it != image_url.end(); ++it) {
    // detail (auto, low, high) picks OpenAI's tiling; a projector has one input size: taken, no effect.
    const bool detail = it.key() == "detail" && (it->is_null() || *it == "auto" || *it == "low" || *it == "high");
    if (it.key() != "url" && !detail)
      return refuse(why, where + ".image_url: unknown or invalid field '" + it.key() + "' (it takes url and detail)",
                    "messages");
  }
  const std::string& url = image_url["url"].get_ref<const std::string&>();
  std::string scheme;
  for (size_t i = 0; i < url.size() && i < 16 && url[i] != ':'; ++i)
    scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(url[i])));
  if (remote && (scheme == "http" || scheme == "https")) {
    RemoteImage image;
    std::string bad;
    if (!split_remote_url(url, image, bad))
      return refuse(why, where + ".image_url.url: " + bad, "messages", "invalid_image_url");
    image.where = where;
    remote->push_back(std::move(image));
    return true;  // the tag comes with the fetched bytes, when the request is parsed again
  }
  if (remote && (scheme == "file" || scheme == "ftp"))
    return refuse(why,
                  where + ".image_url.url is a " + scheme + " URL: this server fetches only http:// and https:// ones",
                  "messages", "invalid_image_url");
  if (scheme == "http" || scheme == "https" || scheme == "file" || scheme == "ftp")
    return refuse(why,
                  where + ".image_url.url is a " + scheme +
                      " URL: this server does not fetch images a request names (remote image URLs are off" +
                      (scheme == "http" || scheme == "https" ? std::string(": wasinn serve --image-urls turns them on")
                                                             : std::string()) +
                      "); send the image itself as a data URL, data:image/png;base64,...",
                  "messages", "invalid_image_url");
  const size_t comma = url.find(',');
  const std::string head = url.substr(0, comma == std::string::npos ? 0 : comma);
  std::string lower;
  for (char c : head) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool ends_base64 = lower.size() >= 7 && !lower.compare(lower.size() - 7, 7, ";base64");
  if (comma == std::string::npos || lower.compare(0, 11, "data:image/") || !ends_base64)
    return refuse(why,
                  where +
                      ".image_url.url must be a base64 data URL of an image, data:image/png;base64,... (PNG, "
                      "JPEG, GIF or BMP)",
                  "messages", "invalid_image_url");
  uint64_t size = 0;
  std::string first;
  if (!base64_size(url, comma + 1, size, first, 16))
    return refuse(why,
                  where + ".image_url.url: the data after \"base64,\" is not base64 (A-Z a-z 0-9 + /, '=' padding)",
                  "messages", "invalid_image_url");
  if (size == 0) return refuse(why, where + ".image_url.url holds no image (no data)", "messages", "invalid_image_url");
  if (const char* format = unreadable_format(first))
    return refuse(why,
                  where + ".image_url.url is a " + format +
                      " image, which this server's image decoder (stb_image) does not read: send PNG, JPEG, GIF or BMP",
                  "messages", "invalid_image_format");
  if (!within_media_limit(bytes, size, max_bytes, "images", "image_too_large", why)) return false;
  tag = "<img src=\"data:image/" + std::string(format_name(first)) + ";base64," + url.substr(comma + 1) + "\">";
  return true;
}

uint32_t le32(const std::string& b, size_t at) {
  const auto u = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(b[at + i])); };
  return u(0) | u(1) << 8 | u(2) << 16 | u(3) << 24;
}

// A WAV file's RIFF chunks, walked as far as `head` (its first decoded bytes) reaches, each size
// checked against the file's `size`: a truncated file or one whose header lies is refused here,
// saying how. "" when nothing is wrong as far as the head goes (the plugin walks the whole file).
std::string wav_fault(const std::string& head, uint64_t size) {
  const uint64_t riff_end = uint64_t{le32(head, 4)} + 8;
  if (riff_end > size)
    return "is a truncated WAV file: its RIFF header says " + std::to_string(riff_end) + " bytes, the data holds " +
           std::to_string(size);
  bool fmt = false;
  uint64_t at = 12;
  for (; at + 8 <= head.size() && at + 8 <= riff_end;) {
    const std::string id = head.substr(static_cast<size_t>(at), 4);
    const uint64_t chunk = le32(head, static_cast<size_t>(at) + 4);
    std::string shown;
    for (char c : id) shown += (c >= 32 && c < 127) ? c : '?';
    if (at + 8 + chunk > riff_end)
      return "is a WAV file whose '" + shown + "' chunk claims " + std::to_string(chunk) +
             " bytes, past the file's end (truncated, or its header lies)";
    if (id == "fmt ") fmt = true;
    if (id == "data") return fmt ? "" : "is a WAV file with its 'data' chunk before any 'fmt ' chunk";
    at += 8 + chunk + (chunk & 1);
  }
  if (at >= riff_end) return std::string("is a WAV file with no '") + (fmt ? "data" : "fmt ") + "' chunk";
  return "";
}

// What an audio file's first bytes say it is, as this server's decoder (miniaudio, in the llama.cpp
// plugin's libmtmd) tells them apart: "wav", "mp3", "flac", or the name of a format it does not read.
std::string audio_kind(const std::string& head) {
  if (starts(head, 0, "RIFF", 4) && starts(head, 8, "WAVE", 4)) return "wav";
  if (starts(head, 0, "ID3", 3)) return "mp3";
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0xFF &&
      (static_cast<unsigned char>(head[1]) & 0xE0) == 0xE0)
    return "mp3";
  if (starts(head, 0, "fLaC", 4)) return "flac";
  if (starts(head, 0, "OggS", 4)) return "an Ogg file";
  if (starts(head, 4, "ftyp", 4)) return "an MP4/M4A file";
  if (starts(head, 0, "RIFF", 4)) return "a RIFF file that is not WAVE";
  return "";
}

// An input_audio part, {"type": "input_audio", "input_audio": {"data": "<base64>", "format": "wav"
// | "mp3"}} (OpenAI's shape), as the plugin takes audio: an inline tag beside the image's, <audio
// src="data:audio/...;base64,...">. The bytes count against the request's media limit with its
// images'; a file that is not what its format says, or whose WAV header is cut or lies, is refused.
bool audio_tag(const json& part, const std::string& where, uint64_t max_bytes, uint64_t& bytes, std::string& tag,
               Refusal& why) {
  const std::string shape = where + ".input_audio must be {\"data\": \"<base64>\", \"format\": \"wav\" or \"mp3\"}";
  const json audio = part.contains("input_audio") ? part["input_audio"] : json();
  if (!audio.is_object() || !is_string(audio, "data")) return refuse(why, shape, "messages");
  for (auto it = audio.begin(); it != audio.end(); ++it) {
    if (it.key() != "data" && it.key() != "format")
      return refuse(why, where + ".input_audio: unknown field '" + it.key() + "' (it takes data and format)",
                    "messages");
  }
  const std::string format = is_string(audio, "format") ? audio["format"].get<std::string>() : "";
  if (format != "wav" && format != "mp3")
    return refuse(why,
                  where + ".input_audio.format must be \"wav\" or \"mp3\" (the formats OpenAI's input_audio takes)",
                  "messages", "invalid_audio_format");
  const std::string& data = audio["data"].get_ref<const std::string&>();
  if (!data.compare(0, 5, "data:"))
    return refuse(why,
                  where + ".input_audio.data is a data URL: send the file's base64 alone (no \"data:...;base64,\")",
                  "messages", "invalid_audio");
  uint64_t size = 0;
  std::string head;
  if (!base64_size(data, 0, size, head, 4096))
    return refuse(why, where + ".input_audio.data is not base64 (A-Z a-z 0-9 + /, '=' padding)", "messages",
                  "invalid_audio");
  if (size == 0) return refuse(why, where + ".input_audio.data holds no audio (no data)", "messages", "invalid_audio");
  const std::string kind = audio_kind(head);
  if (kind != format) {
    const std::string upper = format == "wav" ? "WAV" : "MP3";
    const std::string is = kind == "wav"    ? "a WAV file"
                           : kind == "mp3"  ? "an MP3 file"
                           : kind == "flac" ? "a FLAC file"
                           : kind.empty() ? "no audio file this server reads (its first bytes are no WAV or MP3 header)"
                                          : kind + ", which this server does not decode";
    return refuse(why,
                  where + ".input_audio.data is " + is + ", not the " + upper + " its format says: send " +
                      "a WAV or MP3 file and name its format",
                  "messages", "invalid_audio");
  }
  if (format == "wav") {
    const std::string fault = head.size() >= 12 ? wav_fault(head, size) : "is too short to be a WAV file";
    if (!fault.empty()) return refuse(why, where + ".input_audio.data " + fault, "messages", "invalid_audio");
  }
  if (!within_media_limit(bytes, size, max_bytes, "images and audio", "audio_too_large", why)) return false;
  tag = "<audio src=\"data:audio/" + std::string(format == "wav" ? "wav" : "mpeg") + ";base64," + data + "\">";
  return true;
}

// A message's content with images and audio: OpenAI's parts as llama.cpp's chat layer takes them,
// text parts and each image or audio clip as a "media_marker" part holding its inline tag (as
// llama-server makes one of each). llama.cpp joins them as it joins llama-server's (text parts with a
// newline between them, none beside a media part), so the model's template sees what llama-server's
// would.
bool content_parts(const json& content, const std::string& where, uint64_t max_bytes, uint64_t& bytes, json& out,
                   bool& has_media, Refusal& why, size_t message, std::vector<RemoteImage>* remote) {
  has_media = false;
  if (!content.is_array()) return true;
  json parts = json::array();
  size_t i = 0;
  for (const auto& part : content) {
    const std::string at = where + ".content[" + std::to_string(i++) + "]";
    const std::string type = is_string(part, "type") ? part["type"].get<std::string>() : "";
    if (type == "text" && is_string(part, "text")) {
      parts.push_back({{"type", "text"}, {"text", part["text"]}});
    } else if (type == "image_url") {
      std::string tag;
      const size_t listed = remote ? remote->size() : 0;
      if (!image_tag(part, at, max_bytes, bytes, tag, why, remote)) return false;
      if (remote && remote->size() > listed) {
        remote->back().message = message;
        remote->back().part = i - 1;
      }
      parts.push_back({{"type", "media_marker"}, {"text", tag}});
      has_media = true;
    } else if (type == "input_audio") {
      std::string tag;
      if (!audio_tag(part, at, max_bytes, bytes, tag, why)) return false;
      parts.push_back({{"type", "media_marker"}, {"text", tag}});
      has_media = true;
    } else if (type == "file" || type == "input_video" || type == "video_url") {
      return refuse(
          why,
          at + ": '" + type + "' parts are not supported here: a message takes text, image_url and input_audio parts",
          "messages", "unsupported_content_type");
    } else {
      return refuse(why,
                    at + " must be {\"type\": \"text\", \"text\": ...}, {\"type\": \"image_url\", \"image_url\": " +
                        "{\"url\": \"data:image/png;base64,...\"}} or {\"type\": \"input_audio\", \"input_audio\": " +
                        "{\"data\": \"<base64>\", \"format\": \"wav\"}}",
                    "messages");
    }
  }
  if (has_media) out = parts;
  return true;
}

// An assistant message's tool calls, as OpenAI sends them back: [{id, type, function: {name, arguments}}].
bool read_tool_calls(const json& calls, const std::string& where, json& out, Refusal& why) {
  const std::string shape = where + ".tool_calls must be a list of {\"id\": ..., \"type\": \"function\", " +
                            "\"function\": {\"name\": ..., \"arguments\": \"<JSON text>\"}}";
  if (!calls.is_array()) return refuse(why, shape, "messages");
  out = json::array();
  for (const auto& c : calls) {
    if (!is_string(c, "id") || !is_string(c, "type") || c["type"] != "function" || !c.contains("function"))
      return refuse(why, shape, "messages");
    const json& f = c["function"];
    if (!is_string(f, "name") || !is_string(f, "arguments")) return refuse(why, shape, "messages");
    out.push_back(
        {{"id", c["id"]}, {"type", "function"}, {"function", {{"name", f["name"]}, {"arguments", f["arguments"]}}}});
  }
  return true;
}

bool read_messages(const json& v, const char*, Reading& r) {
  if (!v.is_array() || v.empty()) return refuse(r.why, "messages must be a non-empty list", "messages");
  r.messages = json::array();
  size_t i = 0;
  uint64_t image_bytes = 0;
  for (const auto& msg : v) {
    const std::string where = "messages[" + std::to_string(i++) + "]";
    std::string text;
    json parts;
    bool has_media = false;
    if (msg.is_object() && msg.contains("content") &&
        !content_parts(msg["content"], where, r.req.max_image_bytes, image_bytes, parts, has_media, r.why, i - 1,
                       r.req.remote_urls ? &r.req.remote_images : nullptr))
      return false;
    const bool has_calls = msg.is_object() && msg.contains("tool_calls") && asks_something(msg["tool_calls"]);
    // An assistant's message that only calls tools has no content (null, or no key), as OpenAI sends it.
    const bool content_ok =
        msg.is_object() && msg.contains("content") ? has_media || content_text(msg["content"], text) : has_calls;
    if (!is_string(msg, "role") || !content_ok)
      return refuse(
          r.why, where + " needs a role and a content (a string, or a list of text, image_url and input_audio parts)",
          "messages");
    const std::string role = msg["role"].get<std::string>();
    json out = {{"role", role}, {"content", has_media ? parts : json(text)}};
    for (auto it = msg.begin(); it != msg.end(); ++it) {
      const std::string& key = it.key();
      if (key == "role" || key == "content" || key == "name" || !asks_something(*it)) continue;
      if (key == "tool_calls" && role == "assistant") {
        if (!read_tool_calls(*it, where, out["tool_calls"], r.why)) return false;
      } else if ((key == "reasoning_content" && role == "assistant") || (key == "tool_call_id" && role == "tool")) {
        if (!it->is_string()) return refuse(r.why, where + "." + key + " must be a string", "messages");
        out[key] = *it;
      } else {
        return refuse(r.why, "Unrecognized request argument supplied: " + where + "." + key, "messages");
      }
      r.messages_need_object = true;
    }
    if (role == "tool") {
      if (!out.contains("tool_call_id"))
        return refuse(r.why, where + ": a tool message needs the tool_call_id it answers", "messages");
      r.messages_need_object = true;
    }
    r.messages.push_back(std::move(out));
  }
  return true;
}

bool read_prompt(const json& v, const char*, Reading& r) {
  const json* p = &v;
  if (v.is_array() && v.size() == 1 && v[0].is_string()) p = &v[0];
  if (!p->is_string()) return refuse(r.why, "prompt must be a string (or a list of one)", "prompt");
  r.req.text = p->get<std::string>();
  return true;
}

bool read_model(const json& v, const char*, Reading& r) {
  if (!v.is_string()) return refuse(r.why, "model must be a string", "model");
  r.req.model = v.get<std::string>();
  return true;
}

bool read_stream(const json& v, const char*, Reading& r) {
  if (!v.is_boolean()) return refuse(r.why, "stream must be true or false", "stream");
  r.req.stream = v.get<bool>();
  return true;
}

bool read_stream_options(const json& v, const char*, Reading& r) {
  const char* shape = "stream_options must be {\"include_usage\": true|false}";
  if (!v.is_object()) return refuse(r.why, shape, "stream_options");
  for (auto it = v.begin(); it != v.end(); ++it) {
    // include_obfuscation pads chunks against length side channels; an answer without it is the same.
    if ((it.key() != "include_usage" && it.key() != "include_obfuscation") || !(it->is_boolean() || it->is_null()))
      return refuse(r.why, shape, "stream_options");
  }
  r.req.include_usage =
      v.contains("include_usage") && v["include_usage"].is_boolean() && v["include_usage"].get<bool>();
  return true;
}

bool read_max_tokens(const json& v, const char* field, Reading& r) {
  if (!whole_in(v, 1, INT64_MAX)) return refuse(r.why, std::string(field) + " must be a whole number from 1", field);
  // Both given: max_completion_tokens, OpenAI's newer name, wins (fields are read in name order).
  if (r.req.max_tokens_field == "max_completion_tokens") return true;
  r.req.max_tokens = v.get<int64_t>();
  r.req.max_tokens_field = field;
  return true;
}

bool read_stop(const json& v, const char*, Reading& r) {
  bool ok = v.is_string() || (v.is_array() && v.size() <= 4);
  if (ok && v.is_string()) r.req.stops.push_back(v.get<std::string>());
  if (ok && v.is_array()) {
    for (const auto& s : v) {
      ok = ok && s.is_string();
      if (ok) r.req.stops.push_back(s.get<std::string>());
    }
  }
  for (const auto& s : r.req.stops) ok = ok && !s.empty();
  if (!ok) return refuse(r.why, "stop must be a non-empty string or a list of up to 4", "stop");
  return true;
}

// A number field as a llama.cpp property, in OpenAI's range (llama-server's and the plugin's for
// the llama.cpp extras).
struct Knob {
  const char* field;
  const char* property;
  double lo, hi;
  bool integral;
};
const Knob kKnobs[] = {{"temperature", "temp", 0, 2, false},
                       {"top_p", "top-p", 0, 1, false},
                       {"presence_penalty", "presence-penalty", -2, 2, false},
                       {"frequency_penalty", "frequency-penalty", -2, 2, false},
                       {"seed", "seed", 0, 4294967295.0, true},
                       {"top_k", "top-k", 0, 2147483647.0, true},
                       {"min_p", "min-p", 0, 1, false},
                       {"repeat_penalty", "repeat-penalty", 1e-6, 1e6, false},
                       {"repeat_last_n", "repeat-last-n", -1, 1048576, true},
                       {"typical_p", "typ-p", 0, 1, false},
                       {"xtc_probability", "xtc-probability", 0, 1, false},
                       {"xtc_threshold", "xtc-threshold", 0, 1, false},
                       {"dynatemp_range", "dynatemp-range", 0, 1e6, false},
                       {"dynatemp_exponent", "dynatemp-exponent", 0, 1e6, false},
                       {"mirostat", "mirostat", 0, 2, true},
                       {"mirostat_tau", "mirostat-ent", 0, 1e6, false},
                       {"mirostat_eta", "mirostat-eta", 0, 1, false},
                       {"dry_multiplier", "dry-multiplier", 0, 1e6, false},
                       {"dry_base", "dry-base", 1, 1e6, false},
                       {"dry_allowed_length", "dry-allowed-length", 0, 1048576, true},
                       {"dry_penalty_last_n", "dry-penalty-last-n", -1, 1048576, true},
                       {"min_keep", "min-keep", 0, 1048576, true}};

bool read_knob(const json& v, const char* field, Reading& r) {
  for (const Knob& k : kKnobs) {
    if (std::strcmp(k.field, field)) continue;
    const bool ok =
        k.integral ? whole_in(v, static_cast<int64_t>(k.lo), static_cast<int64_t>(k.hi)) : number_in(v, k.lo, k.hi);
    if (!ok) {
      return refuse(r.why,
                    std::string(field) + " must be a " + (k.integral ? "whole number" : "number") + " in [" +
                        text_of(k.lo) + ", " + text_of(k.hi) + "]",
                    field);
    }
    r.req.properties.push_back({k.property, text_of(v), field});
    return true;
  }
  return refuse(r.why, std::string("Unrecognized request argument supplied: ") + field, field);
}

// logprobs: chat's true or false; completions' a number 0..5 (OpenAI's ranges).
bool read_logprobs(const json& v, const char*, Reading& r) {
  if (r.req.kind == Kind::chat) {
    if (!v.is_boolean()) return refuse(r.why, "logprobs must be true or false", "logprobs", "invalid_value");
    r.req.logprobs = v.get<bool>();
    return true;
  }
  if (!whole_in(v, 0, 5))
    return refuse(r.why, "logprobs must be a whole number from 0 to 5", "logprobs", "invalid_value");
  r.req.logprobs = true;
  r.req.top_logprobs = v.get<int64_t>();
  return true;
}

bool read_top_logprobs(const json& v, const char*, Reading& r) {
  if (!whole_in(v, 0, 20))
    return refuse(r.why, "top_logprobs must be a whole number from 0 to 20, with logprobs true", "top_logprobs",
                  "invalid_value");
  r.req.top_logprobs = v.get<int64_t>();
  return true;
}

// llama-server's n_probs: logprobs with that many candidates (the plugin's n-probs, 0..100).
bool read_n_probs(const json& v, const char*, Reading& r) {
  if (!whole_in(v, 0, 100)) return refuse(r.why, "n_probs must be a whole number from 0 to 100", "n_probs");
  r.has_n_probs = true;
  r.req.logprobs = v.get<int64_t>() > 0;
  r.req.top_logprobs = v.get<int64_t>();
  return true;
}

bool set_constraint(Reading& r, const char* field, const char* property, const std::string& value) {
  if (r.constraint)
    return refuse(
        r.why,
        std::string("give one of response_format, json_schema and grammar, not ") + r.constraint + " and " + field,
        field);
  r.constraint = field;
  r.req.properties.push_back({property, value, field});
  return true;
}

// A schema as the "json-schema" property's value: a JSON string holding it, which the plugin gives
// the converter as written (an object value it reads into a sorted map: the grammar would write
// the properties in alphabetical order, not the schema's).
std::string schema_text(const json& schema) { return text_of(json(text_of(schema))); }

// Structured output: the plugin turns a JSON schema into the llama.cpp grammar sampling keeps to.
bool read_response_format(const json& v, const char* field, Reading& r) {
  const std::string type = is_string(v, "type") ? v["type"].get<std::string>() : "";
  const json* spec = v.is_object() && v.contains("json_schema") ? &v["json_schema"] : nullptr;
  const json* schema = spec && spec->is_object() && spec->contains("schema") ? &(*spec)["schema"] : nullptr;
  if (type == "text") return true;
  if (type == "json_object") return set_constraint(r, field, "json-schema", schema_text(json{{"type", "object"}}));
  if (type == "json_schema" && schema && schema->is_object())
    return set_constraint(r, field, "json-schema", schema_text(*schema));
  return refuse(r.why,
                "response_format must be {\"type\": \"text\"}, {\"type\": \"json_object\"} or "
                "{\"type\": \"json_schema\", \"json_schema\": {\"name\": ..., \"schema\": {...}}}",
                "response_format", "invalid_value");
}

// llama-server's json_schema (a schema object) and grammar (GBNF text).
bool read_json_schema(const json& v, const char* field, Reading& r) {
  if (!v.is_object()) return refuse(r.why, "json_schema must be a JSON schema object", field);
  return set_constraint(r, field, "json-schema", schema_text(v));
}

bool read_grammar(const json& v, const char* field, Reading& r) {
  if (!v.is_string()) return refuse(r.why, "grammar must be a GBNF grammar's text", field);
  if (v.get<std::string>().empty()) return true;
  return set_constraint(r, field, "grammar", text_of(v));  // a JSON string: GBNF text may look like JSON
}

bool read_n(const json& v, const char* field, Reading& r) {
  if (!whole_in(v, 1, 1))
    return refuse(r.why, std::string("Unsupported value: '") + field + "' must be 1: one answer per request", field,
                  "unsupported_value");
  return true;
}

bool read_echo(const json& v, const char* field, Reading& r) {
  if (!v.is_boolean()) return refuse(r.why, "echo must be true or false", field);
  if (!v.get<bool>()) return true;
  return refuse(r.why,
                "Unsupported parameter: 'echo' is not supported by this server (wasinn's http_openai); leave it out",
                field, "unsupported_parameter");
}

// A field OpenAI documents that this endpoint does not implement: taken when it asks for nothing.
bool read_unsupported(const json& v, const char* field, Reading& r) {
  if (!asks_something(v)) return true;
  return refuse(r.why,
                std::string("Unsupported parameter: '") + field +
                    "' is not supported by this server (wasinn's http_openai); leave it out",
                field, "unsupported_parameter");
}

// Fields that change nothing about one answer: a caller's own labels and hints.
bool read_label(const json& v, const char* field, Reading& r) {
  if (!v.is_string()) return refuse(r.why, std::string(field) + " must be a string", field);
  return true;
}

bool read_metadata(const json& v, const char* field, Reading& r) {
  bool ok = v.is_object();
  for (auto it = ok ? v.begin() : v.end(); ok && it != v.end(); ++it) ok = it->is_string();
  if (!ok) return refuse(r.why, "metadata must be an object of strings", field);
  return true;
}

bool read_flag(const json& v, const char* field, Reading& r) {
  if (!v.is_boolean()) return refuse(r.why, std::string(field) + " must be true or false", field);
  return true;
}

// llama-server's ignore_eos: the plugin's ignore-eos property.
bool read_ignore_eos(const json& v, const char* field, Reading& r) {
  if (!read_flag(v, field, r)) return false;
  r.req.properties.push_back({"ignore-eos", v.dump(), field});
  return true;
}

// store: true asks OpenAI to keep the completion for later retrieval, which this server does not do.
bool read_store(const json& v, const char* field, Reading& r) {
  if (!v.is_boolean()) return refuse(r.why, "store must be true or false", field);
  if (!v.get<bool>()) return true;
  return refuse(r.why, "Unsupported value: 'store' must be false: this server keeps no completions", field,
                "unsupported_value");
}

bool read_service_tier(const json& v, const char* field, Reading& r) {
  if (v == "auto" || v == "default") return true;
  return refuse(r.why, "Unsupported value: 'service_tier' must be \"auto\" or \"default\": this server has one tier",
                field, "unsupported_value");
}

bool read_modalities(const json& v, const char* field, Reading& r) {
  bool ok = v.is_array();
  for (const auto& m : ok ? v : json::array()) ok = ok && m == "text";
  if (!ok)
    return refuse(r.why, "Unsupported value: 'modalities' must be [\"text\"]: this server answers with text only",
                  field, "unsupported_value");
  return true;
}

// OpenAI's function names: letters, digits, '_' and '-', at most 64.
bool function_name(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

bool read_tools(const json& v, const char* field, Reading& r) {
  const char* shape =
      "tools must be a list of {\"type\": \"function\", \"function\": {\"name\": ..., \"description\": ..., "
      "\"parameters\": {JSON schema}}}, each name letters, digits, '_' or '-' (at most 64)";
  if (!v.is_array()) return refuse(r.why, shape, field);
  for (const auto& t : v) {
    if (!is_string(t, "type") || t["type"] != "function" || !t.contains("function") || !t["function"].is_object())
      return refuse(r.why, shape, field);
    const json& f = t["function"];
    json out = {{"name", f.contains("name") ? f["name"] : json()}};
    if (!function_name(out["name"])) return refuse(r.why, shape, field);
    for (auto it = f.begin(); it != f.end(); ++it) {
      const bool ok = it.key() == "name" || it->is_null() || (it.key() == "description" && it->is_string()) ||
                      (it.key() == "parameters" && it->is_object()) || (it.key() == "strict" && it->is_boolean());
      if (!ok) return refuse(r.why, shape, field);
      if (it.key() != "name" && !it->is_null()) out[it.key()] = *it;
    }
    for (auto it = t.begin(); it != t.end(); ++it) {
      if (it.key() != "type" && it.key() != "function") return refuse(r.why, shape, field);
    }
    r.tools.push_back({{"type", "function"}, {"function", out}});
  }
  return true;
}

bool read_tool_choice(const json& v, const char* field, Reading& r) {
  if (v == "auto" || v == "none" || v == "required" ||
      (is_string(v, "type") && v["type"] == "function" && v.contains("function") &&
       function_name(v["function"].is_object() && v["function"].contains("name") ? v["function"]["name"] : json()))) {
    r.tool_choice = v.is_string() ? v : json{{"type", "function"}, {"function", {{"name", v["function"]["name"]}}}};
    return true;
  }
  return refuse(r.why,
                "tool_choice must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": "
                "{\"name\": ...}}",
                field, "invalid_value");
}

bool read_parallel_tool_calls(const json& v, const char* field, Reading& r) {
  if (!v.is_boolean()) return refuse(r.why, "parallel_tool_calls must be true or false", field);
  r.parallel_tool_calls = v;
  return true;
}

// llama-server's template arguments (e.g. {"enable_thinking": false}) and reasoning parser.
bool read_chat_template_kwargs(const json& v, const char* field, Reading& r) {
  if (!v.is_object()) return refuse(r.why, "chat_template_kwargs must be an object", field);
  if (!v.empty()) r.chat_template_kwargs = v;
  return true;
}

bool read_reasoning_format(const json& v, const char* field, Reading& r) {
  if (v != "none" && v != "auto" && v != "deepseek" && v != "deepseek-legacy")
    return refuse(r.why, "reasoning_format must be \"none\", \"auto\", \"deepseek\" or \"deepseek-legacy\"", field,
                  "invalid_value");
  r.reasoning_format = v;
  return true;
}

constexpr unsigned kChat = 1, kCompletion = 2, kBoth = 3;
struct Field {
  const char* name;
  unsigned kinds;
  Reader read;
};
// Every field a route takes; any other is refused naming it. OpenAI's first, then llama-server's.
const Field kFields[] = {
    {"model", kBoth, read_model},
    {"messages", kChat, read_messages},
    {"prompt", kCompletion, read_prompt},
    {"stream", kBoth, read_stream},
    {"stream_options", kBoth, read_stream_options},
    {"max_tokens", kBoth, read_max_tokens},
    {"max_completion_tokens", kBoth, read_max_tokens},
    {"stop", kBoth, read_stop},
    {"temperature", kBoth, read_knob},
    {"top_p", kBoth, read_knob},
    {"presence_penalty", kBoth, read_knob},
    {"frequency_penalty", kBoth, read_knob},
    {"seed", kBoth, read_knob},
    {"logprobs", kBoth, read_logprobs},
    {"top_logprobs", kChat, read_top_logprobs},
    {"response_format", kBoth, read_response_format},
    {"n", kBoth, read_n},
    {"best_of", kCompletion, read_n},
    {"echo", kCompletion, read_echo},
    {"tools", kChat, read_tools},
    {"tool_choice", kChat, read_tool_choice},
    {"parallel_tool_calls", kChat, read_parallel_tool_calls},
    {"user", kBoth, read_label},
    {"metadata", kChat, read_metadata},
    {"store", kChat, read_store},
    {"service_tier", kChat, read_service_tier},
    {"modalities", kChat, read_modalities},
    {"prompt_cache_key", kChat, read_label},
    {"safety_identifier", kChat, read_label},
    {"suffix", kCompletion, read_unsupported},
    {"logit_bias", kBoth, read_unsupported},
    {"audio", kChat, read_unsupported},
    {"prediction", kChat, read_unsupported},
    {"functions", kChat, read_unsupported},
    {"function_call", kChat, read_unsupported},
    {"reasoning_effort", kChat, read_unsupported},
    {"verbosity", kChat, read_unsupported},
    {"web_search_options", kChat, read_unsupported},
    // llama-server's extras the plugin has properties for.
    {"top_k", kBoth, read_knob},
    {"min_p", kBoth, read_knob},
    {"repeat_penalty", kBoth, read_knob},
    {"repeat_last_n", kBoth, read_knob},
    {"typical_p", kBoth, read_knob},
    {"xtc_probability", kBoth, read_knob},
    {"xtc_threshold", kBoth, read_knob},
    {"dynatemp_range", kBoth, read_knob},
    {"dynatemp_exponent", kBoth, read_knob},
    {"mirostat", kBoth, read_knob},
    {"mirostat_tau", kBoth, read_knob},
    {"mirostat_eta", kBoth, read_knob},
    {"dry_multiplier", kBoth, read_knob},
    {"dry_base", kBoth, read_knob},
    {"dry_allowed_length", kBoth, read_knob},
    {"dry_penalty_last_n", kBoth, read_knob},
    {"min_keep", kBoth, read_knob},
    {"ignore_eos", kBoth, read_ignore_eos},
    {"n_probs", kBoth, read_n_probs},
    {"json_schema", kBoth, read_json_schema},
    {"grammar", kBoth, read_grammar},
    {"cache_prompt", kBoth, read_flag},  // reusing a cached prefix changes no answer
    {"chat_template_kwargs", kChat, read_chat_template_kwargs},
    {"reasoning_format", kChat, read_reasoning_format},
};

unsigned kind_bit(Kind k) { return k == Kind::chat ? kChat : kCompletion; }

// The checks between fields, and the messages' form.
bool finish(const json& body, Reading& r) {
  Request& req = r.req;
  const bool chat = req.kind == Kind::chat;
  if (chat && !body.contains("messages"))
    return refuse(r.why, "messages must be a non-empty list", "messages", "missing_required_parameter");
  if (!chat && !body.contains("prompt"))
    return refuse(r.why, "prompt must be a string (or a list of one)", "prompt", "missing_required_parameter");
  if (body.contains("top_logprobs") && !body["top_logprobs"].is_null() && (!req.logprobs || r.has_n_probs))
    return refuse(r.why, "top_logprobs must be a whole number from 0 to 20, with logprobs true", "top_logprobs",
                  "invalid_value");
  if (r.has_n_probs && body.contains("logprobs") && !body["logprobs"].is_null())
    return refuse(r.why, "give logprobs (and top_logprobs) or llama-server's n_probs, not both", "n_probs");
  if (req.logprobs)
    req.properties.push_back({"n-probs", std::to_string(req.top_logprobs > 1 ? req.top_logprobs : 1),
                              r.has_n_probs ? "n_probs" : "logprobs"});
  if (!r.tool_choice.is_null() && r.tools.empty())
    return refuse(r.why, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                  "tool_choice", "invalid_value");
  if (r.tool_choice.is_object()) {
    // OpenAI's named function, which llama.cpp's chat layer does not take (it reads it as "auto"):
    // that tool alone, "required".
    json named = json::array();
    for (const auto& t : r.tools) {
      if (t["function"]["name"] == r.tool_choice["function"]["name"]) named.push_back(t);
    }
    if (named.empty())
      return refuse(r.why, "tool_choice names a function that is not in tools", "tool_choice", "invalid_value");
    r.tools = named;
    r.tool_choice = "required";
  }
  if (!r.tools.empty() && r.constraint)
    return refuse(r.why,
                  std::string(r.constraint) + " cannot be combined with tools: tool calls have a grammar of their own",
                  r.constraint);
  if (!chat) {
    req.input = "prompt";
    return true;
  }
  req.input = "messages";
  req.message_form =
      r.messages_need_object || !r.tools.empty() || !r.chat_template_kwargs.is_null() || !r.reasoning_format.is_null();
  if (!req.message_form) {
    req.text = text_of(r.messages);
    return true;
  }
  // The plugin's object form (tools, tool calls, template arguments): it renders the model's Jinja
  // template and parses the answer into OpenAI's assistant message.
  json object = {{"messages", r.messages}};
  if (!r.tools.empty()) object["tools"] = r.tools;
  if (!r.tool_choice.is_null()) object["tool_choice"] = r.tool_choice;
  if (!r.parallel_tool_calls.is_null() && !r.tools.empty()) object["parallel_tool_calls"] = r.parallel_tool_calls;
  if (!r.chat_template_kwargs.is_null()) object["chat_template_kwargs"] = r.chat_template_kwargs;
  if (!r.reasoning_format.is_null()) object["reasoning_format"] = r.reasoning_format;
  req.text = text_of(object);
  return true;
}

}  // namespace

namespace {
const json* field_at(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
}  // namespace

json field(const json& j, const char* key, const json& fallback) {
  const json* v = field_at(j, key);
  return v ? *v : fallback;
}
std::string field(const json& j, const char* key, const std::string& fallback) {
  const json* v = field_at(j, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}
int64_t field(const json& j, const char* key, int64_t fallback) {
  const json* v = field_at(j, key);
  return v && v->is_number_integer() ? v->get<int64_t>() : fallback;
}
uint64_t field(const json& j, const char* key, uint64_t fallback) {
  const json* v = field_at(j, key);
  return v && v->is_number_unsigned() ? v->get<uint64_t>() : fallback;
}
bool field(const json& j, const char* key, bool fallback) {
  const json* v = field_at(j, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

json error_json(const Refusal& r) {
  return {{"error",
           {{"message", r.message},
            {"type", r.status >= 500 ? "server_error" : "invalid_request_error"},
            {"param", r.param.empty() ? json(nullptr) : json(r.param)},
            {"code", r.code.empty() ? json(nullptr) : json(r.code)}}}};
}

// ordered_json finds a key by a linear search, so reading one object of n keys costs n^2: the body
// is read first as a sorted (std::map) value, and in order only when that costs little.
bool parse_body(const std::string& text, json& body, Refusal& why) {
  body = json();
  const nlohmann::json sorted = nlohmann::json::parse(text, nullptr, false);
  if (sorted.is_discarded() || !sorted.is_object()) return refuse(why, "the body must be a JSON object", "");
  uint64_t cost = 0;
  std::vector<const nlohmann::json*> todo{&sorted};
  while (!todo.empty()) {
    const nlohmann::json* j = todo.back();
    todo.pop_back();
    if (j->is_object()) cost += static_cast<uint64_t>(j->size()) * j->size();
    if (j->is_structured()) {
      for (const auto& v : *j) todo.push_back(&v);
    }
  }
  if (cost > (uint64_t{1} << 24))
    return refuse(why, "the body's objects have too many keys (a few thousand at most each)", "");
  body = json::parse(text, nullptr, false);
  return true;
}

bool parse_request(Kind kind, const json& body, Request& req, Refusal& why, uint64_t max_image_bytes,
                   bool remote_urls) {
  req = Request{};
  req.kind = kind;
  req.max_image_bytes = max_image_bytes;
  req.remote_urls = remote_urls;
  if (!body.is_object()) return refuse(why, "the body must be a JSON object", "");
  Reading r{req, why};
  for (auto it = body.begin(); it != body.end(); ++it) {
    const Field* field = nullptr;
    for (const Field& f : kFields) {
      if (it.key() == f.name && (f.kinds & kind_bit(kind))) field = &f;
    }
    if (it->is_null()) continue;  // null is absent, as OpenAI's SDKs send an unset field
    if (!field) return refuse(why, "Unrecognized request argument supplied: " + it.key(), it.key());
    if (!field->read(*it, field->name, r)) return false;
  }
  return finish(body, r);
}

const std::vector<std::string>& known_fields(Kind kind) {
  static const std::vector<std::string>* lists[2] = {nullptr, nullptr};
  const int i = kind == Kind::chat ? 0 : 1;
  if (!lists[i]) {
    auto* names = new std::vector<std::string>();
    for (const Field& f : kFields) {
      if (f.kinds & kind_bit(kind)) names->push_back(f.name);
    }
    lists[i] = names;
  }
  return *lists[i];
}

}  // namespace openai
