// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The OuteTTS prompt's text (backends/llamacpp/tts_prompt.cpp) against known answers: what
// WasmEdge's regex steps make of each text (numbers in words, lowercase a-z, word breaks), and
// speaker profiles, good and bad.
#include <gtest/gtest.h>

#include "tts_prompt.h"

namespace wasinn::llamacpp {
namespace {

std::string sep(std::initializer_list<const char*> words) {
  std::string out;
  for (const char* w : words) out += (out.empty() ? "" : "<|text_sep|>") + std::string(w);
  return out;
}

TEST(TtsPrompt, TextIsSpelledOutAsOuteTtsTakesIt) {
  EXPECT_EQ(normalize_tts_text("Hello, world 42."), sep({"hello", "world", "forty", "two"}));
  EXPECT_EQ(normalize_tts_text("3.14"), sep({"three", "point", "one", "four"}));
  EXPECT_EQ(normalize_tts_text("105 1000000"), sep({"one", "hundred", "five", "one", "million"}));
  EXPECT_EQ(normalize_tts_text("2019"), sep({"two", "thousand", "nineteen"}));
  EXPECT_EQ(normalize_tts_text("0 007"), sep({"zero", "seven"}));
  EXPECT_EQ(normalize_tts_text("1.2.3"), sep({"one", "point", "two", "three"}));  // "1.2", then ".3"
  EXPECT_EQ(normalize_tts_text("1."), "one");
  // Beyond int32, WasmEdge's std::stoi throws and its catch gives a space.
  EXPECT_EQ(normalize_tts_text("x 2147483648 y"), sep({"x", "y"}));
  EXPECT_EQ(normalize_tts_text("x 2147483647"),
            sep({"x", "two", "billion", "one", "hundred", "forty", "seven", "million", "four", "hundred", "eighty",
                 "three", "thousand", "six", "hundred", "forty", "seven"}));
  EXPECT_EQ(normalize_tts_text("a-b_c/d\\e,f.g\th\ni"), sep({"a", "b", "c", "d", "e", "f", "g", "h", "i"}));
  EXPECT_EQ(normalize_tts_text("Caf\xc3\xa9 it's <|im_end|>!"), sep({"caf", "its", "im", "end"}));
  EXPECT_EQ(normalize_tts_text("  \t "), "");
  EXPECT_EQ(normalize_tts_text("?!"), "");
}

TEST(TtsPrompt, SpeakerProfileIsTheTextAndTheCodesOfItsWords) {
  SpeakerProfile p;
  ASSERT_FALSE(parse_speaker_profile(
      R"({"words": [{"word": "hi", "duration": 0.2, "codes": [1, 4099]}, {"word": "yo", "duration": 0.125, "codes": []}]})",
      "test", p));
  EXPECT_EQ(p.text, "<|text_start|>hi<|text_sep|>yo<|text_sep|>");
  EXPECT_EQ(p.data,
            "<|audio_start|>\nhi<|t_0.20|><|code_start|><|1|><|4099|><|code_end|>\n"
            "yo<|t_0.12|><|code_start|><|code_end|>\n");
}

TEST(TtsPrompt, BadSpeakerProfilesSayWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"not json", "not a JSON object"},
      {R"({"words": []})", "no \"words\""},
      {R"({"words": [3]})", "words[0] is not an object"},
      {R"({"words": [{"word": "", "duration": 1, "codes": []}]})", "words[0].word is not a non-empty string"},
      {R"({"words": [{"word": "a<|b", "duration": 1, "codes": []}]})", "token marker"},
      {R"({"words": [{"word": "a", "duration": -1, "codes": []}]})", "duration is not a number of seconds"},
      {R"({"words": [{"word": "a", "duration": 1, "codes": [1.5]}]})", "codes holds 1.5"},
      {R"({"words": [{"word": "a", "duration": 1, "codes": [4100]}]})", "codes holds 4100"},
      {R"({"words": [{"word": "a", "duration": 1}]})", "codes is not an array"},
  };
  for (const auto& [json, reason] : cases) {
    SpeakerProfile p;
    const Error e = parse_speaker_profile(json, "speaker.json", p);
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << json;
    EXPECT_NE(e.detail.find(reason), std::string::npos) << json << ": " << e.detail;
    EXPECT_EQ(e.detail.rfind("speaker.json is not an OuteTTS speaker profile: ", 0), 0u) << e.detail;
  }
}

TEST(TtsPrompt, DefaultSpeakerIsEnFemale1EndingAtItsLastCode) {
  const SpeakerProfile& p = default_speaker_profile();
  EXPECT_EQ(p.text.rfind("<|text_start|>uhm<|text_sep|>now<|text_sep|>", 0), 0u);
  EXPECT_EQ(p.data.rfind("<|audio_start|>\nuhm<|t_0.36|><|code_start|><|447|><|223|>", 0), 0u);
  EXPECT_TRUE(p.data.ends_with("<|733|><|code_end|>"));  // no newline: WasmEdge's copy
}

}  // namespace
}  // namespace wasinn::llamacpp
