// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// POST /v1/audio/speech: OpenAI's text to speech on a Piper voice (`wasinn serve --openai
// tts=voice.json`, a Piper run config). The body's fields become the voice's properties
// (backends/piper: audio-format, speaker_id, length_scale), the plugin encodes the audio
// (libsndfile on the host: this guest is wasm), and the answer is the file; a pcm answer goes out a
// sentence at a time through the plugin's "stream" option (stream_speech).
//
//   model            the voice's name; without it, the server's only Piper voice
//   input            the text, 1 to 4096 characters (OpenAI's limit)
//   voice            one of the voice's speakers (speaker_id_map's names), or a single-speaker
//                    voice's own name (its dataset); without it, the voice's default speaker
//   response_format  mp3 (OpenAI's default), opus (Ogg), flac, wav, pcm (16-bit little-endian
//                    mono at the voice's rate, which the header x-sample-rate gives, as for wav and
//                    flac; mp3 and opus files say their own, which may be another)
//   speed            0.25 to 4.0: the voice's length_scale divided by it
//   stream_format    "audio" (the file; pcm is written a sentence at a time as the plugin makes
//                    it, the other formats whole) or "sse" (OpenAI's speech.audio.delta events,
//                    base64 PCM a sentence each, then speech.audio.done; pcm only)
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "http_openai.h"

namespace openai {

namespace {

constexpr size_t kMaxInputChars = 4096;  // OpenAI's
constexpr double kMinSpeed = 0.25, kMaxSpeed = 4.0;

struct AudioFormat {
  const char* name;
  const char* content_type;
};
// OpenAI's response_format values this endpoint writes; aac is refused (no AAC encoder).
constexpr AudioFormat kFormats[] = {{"mp3", "audio/mpeg"},
                                    {"opus", "audio/ogg; codecs=opus"},
                                    {"flac", "audio/flac"},
                                    {"wav", "audio/wav"},
                                    {"pcm", "audio/pcm"}};

// The graph's property `name`; false when it has none (not among `names`).
bool graph_property(wnn_graph g, const std::vector<std::string>& names, const std::string& name, std::string& value) {
  bool listed = false;
  for (const auto& n : names) listed = listed || n == name;
  wnn_string s{nullptr, 0};
  wnn_error err;
  if (!listed) return false;
  if (wnx_get_property(g, name.data(), static_cast<uint32_t>(name.size()), &s, &err)) {
    wnn_error_drop(err);
    return false;
  }
  value = take(s);
  return true;
}

// "" when the context took the property, else why not.
std::string set_property(wnn_context ctx, const std::string& name, const std::string& value) {
  wnn_error err;
  if (!wnx_set_context_property(ctx, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                                static_cast<uint32_t>(value.size()), &err))
    return {};
  return nn_error_text(err);
}

// NN_OPTIONS' keys the voice's graph has (`properties`) on `ctx`; false with `why` when one is refused.
bool set_env_options(const std::vector<std::string>& properties, wnn_context ctx, std::string& why) {
  return apply_env_options(
      [&] { return properties; },
      [&](const std::string& name, const std::string& value) { return set_property(ctx, name, value); }, why);
}

size_t utf8_chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string joined(const json& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + (n.is_string() ? n.get<std::string>() : dump(n));
  return list;
}

// The models the server registered with the piper encoding (WASINN_MODELS, NAME:ENCODING,...).
std::vector<std::string> piper_models() {
  const std::string text = env_value("WASINN_MODELS");
  std::vector<std::string> names;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    const size_t colon = item.rfind(':');
    if (colon != std::string::npos && colon > 0 && item.compare(colon + 1, std::string::npos, "piper") == 0)
      names.push_back(item.substr(0, colon));
  }
  return names;
}

// A whole answer with its content type and, unless `rate` is "", the audio's sample rate
// (http_guest.h's hg_respond sends one header only).
void respond_audio(wh_response_outparam out, const char* content_type, const std::string& rate, const void* data,
                   size_t len) {
  const std::string length = std::to_string(len);
  const wh_field fields[] = {
      {"content-type", 12, reinterpret_cast<const uint8_t*>(content_type), static_cast<uint32_t>(strlen(content_type))},
      {"content-length", 14, reinterpret_cast<const uint8_t*>(length.data()), static_cast<uint32_t>(length.size())},
      {"x-sample-rate", 13, reinterpret_cast<const uint8_t*>(rate.data()), static_cast<uint32_t>(rate.size())}};
  wh_result_handle_ r;
  wh_fields_from_list_(fields, rate.empty() ? 2 : 3, &r);
  if (r.is_err) __builtin_trap();  // a header written here is invalid: a bug here
  const wh_outgoing_response response = wh_outgoing_response_new(r.handle);
  if (wh_outgoing_response_set_status_code(response, 200) != 0) __builtin_trap();
  wh_outgoing_response_body_(response, &r);
  if (r.is_err) __builtin_trap();
  const wh_outgoing_body body = r.handle;
  wh_outparam_set_response(out, response);
  wh_outgoing_body_write_(body, &r);
  if (r.is_err) __builtin_trap();
  wh_write_all(r.handle, data, len);  // a client that left has no one to tell
  wh_output_stream_drop(r.handle);
  wh_result_error_code_ finished;
  wh_outgoing_body_finish_(body, 0, 0, &finished);
}

// A streamed answer (chunked, wasinn-cut declared as every stream's trailer) with its content type
// and the audio's sample rate, which hg_stream_begin_with_trailer has no room for.
void begin_stream(wh_response_outparam out, const char* content_type, const std::string& rate, hg_stream& s) {
  const wh_field fields[] = {
      {"trailer", 7, reinterpret_cast<const uint8_t*>("wasinn-cut"), 10},
      {"content-type", 12, reinterpret_cast<const uint8_t*>(content_type), static_cast<uint32_t>(strlen(content_type))},
      {"x-sample-rate", 13, reinterpret_cast<const uint8_t*>(rate.data()), static_cast<uint32_t>(rate.size())}};
  wh_result_handle_ r;
  wh_fields_from_list_(fields, 3, &r);
  if (r.is_err) __builtin_trap();  // a header written here is invalid: a bug here
  const wh_outgoing_response response = wh_outgoing_response_new(r.handle);
  if (wh_outgoing_response_set_status_code(response, 200) != 0) __builtin_trap();
  wh_outgoing_response_body_(response, &r);
  if (r.is_err) __builtin_trap();
  s.body = r.handle;
  wh_outparam_set_response(out, response);
  wh_outgoing_body_write_(s.body, &r);
  if (r.is_err) __builtin_trap();
  s.stream = r.handle;
  s.failed = 0;
}

std::string base64(const uint8_t* p, size_t n) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (i + 1 < n ? uint32_t{p[i + 1]} << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    out += kDigits[v >> 18];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < n ? kDigits[(v >> 6) & 63] : '=';
    out += i + 2 < n ? kDigits[v & 63] : '=';
  }
  return out;
}

// The request's fields, checked; false after answering 400.
struct SpeechRequest {
  std::string model, input, voice;
  bool sse = false;
  const AudioFormat* format = &kFormats[0];
  double speed = 1.0;
};

bool read_request(const json& body, wh_response_outparam out, SpeechRequest& r) {
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& key = it.key();
    if (key != "model" && key != "input" && key != "voice" && key != "response_format" && key != "speed" &&
        key != "stream_format" && key != "instructions") {
      respond_error(out, 400, "Unrecognized request argument supplied: " + key, nullptr, key.c_str());
      return false;
    }
  }
  auto string_field = [&](const char* key, std::string& value) {
    auto f = body.find(key);
    if (f == body.end() || f->is_null()) return true;
    if (!f->is_string()) {
      respond_error(out, 400, std::string(key) + " must be a string", nullptr, key);
      return false;
    }
    value = f->get<std::string>();
    return true;
  };
  std::string format = "mp3", stream_format = "audio", instructions;
  if (!string_field("model", r.model) || !string_field("input", r.input) || !string_field("voice", r.voice) ||
      !string_field("response_format", format) || !string_field("stream_format", stream_format) ||
      !string_field("instructions", instructions))
    return false;
  if (body.find("input") == body.end() || r.input.empty()) {
    respond_error(out, 400, "input must be the text to speak: a string of 1 to 4096 characters",
                  body.find("input") == body.end() ? "missing_required_parameter" : nullptr, "input");
    return false;
  }
  const size_t chars = utf8_chars(r.input);
  if (chars > kMaxInputChars) {
    respond_error(out, 400,
                  "input is " + std::to_string(chars) + " characters; the most this endpoint speaks at once is " +
                      std::to_string(kMaxInputChars) + " (split the text)",
                  "string_above_max_length", "input");
    return false;
  }
  r.format = nullptr;
  for (const auto& f : kFormats)
    if (format == f.name) r.format = &f;
  if (!r.format) {
    respond_error(out, 400,
                  "response_format \"" + format + "\" is not served: use mp3, opus, flac, wav or pcm" +
                      (format == "aac" ? " (there is no AAC encoder here)" : ""),
                  format == "aac" ? "unsupported_value" : nullptr, "response_format");
    return false;
  }
  auto speed = body.find("speed");
  if (speed != body.end() && !speed->is_null()) {
    if (!speed->is_number() || !(speed->get<double>() >= kMinSpeed && speed->get<double>() <= kMaxSpeed)) {
      respond_error(out, 400, "speed must be a number from 0.25 to 4.0, got " + dump(*speed), nullptr, "speed");
      return false;
    }
    r.speed = speed->get<double>();
  }
  if (stream_format != "audio" && stream_format != "sse") {
    respond_error(out, 400, "stream_format \"" + stream_format + "\" is not one of audio, sse", "invalid_value",
                  "stream_format");
    return false;
  }
  r.sse = stream_format == "sse";
  if (r.sse && format != "pcm") {
    // A WAV's header holds the length, and the encoders make their files from the whole audio.
    respond_error(out, 400,
                  "stream_format \"sse\" streams raw PCM sentence by sentence: response_format must be pcm, not " +
                      format + " (its file is made from the whole audio; use stream_format \"audio\" for it)",
                  "unsupported_value", "response_format");
    return false;
  }
  if (!instructions.empty()) {
    respond_error(out, 400, "instructions are not supported: a Piper voice speaks as it was trained",
                  "unsupported_parameter", "instructions");
    return false;
  }
  return true;
}

// Computes `input` (as the tensor `input_name`) on `ctx` and answers the output `output_name`, the
// audio file, with `rate` as its sample rate (none for MP3 and Opus, whose headers say theirs: the
// plugin may resample for them); drops `ctx`. The plugin's refusal of the text is the request's fault.
void answer_speech(wnn_context ctx, const char* input_name, const std::string& input, const char* output_name,
                   const SpeechRequest& r, std::string rate, wh_response_outparam out) {
  uint32_t dims[1] = {static_cast<uint32_t>(input.size())};
  wnn_named_tensor text = wnn_named(input_name, wnn_tensor_new(dims, 1, WNN_TYPE_U8, input.data(), dims[0]));
  wnn_named_tensor_list outputs;
  wnn_error err;
  if (wnn_compute(ctx, &text, 1, &outputs, &err)) {
    const int code = wnn_error_get_code(err);
    const std::string failure = nn_error_text(err);
    wnn_context_drop(ctx);
    if (code == WNN_ERROR_INVALID_ARGUMENT || code == WNN_ERROR_TOO_LARGE)
      respond_error(out, 400, "the model refused the input: " + failure, nullptr, "input");
    else
      respond_error(out, 500, "speech failed: " + failure);
    return;
  }
  const int k = wnn_find_output(&outputs, output_name);
  if (k < 0 || wnn_tensor_ty(outputs.ptr[k].tensor) != WNN_TYPE_U8) {
    wnn_named_tensor_list_free(&outputs);
    wnn_context_drop(ctx);
    respond_error(out, 500, std::string("the model gave no U8 output named ") + output_name);
    return;
  }
  wnn_bytes audio = wnn_tensor_data(outputs.ptr[k].tensor);
  wnn_named_tensor_list_free(&outputs);
  wnn_context_drop(ctx);
  if (!strcmp(r.format->name, "mp3") || !strcmp(r.format->name, "opus")) rate.clear();
  respond_audio(out, r.format->content_type, rate, audio.ptr, audio.len);
  free(audio.ptr);
}

// A Piper voice's stream (the plugin's "stream" option: each compute synthesizes the next
// sentence and hands out its PCM, an empty output the end): pcm written as it comes, or with sse
// OpenAI's speech.audio.delta events, then speech.audio.done. The first compute phonemizes the
// text: a text the plugin refuses is still a 400; a failure after the 200 ends the answer with
// the wasinn-cut trailer (and, with sse, an error event). Drops `ctx`.
void stream_speech(wnn_context ctx, const std::string& input, const SpeechRequest& r, const std::string& rate,
                   wh_response_outparam out) {
  uint32_t dims[1] = {static_cast<uint32_t>(input.size())};
  wnn_named_tensor text = wnn_named("text", wnn_tensor_new(dims, 1, WNN_TYPE_U8, input.data(), dims[0]));
  hg_stream s{};
  bool begun = false;
  auto send_event = [&](const json& j) {
    const std::string e = "data: " + dump(j) + "\n\n";
    return hg_stream_write(&s, e.data(), e.size()) == 0;
  };
  auto fail = [&](int code, const std::string& failure) {
    wnn_context_drop(ctx);
    if (!begun) {
      if (code == WNN_ERROR_INVALID_ARGUMENT || code == WNN_ERROR_TOO_LARGE)
        respond_error(out, 400, "the model refused the input: " + failure, nullptr, "input");
      else
        respond_error(out, 500, "speech failed: " + failure);
      return;
    }
    const bool timeout = code == WNN_ERROR_TIMEOUT;
    if (r.sse)
      send_event({{"error",
                   {{"message", "speech failed midway: " + failure},
                    {"type", "server_error"},
                    {"param", nullptr},
                    {"code", timeout ? json("timeout") : json(nullptr)}}}});
    // Its 200 went out: the server logs the answer cut (timeout or error), not completed.
    hg_stream_end_with_trailer(&s, "wasinn-cut", timeout ? "timeout" : "error");
  };
  for (bool first = true;; first = false) {
    wnn_named_tensor_list outputs{nullptr, 0};
    wnn_error err;
    if (wnn_compute(ctx, first ? &text : nullptr, first ? 1 : 0, &outputs, &err)) {
      const int code = wnn_error_get_code(err);
      return fail(code, nn_error_text(err));
    }
    const int k = wnn_find_output(&outputs, "audio");
    if (k < 0 || wnn_tensor_ty(outputs.ptr[k].tensor) != WNN_TYPE_U8) {
      wnn_named_tensor_list_free(&outputs);
      return fail(WNN_ERROR_RUNTIME_ERROR, "the model gave no U8 output named audio");
    }
    wnn_bytes audio = wnn_tensor_data(outputs.ptr[k].tensor);
    wnn_named_tensor_list_free(&outputs);
    if (!begun) {
      begin_stream(out, r.sse ? "text/event-stream" : r.format->content_type, rate, s);
      begun = true;
    }
    const bool end = audio.len == 0;
    const bool sent =
        end || (r.sse ? send_event({{"type", "speech.audio.delta"}, {"audio", base64(audio.ptr, audio.len)}})
                      : hg_stream_write(&s, audio.ptr, audio.len) == 0);
    free(audio.ptr);
    if (!sent) {
      // The client has left: dropping the context stops the synthesis; the server logs the
      // answer cut:client-left.
      hg_stream_end(&s);
      wnn_context_drop(ctx);
      return;
    }
    if (end) break;
  }
  wnn_context_drop(ctx);
  // Piper counts no tokens; the usage is there for clients that read it.
  if (r.sse)
    send_event(
        {{"type", "speech.audio.done"}, {"usage", {{"input_tokens", 0}, {"output_tokens", 0}, {"total_tokens", 0}}}});
  hg_stream_end(&s);
}

// OuteTTS (the llama.cpp plugin's text to speech, a model preloaded with its WavTokenizer vocoder):
// one voice, the plugin's speaker profile (OuteTTS's en_female_1), at its own pace, 24 kHz.
constexpr char kOuteVoice[] = "en_female_1";

void speak_outetts(Model& m, const std::vector<std::string>& properties, const SpeechRequest& r,
                   wh_response_outparam out) {
  if (!r.voice.empty() && r.voice != kOuteVoice) {
    respond_error(out, 400, "voice \"" + r.voice + "\" is not one of the model `" + m.name + "`'s: " + kOuteVoice,
                  "invalid_value", "voice");
    return;
  }
  if (r.sse) {
    respond_error(out, 400,
                  "stream_format \"sse\" is not supported by the model `" + m.name +
                      "`: OuteTTS makes its audio whole (Piper voices stream)",
                  "unsupported_value", "stream_format");
    return;
  }
  if (r.speed != 1.0) {
    respond_error(out, 400, "speed is not supported by the model `" + m.name + "`: OuteTTS speaks at its own pace",
                  "unsupported_parameter", "speed");
    return;
  }
  wnn_context ctx = 0;
  wnn_error err;
  if (wnn_init_execution_context(m.graph, &ctx, &err)) {
    respond_error(out, 500, "init-execution-context failed: " + nn_error_text(err));
    return;
  }
  // llama-tts's defaults (its speaker profile alone is ~1200 tokens), then NN_OPTIONS' keys the
  // graph has (temp 0 makes it llama-tts's greedy answer), then the format.
  std::string why;
  for (const auto& setting :
       {std::pair<const char*, const char*>{"ctx-size", "8192"}, {"batch-size", "8192"}, {"n-predict", "4096"}})
    if (why.empty()) why = set_property(ctx, setting.first, setting.second);
  bool ok = why.empty() && set_env_options(properties, ctx, why);
  if (ok) ok = (why = set_property(ctx, "audio-format", r.format->name)).empty();
  if (!ok) {
    wnn_context_drop(ctx);
    respond_error(out, 500, "setting up the voice failed: " + why);
    return;
  }
  // Output 0 ("text") holds a speech graph's audio file.
  answer_speech(ctx, "prompt", r.input, "text", r, "24000", out);
}

}  // namespace

void speech(const json& body, wh_response_outparam out, Generation) {
  SpeechRequest r;
  if (!read_request(body, out, r)) return;
  if (r.model.empty()) {
    // The only voice there is; a chat model beside it is no default for speech.
    const std::vector<std::string> voices = piper_models();
    if (voices.size() != 1) {
      respond_error(out, 400,
                    voices.empty() ? "you must provide a model parameter: this server has no Piper voice "
                                     "(wasinn serve --openai NAME=voice.json, a Piper run config)"
                                   : "you must provide a model parameter: this server has " +
                                         std::to_string(voices.size()) + " voices (" + joined(json(voices)) + ")",
                    "missing_required_parameter", "model");
      return;
    }
    r.model = voices[0];
  }
  Model m;
  if (!load_model(r.model, out, m)) return;
  const std::vector<std::string> properties = property_names(m.graph);
  std::string names_text, rate, length_scale, tts;
  if (graph_property(m.graph, properties, "tts", tts) && tts == "true") return speak_outetts(m, properties, r, out);
  if (!graph_property(m.graph, properties, "piper.voices", names_text) ||
      !graph_property(m.graph, properties, "piper.sample_rate", rate)) {
    respond_error(out, 400,
                  "The model `" + m.name +
                      "` is not a speech model: /v1/audio/speech speaks with Piper voices (wasinn serve --openai "
                      "NAME=voice.json, a Piper run config) and OuteTTS (--openai NAME=outetts.gguf --vocoder "
                      "NAME=wavtokenizer.gguf)",
                  "invalid_model", "model");
    return;
  }
  const json names = json::parse(names_text, nullptr, false);
  int64_t speaker = -1;  // the voice's default
  if (!r.voice.empty()) {
    for (size_t i = 0; names.is_array() && i < names.size(); ++i)
      if (names[i] == r.voice) speaker = static_cast<int64_t>(i);
    if (speaker < 0) {
      respond_error(out, 400, "voice \"" + r.voice + "\" is not one of the model `" + m.name + "`'s: " + joined(names),
                    "invalid_value", "voice");
      return;
    }
  }
  wnn_context ctx = 0;
  wnn_error err;
  if (wnn_init_execution_context(m.graph, &ctx, &err)) {
    respond_error(out, 500, "init-execution-context failed: " + nn_error_text(err));
    return;
  }
  std::string why;
  bool ok = set_env_options(properties, ctx, why);
  if (ok && r.speed != 1.0) {
    // OpenAI's speed is the inverse of Piper's length_scale (phoneme durations), the voice's own scaled.
    ok = graph_property(m.graph, properties, "length_scale", length_scale);
    const double scale = ok ? strtod(length_scale.c_str(), nullptr) : 0;
    ok = ok && scale > 0;
    why = ok ? set_property(ctx, "length_scale", dump(json(scale / r.speed))) : "the voice has no length_scale";
    ok = why.empty();
  }
  if (ok && speaker >= 0 && names.size() > 1)
    ok = (why = set_property(ctx, "speaker_id", std::to_string(speaker))).empty();
  if (ok) ok = (why = set_property(ctx, "audio-format", r.format->name)).empty();
  // pcm is the one format that can go out a sentence at a time; the request's, whatever NN_OPTIONS says.
  const bool stream = !strcmp(r.format->name, "pcm");
  if (ok) ok = (why = set_property(ctx, "stream", stream ? "true" : "false")).empty();
  if (!ok) {
    wnn_context_drop(ctx);
    respond_error(out, 500, "setting up the voice failed: " + why);
    return;
  }
  // A run config with json_input takes WasmEdge's {"text": ...}.
  std::string json_input;
  const std::string input = graph_property(m.graph, properties, "piper.json_input", json_input) && json_input == "true"
                                ? dump(json{{"text", r.input}})
                                : r.input;
  if (stream) return stream_speech(ctx, input, r, rate, out);
  answer_speech(ctx, "text", input, "audio", r, rate, out);
}

void voices(wh_response_outparam out) {
  json data = json::array();
  // Piper voices are preloads (loaded at start), so asking each for its speakers loads nothing.
  for (const auto& name : piper_models()) {
    Model m;
    if (!load_model(name, out, m)) return;
    std::string names_text;
    if (!graph_property(m.graph, property_names(m.graph), "piper.voices", names_text)) continue;
    const json names = json::parse(names_text, nullptr, false);
    data.push_back({{"model", name}, {"voices", names.is_array() ? names : json::array()}});
  }
  // OuteTTS models: wasinn serve's --vocoder names them (TTS_MODELS), each with its one speaker.
  const std::string tts = env_value("TTS_MODELS");
  for (size_t start = 0; start < tts.size();) {
    const size_t end = std::min(tts.find(',', start), tts.size());
    if (end > start) data.push_back({{"model", tts.substr(start, end - start)}, {"voices", json::array({kOuteVoice})}});
    start = end + 1;
  }
  respond_json(out, 200, {{"object", "list"}, {"data", data}});
}

}  // namespace openai
