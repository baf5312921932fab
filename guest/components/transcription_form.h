// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// POST /v1/audio/transcriptions' and /v1/audio/translations' multipart form (multipart_form.h)
// checked into what http_openai_transcription.cpp asks the whisper plugin for, or refused as
// OpenAI refuses (openai_request.h's Refusal). Pure, like openai_request.cpp: tested and fuzzed
// natively (tests/serve/multipart_form_test.cpp, tests/fuzz/fuzz_multipart_form.cpp).
#pragma once

#include <string>
#include <string_view>

#include "openai_request.h"

namespace openai {

enum class AudioFormat { json, text, srt, vtt, verbose_json };

struct TranscriptionRequest {
  std::string_view file;  // the audio file's bytes, into the form
  std::string filename;
  std::string model;     // "" when the form has none
  std::string language;  // "" when none: whisper detects it ("auto")
  std::string prompt;
  bool has_temperature = false;
  double temperature = 0;
  AudioFormat format = AudioFormat::json;
  bool words = false;   // timestamp_granularities[] holds "word" (verbose_json only)
  bool stream = false;  // stream true: transcript.text.delta events, one per whisper segment
};

// The most bytes of a form's text field (model, language, prompt, ...): whisper's prompt is cut
// to the model's context (224 tokens) anyway.
constexpr size_t kMaxFieldBytes = 64 * 1024;

// `content_type` (the request's header) and `body` (the whole form) as a request; `translate` for
// /v1/audio/translations, which takes no `language`. false with `why`: a malformed form, no or
// an empty `file` part, a field given twice, an unknown field (named), a bad value (named),
// timestamp_granularities[] without verbose_json, `stream` true on translations (OpenAI's
// translations API does not stream) or with a response_format other than json and text (srt,
// vtt and verbose_json are whole documents; OpenAI streams text events only).
bool parse_transcription_form(std::string_view content_type, std::string_view body, bool translate,
                              TranscriptionRequest& req, Refusal& why);

}  // namespace openai
