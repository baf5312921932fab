// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The piper plugin's knobs as the speech endpoint uses them, through its C table: the property
// "audio-format" (pcm: the WAV's samples; flac: decodes, by libsndfile, to the same samples as
// piper-tts's WAV; mp3 and opus: decode to the same length within the codecs' padding), the
// synthesis knobs as context properties (speaker_id, length_scale: equal to piper-tts's WAV of
// the same options), the voices a request may name (piper.voices), bad values refused naming
// what, a run config file the operator registered (wasinn serve --openai tts=voice.json), and the
// option "stream" (a sentence's PCM per compute, adding up to piper-tts's samples).
#include <gtest/gtest.h>
#include <sndfile.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

using json = nlohmann::json;

std::string fixture(const std::string& name) { return (fixtures_dir() / "piper" / name).string(); }

std::vector<uint8_t> text_bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::string case_text(const std::string& name) {
  const auto bytes = read_fixture("piper/reference.json");
  return json::parse(bytes.begin(), bytes.end()).at("cases").at(name).at("text");
}

// A voice the operator registered as the host passes it: its file's path and bytes.
int load_registered(Backend& b, const std::string& path, Graph& g, Diag& d, const std::string& config = "") {
  LoadArgs a = model_args("piper", {read_file(path)});
  a.paths = {path};
  a.config = config;
  return load(b, a, g, d);
}

int set_property(wasinn_graph* g, wasinn_context* c, const std::string& name, const std::string& value, Diag& d) {
  return api().property_set(g, c, name.data(), name.size(), value.data(), value.size(), &d);
}

std::string graph_property(wasinn_graph* g, const std::string& name) {
  for (size_t i = 0; i < api().graph_property_count(g); ++i) {
    wasinn_property p{};
    if (api().graph_property_info(g, i, &p) == WASINN_OK && name == p.name) return p.value;
  }
  return "(none)";
}

std::vector<uint8_t> speak(wasinn_context* c, const std::string& text, Diag& d) {
  const std::vector<uint8_t> bytes = text_bytes(text);
  EXPECT_EQ(set_input(api(), c, by_index(0), WASINN_TYPE_U8, {static_cast<uint32_t>(bytes.size())}, bytes, d),
            WASINN_OK)
      << d.detail;
  EXPECT_EQ(api().compute(c, &d), WASINN_OK) << d.detail;
  return output_bytes(api(), c, by_index(0), WASINN_TYPE_U8);
}

// A file's samples as libsndfile decodes it, and its rate.
struct Decoded {
  std::vector<int16_t> samples;
  int rate = 0;
  int format = 0;
};
Decoded decode(const std::vector<uint8_t>& file) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "wasinn-piper-decode.bin";
  write_file(path, file);
  SF_INFO info{};
  SNDFILE* sf = sf_open(path.c_str(), SFM_READ, &info);
  Decoded out;
  if (!sf) {
    ADD_FAILURE() << "libsndfile cannot open it: " << sf_strerror(nullptr);
    return out;
  }
  out.rate = info.samplerate;
  out.format = info.format & SF_FORMAT_TYPEMASK;
  out.samples.resize(static_cast<size_t>(info.frames * info.channels));
  out.samples.resize(static_cast<size_t>(sf_read_short(sf, out.samples.data(), info.frames * info.channels)));
  sf_close(sf);
  return out;
}

std::vector<int16_t> wav_samples(const std::vector<uint8_t>& wav) {
  std::vector<int16_t> s(wav.size() > 44 ? (wav.size() - 44) / 2 : 0);
  if (!s.empty()) std::memcpy(s.data(), wav.data() + 44, s.size() * 2);
  return s;
}

TEST(PiperFormats, EachAudioFormatHoldsPiperTtsSamples) {
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load_registered(b, fixture("tiny.onnx"), g, d), WASINN_OK) << d.detail;
  EXPECT_EQ(graph_property(g.ptr, "audio-format"), "wav");
  const std::vector<uint8_t> wav = read_fixture("piper/ref-welcome.wav");
  const std::vector<int16_t> want = wav_samples(wav);
  ASSERT_GT(want.size(), 1000u);
  const std::string text = case_text("welcome");
  TestContext ctx(g.ptr);
  EXPECT_EQ(speak(ctx.ptr, text, d), wav) << "wav, the default, is piper-tts's file";
  ASSERT_EQ(set_property(g.ptr, ctx.ptr, "audio-format", "pcm", d), WASINN_OK) << d.detail;
  EXPECT_EQ(speak(ctx.ptr, text, d), std::vector<uint8_t>(wav.begin() + 44, wav.end())) << "pcm: the samples alone";

  ASSERT_EQ(set_property(g.ptr, ctx.ptr, "audio-format", "flac", d), WASINN_OK) << d.detail;
  const std::vector<uint8_t> flac = speak(ctx.ptr, text, d);
  ASSERT_GE(flac.size(), 4u);
  EXPECT_EQ(std::string(flac.begin(), flac.begin() + 4), "fLaC");
  const Decoded f = decode(flac);
  EXPECT_EQ(f.format, SF_FORMAT_FLAC);
  EXPECT_EQ(f.rate, 22050);
  EXPECT_EQ(f.samples, want) << "FLAC is lossless";

  // Lossy: the same duration, within the codec's padding (LAME's and Opus's frames, a few ms).
  ASSERT_EQ(set_property(g.ptr, ctx.ptr, "audio-format", "\"mp3\"", d), WASINN_OK) << d.detail;
  const Decoded m = decode(speak(ctx.ptr, text, d));
  EXPECT_EQ(m.format, SF_FORMAT_MPEG);
  EXPECT_EQ(m.rate, 22050);
  EXPECT_NEAR(static_cast<double>(m.samples.size()), static_cast<double>(want.size()), 2 * 1152);
  ASSERT_EQ(set_property(g.ptr, ctx.ptr, "audio-format", "opus", d), WASINN_OK) << d.detail;
  const std::vector<uint8_t> opus = speak(ctx.ptr, text, d);
  ASSERT_GE(opus.size(), 36u);
  EXPECT_EQ(std::string(opus.begin(), opus.begin() + 4), "OggS");
  const Decoded o = decode(opus);
  EXPECT_EQ(o.rate, 24000) << "Opus takes no 22050 Hz: resampled to 24 kHz";
  EXPECT_NEAR(static_cast<double>(o.samples.size()), want.size() * 24000.0 / 22050.0, 24000 * 0.03);

  // Another context of the graph speaks WAV still: the property was this context's.
  TestContext other(g.ptr);
  EXPECT_EQ(speak(other.ptr, text, d), wav);
}

TEST(PiperFormats, SynthesisKnobsAsPropertiesEqualPiperTts) {
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load_registered(b, fixture("speakers.onnx"), g, d), WASINN_OK) << d.detail;
  EXPECT_EQ(graph_property(g.ptr, "piper.voices"), R"(["speaker0","speaker1","speaker2"])");
  EXPECT_EQ(graph_property(g.ptr, "length_scale"), "1");
  TestContext ctx(g.ptr);
  ASSERT_EQ(set_property(g.ptr, ctx.ptr, "speaker_id", "2", d), WASINN_OK) << d.detail;
  EXPECT_EQ(speak(ctx.ptr, case_text("speaker-2"), d), read_fixture("piper/ref-speaker-2.wav"));

  // The paced voice's samples per id scale with length_scale (scripts/fixtures/export_piper.py).
  Graph paced;
  ASSERT_EQ(load_registered(b, fixture("paced.onnx"), paced, d), WASINN_OK) << d.detail;
  EXPECT_EQ(graph_property(paced.ptr, "piper.voices"), R"(["wasinn-paced-random"])");
  TestContext slow(paced.ptr);
  ASSERT_EQ(set_property(paced.ptr, slow.ptr, "length_scale", "2", d), WASINN_OK) << d.detail;
  EXPECT_EQ(speak(slow.ptr, case_text("paced-slow"), d), read_fixture("piper/ref-paced-slow.wav"));
  ASSERT_EQ(set_property(paced.ptr, slow.ptr, "length_scale", "0.5", d), WASINN_OK) << d.detail;
  EXPECT_EQ(speak(slow.ptr, case_text("paced-fast"), d), read_fixture("piper/ref-paced-fast.wav"));

  for (const auto& [name, value, words] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"audio-format", "aac", "\"aac\" is not one of wav, pcm, flac, mp3, opus"},
           {"speaker_id", "3", "not below the voice's num_speakers 3"},
           {"speaker_id", "-1", "a non-negative integer"},
           {"length_scale", "0", "above 0"},
           {"length_scale", "fast", "not a number"},
           {"output_type", "raw", "use \"audio-format\""},
           {"volume", "1", "piper has no property \"volume\""},
       }) {
    EXPECT_EQ(set_property(g.ptr, ctx.ptr, name, value, d), WASINN_INVALID_ARGUMENT) << name << "=" << value;
    EXPECT_NE(d.detail.find(words), std::string::npos) << name << "=" << value << ": " << d.detail;
  }
  EXPECT_EQ(speak(ctx.ptr, case_text("speaker-2"), d), read_fixture("piper/ref-speaker-2.wav"))
      << "the refused values changed nothing";
}

TEST(PiperFormats, ARegisteredRunConfigFileNamesItsVoice) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "wasinn-piper-run-config";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixture("tiny.onnx"), dir / "tiny.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(fixture("tiny.onnx.json"), dir / "tiny.onnx.json",
                             std::filesystem::copy_options::overwrite_existing);
  write_file(dir / "relative.json", text_bytes(R"({"model": "tiny.onnx", "noise_scale": 0.3})"));
  write_file(dir / "absolute.json", text_bytes(json{{"model", fixture("tiny.onnx")}}.dump()));
  TestBackend b;  // no allow-host-paths: the operator registered the file
  Diag d;
  Graph relative, absolute;
  ASSERT_EQ(load_registered(b, (dir / "relative.json").string(), relative, d), WASINN_OK) << d.detail;
  ASSERT_EQ(load_registered(b, (dir / "absolute.json").string(), absolute, d), WASINN_OK) << d.detail;
  TestContext a(relative.ptr), c(absolute.ptr);
  EXPECT_EQ(speak(a.ptr, case_text("noise"), d), read_fixture("piper/ref-noise.wav")) << "its noise_scale 0.3";
  EXPECT_EQ(speak(c.ptr, case_text("welcome"), d), read_fixture("piper/ref-welcome.wav"));
  // A guest's load config over it still names no host file.
  Graph refused;
  EXPECT_EQ(load_registered(b, (dir / "absolute.json").string(), refused, d, R"({"config": "/etc/passwd"})"),
            WASINN_SECURITY);
  EXPECT_NE(d.detail.find("allow-host-paths"), std::string::npos) << d.detail;
  write_file(dir / "missing.json", text_bytes(R"({"model": "nowhere.onnx"})"));
  EXPECT_EQ(load_registered(b, (dir / "missing.json").string(), refused, d), WASINN_NOT_FOUND);
  EXPECT_NE(d.detail.find((dir / "nowhere.onnx").string()), std::string::npos) << d.detail;
}

// "stream": each compute one sentence's int16 samples, an empty output the end; one after another
// they are piper-tts's WAV's samples (the speech endpoint's stream_format sse and audio).
TEST(PiperFormats, StreamHandsOutEachSentenceAndTheyAddUpToPiperTts) {
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load_registered(b, fixture("tiny.onnx"), g, d), WASINN_OK) << d.detail;
  EXPECT_EQ(graph_property(g.ptr, "stream"), "false");
  for (const std::string name : {"sentences", "punctuation", "welcome"}) {
    const std::vector<uint8_t> wav = read_fixture("piper/ref-" + name + ".wav");
    const std::vector<uint8_t> want(wav.begin() + 44, wav.end());
    TestContext ctx(g.ptr);
    ASSERT_EQ(set_property(g.ptr, ctx.ptr, "stream", "true", d), WASINN_OK) << d.detail;
    ASSERT_EQ(set_property(g.ptr, ctx.ptr, "audio-format", "pcm", d), WASINN_OK) << d.detail;
    for (int round = 0; round < 2; ++round) {  // after the end, a compute starts the stream again
      std::vector<uint8_t> got = speak(ctx.ptr, case_text(name), d);
      size_t pieces = 0;
      while (!got.empty() && pieces < 100) {
        ++pieces;
        ASSERT_EQ(api().compute(ctx.ptr, &d), WASINN_OK) << d.detail;  // no new input: the next sentence
        const std::vector<uint8_t> piece = output_bytes(api(), ctx.ptr, by_index(0), WASINN_TYPE_U8);
        if (piece.empty()) break;
        got.insert(got.end(), piece.begin(), piece.end());
      }
      EXPECT_EQ(got, want) << name << " round " << round;
      EXPECT_GT(pieces, name == "welcome" ? 0u : 1u) << name << ": one piece per sentence";
    }
  }
  // The encoded formats are made from the whole audio: refused with stream, saying why.
  TestContext flac(g.ptr);
  ASSERT_EQ(set_property(g.ptr, flac.ptr, "stream", "true", d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_property(g.ptr, flac.ptr, "audio-format", "flac", d), WASINN_OK) << d.detail;
  const std::vector<uint8_t> text = text_bytes("Hello.");
  ASSERT_EQ(set_input(api(), flac.ptr, by_index(0), WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())}, text, d),
            WASINN_OK);
  EXPECT_EQ(api().compute(flac.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("audio-format flac is made from the whole audio"), std::string::npos) << d.detail;
  EXPECT_EQ(set_property(g.ptr, flac.ptr, "stream", "yes", d), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(set_property(g.ptr, flac.ptr, "stream", "1", d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("true or false"), std::string::npos) << d.detail;
}

}  // namespace
}  // namespace wasinn_test
