// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text to speech, part 1: the OuteTTS 0.2 prompt as WasmEdge's GGML plugin builds it ("tts":
// true). A speaker profile (OuteTTS's JSON: words, their durations and audio codes) is the
// example the model continues; the text to speak is normalised (numbers in words, lowercase
// a-z, words joined by <|text_sep|>). Pure functions and immutable values; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// OuteTTS's audio codes <|0|>..: token ids from kFirstCodeToken; WasmEdge's and llama.cpp's TTS
// code keep tokens kFirstCodeToken..kLastCodeToken (both inclusive) as codes, id minus the first.
inline constexpr int32_t kFirstCodeToken = 151672;
inline constexpr int32_t kLastCodeToken = 155772;
inline constexpr int32_t kMaxSpeakerCode = 4099;  // <|4099|>: OuteTTS 0.2's last code token

struct SpeakerProfile {
  std::string text;  // <|text_start|>word<|text_sep|>word<|text_sep|>...
  std::string data;  // <|audio_start|>\nword<|t_0.36|><|code_start|><|447|>...<|code_end|>\n...
};

// Parses an OuteTTS speaker profile (default_speakers/*.json: {"words": [{"word", "duration",
// "codes"}, ...]}). `what` names it in the detail. INVALID_ARGUMENT for malformed JSON, no
// words, a word that is not a string of letters, a duration that is not 0..100 s, or a code
// that is not an integer 0..kMaxSpeakerCode.
Error parse_speaker_profile(std::string_view json, std::string_view what, SpeakerProfile& out);

// The profile WasmEdge speaks with when no "tts-speaker-file" is given: OuteTTS's en_female_1
// (from the outetts wheel, scripts/deps/outetts.sh), without the newline after its last word,
// as WasmEdge's copy of it.
const SpeakerProfile& default_speaker_profile();

// The text to speak as OuteTTS takes it: each number ("42", "3.14") in English words, ASCII
// lowercased, - _ / , . \ and whitespace as word breaks, every other character dropped, and
// the words joined by <|text_sep|>.
std::string normalize_tts_text(std::string_view text);

}  // namespace wasinn::llamacpp
