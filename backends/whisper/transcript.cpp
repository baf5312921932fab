// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "transcript.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wasinn::whisper {
namespace {

// A time in whisper.cpp's 10 ms units as hours, minutes (of the hour), seconds and milliseconds.
struct Clock {
  int h, m, s, ms;
  explicit Clock(int64_t t) {
    const int64_t total = t * 10;
    h = static_cast<int>(total / 3600000);
    m = static_cast<int>(total / 60000 % 60);
    s = static_cast<int>(total / 1000 % 60);
    ms = static_cast<int>(total % 1000);
  }
};

// "hh:mm:ss.mmm" (or with a comma, as SRT writes it).
std::string timestamp(int64_t t, bool comma = false) {
  const Clock c(t);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d%s%03d", c.h, c.m, c.s, comma ? "," : ".", c.ms);
  return buf;
}

// WasmEdge's (and whisper-cli's) rule: the louder channel over the segment speaks, if by 10 %.
std::string speaker_of(const Audio& audio, int64_t t0, int64_t t1) {
  const int64_t n = static_cast<int64_t>(audio.left.size());
  const auto sample = [n](int64_t t) { return std::clamp<int64_t>(t * 16000 / 100, 0, n - 1); };
  double e0 = 0, e1 = 0;
  for (int64_t i = sample(t0); i < sample(t1); ++i) {
    e0 += std::fabs(audio.left[i]);
    e1 += std::fabs(audio.right[i]);
  }
  const char* who = e0 > 1.1 * e1 ? "0" : e1 > 1.1 * e0 ? "1" : "?";
  return std::string("(speaker ") + who + ")";
}

}  // namespace

std::vector<Segment> read_segments(whisper_state* state, int first, const WhisperOptions& options, const Audio& audio) {
  std::vector<Segment> out;
  const int n = whisper_full_n_segments_from_state(state);
  for (int i = std::max(first, 0); i < n; ++i) {
    Segment s{whisper_full_get_segment_t0_from_state(state, i), whisper_full_get_segment_t1_from_state(state, i),
              whisper_full_get_segment_text_from_state(state, i), ""};
    if (options.diarize && audio.channels == 2) s.speaker = speaker_of(audio, s.t0, s.t1);
    out.push_back(std::move(s));
  }
  return out;
}

std::string transcript_piece(const Segment& s, const WhisperOptions& options) {
  std::string out;
  if (!options.no_timestamps) out = "[" + timestamp(s.t0) + " --> " + timestamp(s.t1) + "] ";
  out += s.speaker + s.text;
  if (!options.no_timestamps || options.diarize) out += "\n";
  return out;
}

std::string to_srt(const std::vector<Segment>& segments, const WhisperOptions& options) {
  std::string out;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    out += std::to_string(i + 1 + static_cast<size_t>(options.offset_n)) + "\n" + timestamp(s.t0, true) + " --> " +
           timestamp(s.t1, true) + "\n" + s.speaker + s.text + "\n\n";
  }
  return out;
}

std::string to_lrc(const std::vector<Segment>& segments) {
  std::string out = "[by:whisper.cpp]\n";
  for (const Segment& s : segments) {
    const Clock c(s.t0);  // LRC counts minutes past the hour on, as whisper-cli writes it
    char buf[40];
    std::snprintf(buf, sizeof buf, "[%02d:%02d.%02d]", c.h * 60 + c.m, c.s, c.ms / 10);
    out += buf + s.speaker + s.text + "\n";
  }
  return out;
}

std::string to_json(whisper_context* model, int lang_id, const std::vector<Segment>& segments,
                    const WhisperOptions& options, double audio_seconds) {
  using json = nlohmann::ordered_json;
  json transcription = json::array();
  for (const Segment& s : segments) {
    json seg = {{"timestamps", {{"from", timestamp(s.t0, true)}, {"to", timestamp(s.t1, true)}}},
                {"offsets", {{"from", s.t0 * 10}, {"to", s.t1 * 10}}},
                {"text", s.text}};
    if (!s.speaker.empty()) seg["speaker"] = s.speaker.substr(9, s.speaker.size() - 10);  // the id alone
    transcription.push_back(std::move(seg));
  }
  const json doc = {
      {"systeminfo", whisper_print_system_info()},
      {"model",
       {{"type", whisper_model_type_readable(model)},
        {"multilingual", whisper_is_multilingual(model) != 0},
        {"vocab", whisper_model_n_vocab(model)},
        {"audio",
         {{"ctx", whisper_model_n_audio_ctx(model)},
          {"state", whisper_model_n_audio_state(model)},
          {"head", whisper_model_n_audio_head(model)},
          {"layer", whisper_model_n_audio_layer(model)}}},
        {"text",
         {{"ctx", whisper_model_n_text_ctx(model)},
          {"state", whisper_model_n_text_state(model)},
          {"head", whisper_model_n_text_head(model)},
          {"layer", whisper_model_n_text_layer(model)}}},
        {"mels", whisper_model_n_mels(model)},
        {"ftype", whisper_model_ftype(model)}}},
      {"params", {{"model", "wasi-nn graph"}, {"language", options.language}, {"translate", options.translate}}},
      {"result", {{"language", lang_id >= 0 ? whisper_lang_str(lang_id) : ""}, {"duration", audio_seconds}}},
      {"transcription", std::move(transcription)}};
  // Invalid UTF-8 (a token boundary inside a character) is replaced, never thrown about.
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace wasinn::whisper
