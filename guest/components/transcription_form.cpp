// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "transcription_form.h"

#include <cstdlib>
#include <set>
#include <vector>

#include "multipart_form.h"

namespace openai {
namespace {

Refusal bad(const std::string& message, const std::string& param = "", const char* code = "invalid_value") {
  return Refusal{400, message, code, param};
}

bool parse_format(std::string_view v, AudioFormat& out) {
  static const std::pair<const char*, AudioFormat> names[] = {{"json", AudioFormat::json},
                                                              {"text", AudioFormat::text},
                                                              {"srt", AudioFormat::srt},
                                                              {"vtt", AudioFormat::vtt},
                                                              {"verbose_json", AudioFormat::verbose_json}};
  for (const auto& n : names)
    if (v == n.first) return out = n.second, true;
  return false;
}

// A decimal number, all of the text (strtod on a copy: the form's bytes are not NUL-terminated).
bool parse_number(std::string_view v, double& out) {
  const std::string text(v);
  if (text.empty() || text.size() > 32) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && out == out;  // and not NaN
}

}  // namespace

bool parse_transcription_form(std::string_view content_type, std::string_view body, bool translate,
                              TranscriptionRequest& req, Refusal& why) {
  req = {};
  std::string boundary, problem;
  std::vector<multipart::Part> parts;
  if (!multipart::boundary_of(content_type, boundary, problem) || !multipart::parse(body, boundary, parts, problem)) {
    why = bad(problem, "", "");
    return false;
  }
  std::set<std::string> seen;
  bool has_file = false, segment_granularity = false, granularities = false;
  for (const multipart::Part& p : parts) {
    const bool repeatable = p.name == "timestamp_granularities[]" || p.name == "timestamp_granularities";
    if (!repeatable && !seen.insert(p.name).second) {
      why = bad("the form gives " + p.name + " twice", p.name);
      return false;
    }
    if (p.name == "file") {
      req.file = p.body;
      req.filename = p.filename;
      has_file = true;
      continue;
    }
    if (p.body.size() > kMaxFieldBytes) {
      why = bad(p.name + " is " + std::to_string(p.body.size()) + " bytes; a field takes at most " +
                    std::to_string(kMaxFieldBytes),
                p.name);
      return false;
    }
    const std::string value(p.body);
    if (p.name == "model") {
      req.model = value;
    } else if (p.name == "language") {
      if (translate) {
        why =
            bad("language is not accepted on /v1/audio/translations: whisper detects the spoken language and "
                "translates it to English",
                "language", "unknown_parameter");
        return false;
      }
      if (value.empty() || value.size() > 16) {
        why = bad("language must be a language code such as en or de", "language");
        return false;
      }
      req.language = value;
    } else if (p.name == "prompt") {
      req.prompt = value;
    } else if (p.name == "temperature") {
      if (!parse_number(value, req.temperature) || req.temperature < 0 || req.temperature > 1) {
        why = bad("temperature must be a number from 0 to 1, not '" + value.substr(0, 32) + "'", "temperature");
        return false;
      }
      req.has_temperature = true;
    } else if (p.name == "response_format") {
      if (!parse_format(value, req.format)) {
        why = bad("response_format must be json, text, srt, verbose_json or vtt, not '" + value.substr(0, 32) + "'",
                  "response_format");
        return false;
      }
    } else if (repeatable) {
      granularities = true;
      if (value == "word") {
        req.words = true;
      } else if (value == "segment") {
        segment_granularity = true;
      } else {
        why = bad("timestamp_granularities[] takes word and segment, not '" + value.substr(0, 32) + "'",
                  "timestamp_granularities[]");
        return false;
      }
    } else if (p.name == "stream") {
      if (value != "true" && value != "false") {
        why = bad("stream must be true or false", "stream");
        return false;
      }
      req.stream = value == "true";
    } else {
      why = bad("Unrecognized request argument supplied: " + p.name.substr(0, 64), p.name.substr(0, 64),
                "unknown_parameter");
      return false;
    }
  }
  (void)segment_granularity;  // segments are in every verbose_json answer
  if (!has_file) {
    why = bad("the form has no file part: send the audio as the field file", "file", "missing_required_parameter");
    return false;
  }
  if (req.file.empty()) {
    why = bad("the file part is empty: send a WAV, FLAC, MP3 or Ogg (Vorbis, Opus) file", "file");
    return false;
  }
  if (granularities && req.format != AudioFormat::verbose_json) {
    why = bad("timestamp_granularities[] needs response_format verbose_json", "timestamp_granularities[]");
    return false;
  }
  if (req.stream && translate) {
    why =
        bad("stream is not supported on /v1/audio/translations (OpenAI's translations API does not stream); "
            "leave it out or send false",
            "stream", "unsupported_parameter");
    return false;
  }
  if (req.stream && req.format != AudioFormat::json && req.format != AudioFormat::text) {
    why =
        bad("stream takes response_format json or text: its events carry the transcript's text, while srt, vtt "
            "and verbose_json are whole documents; leave stream out for them",
            "stream", "unsupported_parameter");
    return false;
  }
  return true;
}

}  // namespace openai
