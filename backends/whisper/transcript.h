// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A transcription's segments and the texts made of them: the transcript WasmEdge's whisper
// plugin returns (output 0), and the SRT, LRC and JSON files its output-* keys would write on
// the host, which wasinn hands the guest instead (outputs 1-3). Pure functions.
#pragma once

#include <whisper.h>

#include <cstdint>
#include <string>
#include <vector>

#include "options.h"
#include "audio.h"

namespace wasinn::whisper {

struct Segment {
  int64_t t0 = 0, t1 = 0;  // in 10 ms units, as whisper.cpp counts
  std::string text;
  std::string speaker;  // "(speaker 0)", "(speaker 1)" or "(speaker ?)" with diarize on stereo
};

// Segments [first, end) of the state's last whisper_full, with speakers when diarizing stereo.
std::vector<Segment> read_segments(whisper_state* state, int first, const WhisperOptions& options, const Audio& audio);

// One segment as output 0 carries it (the transcript is the concatenation).
std::string transcript_piece(const Segment& s, const WhisperOptions& options);
std::string to_srt(const std::vector<Segment>& segments, const WhisperOptions& options);
std::string to_lrc(const std::vector<Segment>& segments);
// whisper-cli -oj's document, and one key of wasinn's own: "result"."duration", the audio's
// seconds (what OpenAI's verbose_json answers as duration).
std::string to_json(whisper_context* model, int lang_id, const std::vector<Segment>& segments,
                    const WhisperOptions& options, double audio_seconds);

}  // namespace wasinn::whisper
