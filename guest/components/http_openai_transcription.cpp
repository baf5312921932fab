// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// POST /v1/audio/transcriptions and /v1/audio/translations: OpenAI's multipart form
// (transcription_form.cpp) on a whisper model. The file goes to the whisper plugin whole (input
// "audio": it decodes WAV, FLAC, MP3 and Ogg Vorbis or Opus to 16 kHz mono as whisper-cli does)
// with the options as its "metadata" JSON (NN_OPTIONS first, then the form's language, prompt,
// temperature and, for translations, translate); each response_format is made from the plugin's
// outputs: "json" (the segments, as whisper-cli -oj writes them) and "srt" (whisper-cli -osrt's
// file). stream: true answers OpenAI's transcript.text.delta events, a segment each, as the
// plugin's stream hands them out (stream_transcript).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "http_openai.h"
#include "transcription_form.h"

namespace openai {
namespace {

// NAME:ENCODING of each model the server registered (`wasinn serve` sets WASINN_MODELS).
std::vector<std::pair<std::string, std::string>> registered_models() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string text = env_value("WASINN_MODELS");
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t colon = item.rfind(':');
    if (colon != std::string::npos && colon > 0) out.emplace_back(item.substr(0, colon), item.substr(colon + 1));
    start = end + 1;
  }
  return out;
}

// The whisper model the request names, or the server's only one; false after answering.
bool whisper_model(const std::string& asked, wh_response_outparam out, std::string& name) {
  std::vector<std::string> whispers;
  for (const auto& entry : registered_models()) {
    const std::string &model = entry.first, &encoding = entry.second;
    if (model == asked && encoding != "whisper") {
      respond_error(out, 400,
                    "The model `" + asked + "` is a " + encoding + " model, not a whisper model: audio " +
                        "transcription needs a whisper.cpp model (wasinn serve --openai NAME=ggml-model.bin)",
                    "model_not_supported", "model");
      return false;
    }
    if (encoding == "whisper") whispers.push_back(model);
  }
  if (!asked.empty()) return name = asked, true;  // load_model answers 404 for an unknown one
  if (whispers.size() != 1) {
    respond_error(out, 400,
                  whispers.empty() ? "this server has no whisper model for audio transcription"
                                   : "you must provide a model parameter: this server has " +
                                         std::to_string(whispers.size()) + " whisper models",
                  "missing_required_parameter", "model");
    return false;
  }
  name = whispers[0];
  return true;
}

std::string tensor_text(const wnn_named_tensor_list& outputs, const char* name) {
  const int i = wnn_find_output(&outputs, name);
  if (i < 0) return "";
  wnn_bytes b = wnn_tensor_data(outputs.ptr[i].tensor);
  std::string text(reinterpret_cast<const char*>(b.ptr), b.len);
  free(b.ptr);
  return text;
}

struct Transcript {
  json doc;         // output "json": whisper-cli -oj's document
  std::string srt;  // output "srt"
};

// The inputs of a whisper run: the file and the options, as the plugin's "audio" and "metadata".
struct Inputs {
  std::string meta;
  uint32_t audio_dims[1], meta_dims[1];
  wnn_named_tensor tensors[2];
  Inputs(std::string_view audio, const json& metadata) : meta(dump(metadata)) {
    audio_dims[0] = static_cast<uint32_t>(audio.size());
    meta_dims[0] = static_cast<uint32_t>(meta.size());
    tensors[0] = wnn_named("audio", wnn_tensor_new(audio_dims, 1, WNN_TYPE_U8, audio.data(), audio_dims[0]));
    tensors[1] = wnn_named("metadata", wnn_tensor_new(meta_dims, 1, WNN_TYPE_U8, meta.data(), meta_dims[0]));
  }
};

// A failed compute's code and text; drops the error.
struct Failure {
  int code = 0;
  std::string why;
};
Failure failure_of(wnn_error err) {
  Failure f{wnn_error_get_code(err), take(wnn_error_get_data(err))};
  wnn_error_drop(err);
  // The host's hint for a guest that sent the wrong tensors; this request's were right.
  const size_t hint = f.why.find("; the model's inputs are ");
  if (hint != std::string::npos) f.why.resize(hint);
  return f;
}

// 400 for what the plugin refuses in the request (its audio, a language); 500 otherwise.
void respond_failure(wh_response_outparam out, const Failure& f) {
  if (f.code == WNN_ERROR_INVALID_ARGUMENT || f.code == WNN_ERROR_UNSUPPORTED_OPERATION)
    respond_error(out, 400, "the audio cannot be transcribed: " + f.why, "invalid_value", "file");
  else
    respond_error(out, 500, "the transcription failed: " + f.why);
}

std::string text_of(const json& segment) { return field(segment, "text", std::string()); }

bool is_transcript(const json& doc) {
  return doc.is_object() && doc.contains("transcription") && doc["transcription"].is_array();
}

struct Context {
  wnn_context ctx = 0;
  ~Context() {
    if (ctx) wnn_context_drop(ctx);  // a stream still running is cancelled by the plugin
  }
};

// A new execution context on `graph`; false after answering.
bool new_context(wnn_graph graph, wh_response_outparam out, Context& c) {
  wnn_error err;
  if (!wnn_init_execution_context(graph, &c.ctx, &err)) return true;
  respond_error(out, 500, "init-execution-context failed: " + take(wnn_error_get_data(err)));
  wnn_error_drop(err);
  return false;
}

// One whisper run of `audio` with `metadata`; false after answering.
bool transcribe(wnn_graph graph, std::string_view audio, const json& metadata, wh_response_outparam out,
                Transcript& t) {
  Context c;
  if (!new_context(graph, out, c)) return false;
  Inputs in(audio, metadata);
  wnn_named_tensor_list outputs{nullptr, 0};
  wnn_error err;
  if (wnn_compute(c.ctx, in.tensors, 2, &outputs, &err)) {
    respond_failure(out, failure_of(err));
    return false;
  }
  t.doc = json::parse(tensor_text(outputs, "json"), nullptr, false);
  t.srt = tensor_text(outputs, "srt");
  wnn_named_tensor_list_free(&outputs);
  if (!is_transcript(t.doc)) {
    respond_error(out, 500, "the model gave no JSON transcript (output json): is it a whisper model?");
    return false;
  }
  return true;
}

std::string event(const json& j) { return "data: " + dump(j) + "\n\n"; }

// stream: true. The plugin's stream (its "stream" option: each compute is a compute_single,
// handing out the next segment as whisper.cpp decodes it) as OpenAI's transcript.text.delta
// events, one per segment, then transcript.text.done with the whole text. The deltas are the
// segments' texts with the transcript's outer whitespace held back, so they add up to the
// non-streamed text exactly. The first compute decodes the audio: a file the plugin refuses is
// still a 400; a failure after the 200 is an error event and the wasinn-cut trailer.
void stream_transcript(wnn_graph graph, std::string_view audio, json metadata, wh_response_outparam out) {
  metadata["stream"] = true;
  Context c;
  if (!new_context(graph, out, c)) return;
  Inputs in(audio, metadata);
  hg_stream s{};
  bool begun = false, started = false;
  std::string text, held;  // the text sent so far; whitespace not sent yet
  auto send = [&](const json& j) {
    const std::string e = event(j);
    return hg_stream_write(&s, e.data(), e.size()) == 0;
  };
  for (bool first = true;; first = false) {
    wnn_named_tensor_list outputs{nullptr, 0};
    wnn_error err;
    if (wnn_compute(c.ctx, first ? in.tensors : nullptr, first ? 2 : 0, &outputs, &err)) {
      const Failure f = failure_of(err);
      if (!begun) return respond_failure(out, f);
      const bool timeout = f.code == WNN_ERROR_TIMEOUT;
      send({{"error",
             {{"message", "the transcription failed midway: " + f.why},
              {"type", "server_error"},
              {"param", nullptr},
              {"code", timeout ? json("timeout") : json(nullptr)}}}});
      // Its 200 went out: the server logs the answer cut (timeout or error), not completed.
      hg_stream_end_with_trailer(&s, "wasinn-cut", timeout ? "timeout" : "error");
      return;
    }
    const json doc = json::parse(tensor_text(outputs, "json"), nullptr, false);
    wnn_named_tensor_list_free(&outputs);
    if (!is_transcript(doc)) {
      if (!begun) return respond_error(out, 500, "the model gave no JSON transcript (output json)");
      send({{"error", {{"message", "the model gave no JSON transcript"}, {"type", "server_error"}}}});
      hg_stream_end_with_trailer(&s, "wasinn-cut", "error");
      return;
    }
    if (!begun) {
      // Declared up front, as every stream of this component: how it ends reaches the server.
      hg_stream_begin_with_trailer(out, 200, "text/event-stream", "wasinn-cut", &s);
      begun = true;
    }
    const json& segments = doc["transcription"];
    if (segments.empty()) break;  // the plugin's end of the stream
    for (const json& segment : segments) {
      std::string piece = text_of(segment);
      if (!started) {
        const size_t a = piece.find_first_not_of(" \t\r\n");
        if (a == std::string::npos) continue;
        piece.erase(0, a);
        started = true;
      }
      const size_t end = piece.find_last_not_of(" \t\r\n");
      if (end == std::string::npos) {
        held += piece;
        continue;
      }
      const std::string delta = held + piece.substr(0, end + 1);
      held = piece.substr(end + 1);
      text += delta;
      if (!send({{"type", "transcript.text.delta"}, {"delta", delta}})) {
        // The client has left: ~Context drops the context, which stops whisper.cpp; the
        // server logs the answer cut:client-left.
        hg_stream_end(&s);
        return;
      }
    }
  }
  send({{"type", "transcript.text.done"}, {"text", text}});
  hg_stream_end(&s);
}

// whisper-cli -oj's "offsets" in ms as OpenAI's seconds.
double seconds(const json& segment, const char* end) {
  const json& offsets = segment.value("offsets", json::object());
  return offsets.is_object() && offsets.contains(end) && offsets[end].is_number() ? offsets[end].get<double>() / 1000.0
                                                                                  : 0.0;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// WebVTT as whisper-cli -ovtt writes it: hh:mm:ss.mmm times.
std::string to_vtt(const json& segments) {
  std::string out = "WEBVTT\n\n";
  for (const json& s : segments) {
    const json stamps = field(s, "timestamps", json::object());
    std::string from = field(stamps, "from", std::string()), to = field(stamps, "to", std::string());
    for (std::string* t : {&from, &to})
      if (t->size() > 8 && (*t)[8] == ',') (*t)[8] = '.';
    out += from + " --> " + to + "\n" + text_of(s) + "\n\n";
  }
  return out;
}

}  // namespace

void transcriptions(const std::string& content_type, const std::string& body, bool translate, wh_response_outparam out,
                    Generation) {
  TranscriptionRequest req;
  Refusal why;
  if (!parse_transcription_form(content_type, body, translate, req, why)) return respond_refusal(out, why);
  std::string name;
  if (!whisper_model(req.model, out, name)) return;
  Model m;
  if (!load_model(name, out, m)) return;

  // NN_OPTIONS first (the plugin's metadata replaces the context's options whole), then the form.
  // NN_OPTIONS is every model's: whisper takes the options it has (a chat model's ctx-size is not
  // one), with their JSON values.
  json metadata;
  std::string bad_options;
  if (!model_env_options([&] { return property_names(m.graph); }, metadata, bad_options))
    return respond_error(out, 500, bad_options);
  metadata["language"] = req.language.empty() ? "auto" : req.language;
  metadata["translate"] = translate;
  metadata["stream"] = false;  // the request's, whatever NN_OPTIONS says
  if (!req.prompt.empty()) metadata["prompt"] = req.prompt;
  if (req.has_temperature) metadata["temperature"] = req.temperature;

  if (req.stream) return stream_transcript(m.graph, req.file, metadata, out);
  Transcript t;
  if (!transcribe(m.graph, req.file, metadata, out, t)) return;
  const json& segments = t.doc["transcription"];
  std::string text;
  for (const json& s : segments) text += text_of(s);
  text = trimmed(text);

  switch (req.format) {
    case AudioFormat::text: {
      const std::string body_text = text + "\n";
      return hg_respond(out, 200, "text/plain; charset=utf-8", body_text.data(), body_text.size());
    }
    case AudioFormat::srt: return hg_respond(out, 200, "text/plain; charset=utf-8", t.srt.data(), t.srt.size());
    case AudioFormat::vtt: {
      const std::string vtt = to_vtt(segments);
      return hg_respond(out, 200, "text/vtt; charset=utf-8", vtt.data(), vtt.size());
    }
    case AudioFormat::json: return respond_json(out, 200, {{"text", text}});
    case AudioFormat::verbose_json: break;
  }
  const json result = field(t.doc, "result", json::object());
  const json duration = field(result, "duration", json());
  json answer = {{"task", translate ? "translate" : "transcribe"},
                 {"language", field(result, "language", std::string())},
                 {"duration", duration.is_number() ? duration.get<double>() : 0.0},
                 {"text", text}};
  json out_segments = json::array();
  for (size_t i = 0; i < segments.size(); ++i) {
    const json& s = segments[i];
    out_segments.push_back({{"id", i}, {"start", seconds(s, "from")}, {"end", seconds(s, "to")}, {"text", text_of(s)}});
  }
  answer["segments"] = std::move(out_segments);
  if (req.words) {
    // Words are whisper's segments cut at every word (whisper-cli -ml 1 -sow): a second run.
    metadata["max-len"] = 1;
    metadata["split-on-word"] = true;
    Transcript w;
    if (!transcribe(m.graph, req.file, metadata, out, w)) return;
    json words = json::array();
    for (const json& s : w.doc["transcription"]) {
      const std::string word = trimmed(text_of(s));
      if (!word.empty()) words.push_back({{"word", word}, {"start", seconds(s, "from")}, {"end", seconds(s, "to")}});
    }
    answer["words"] = std::move(words);
  }
  respond_json(out, 200, answer);
}

}  // namespace openai
