// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasm guests on the whisper backend, run by the wasinn command, against native whisper.cpp
// (whisper-cli, built from the same source by scripts/deps/whisper.sh) on the same random-weight
// model (whisper/tiny-en.bin), audio and parameters: the transcript, segment for segment, and
// the SRT, LRC and JSON that whisper-cli writes; through compute, streaming, bytes and named
// loads, the WIT path, and after every bad input WasmEdge's guests can send.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "guest_runner.h"
#include "plugin_harness.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

using json = nlohmann::json;

// Greedy, no temperature fallback, two threads: a random model's output is the same run after
// run only with one thread count, and fallback would sample.
const std::string kGreedy = R"({"threads": 2, "beam-size": 1, "best-of": 1, "temperature-inc": 0})";
const std::vector<std::string> kGreedyCli = {"-t", "2", "-bs", "1", "-bo", "1", "-nf"};

std::string fixture(const std::string& name) { return (fixtures_dir() / "whisper" / name).string(); }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// whisper-cli on a fixture, writing JSON, SRT and LRC beside each other: its segments and files.
struct Native {
  json doc;
  std::string srt, lrc;
};
Native run_native(const std::string& audio, const std::vector<std::string>& extra, const std::string& name) {
  const std::string prefix = scratch_dir("native-" + name) + "/out";
  std::string cmd = std::string(WASINN_WHISPER_CLI) + " -m " + fixture("tiny-en.bin") + " -f " + fixture(audio) +
                    " -np -oj -osrt -olrc -of " + prefix;
  for (const auto& a : extra) cmd += " " + a;
  cmd += " >" + prefix + ".stdout 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << read_text(prefix + ".stdout");
  Native n;
  n.doc = json::parse(read_text(prefix + ".json"), nullptr, false, /*ignore_comments=*/false);
  n.srt = read_text(prefix + ".srt");
  n.lrc = read_text(prefix + ".lrc");
  return n;
}

// One whisper-cli run per audio and arguments: seven tests compare against the same greedy run.
Native native(const std::string& audio, const std::vector<std::string>& extra, const std::string& name) {
  static std::map<std::vector<std::string>, Native> runs;
  std::vector<std::string> key = extra;
  key.push_back(audio);
  auto found = runs.find(key);
  if (found == runs.end()) found = runs.emplace(key, run_native(audio, extra, name)).first;
  return found->second;
}

// The transcript WasmEdge's plugin writes, from whisper-cli's segments.
std::string expected_text(const Native& n, bool timestamps) {
  std::string out;
  for (const auto& seg : n.doc.at("transcription")) {
    if (timestamps) {
      std::string from = seg.at("timestamps").at("from"), to = seg.at("timestamps").at("to");
      from[8] = '.', to[8] = '.';  // SRT's comma, WasmEdge's dot
      out += "[" + from + " --> " + to + "] ";
    }
    out += seg.at("text").get<std::string>();
    if (timestamps) out += "\n";
  }
  return out;
}

std::string preload(const std::string& model = "tiny-en.bin") { return "default:Whisper:AUTO:" + fixture(model); }

// The transcript between the guest's "--- transcript FILE ---" and "--- end ---" lines.
std::string between(const std::string& out, const std::string& open) {
  const size_t start = out.find(open);
  if (start == std::string::npos) return "<no '" + open + "' in output>";
  const size_t body = out.find('\n', start) + 1;
  const size_t end = out.find("--- end ---\n", body);
  return end == std::string::npos ? "<unterminated>" : out.substr(body, end - body);
}

GuestRun transcribe(const std::vector<std::string>& guest_args, const std::string& log) {
  std::vector<std::string> args = {"run",
                                   "--backend-dir",
                                   WASINN_BACKEND_DIR,
                                   "--nn-preload",
                                   preload(),
                                   "--dir",
                                   (fixtures_dir() / "whisper").string() + "::/w",
                                   std::string(WASINN_GUEST_DIR) + "/transcribe.wasm"};
  args.insert(args.end(), guest_args.begin(), guest_args.end());
  return run_wasinn_split(args, log);
}

TEST(WhisperGuest, TranscriptEqualsNativeSegmentForSegment) {
  const Native n = native("speech.wav", kGreedyCli, "greedy");
  ASSERT_FALSE(n.doc.is_discarded());
  ASSERT_FALSE(n.doc.at("transcription").empty());
  const GuestRun r = transcribe({"--config", kGreedy, "/w/speech.wav"}, "greedy");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_EQ(between(r.output, "--- transcript"), expected_text(n, true));
}

TEST(WhisperGuest, NoTimestampsAndBeamSearchEqualNative) {
  const Native n = native("speech.wav", {"-t", "2", "-bs", "5", "-bo", "5", "-nf", "-nt"}, "beam");
  const GuestRun r = transcribe(
      {"--config", R"({"threads": 2, "temperature-inc": 0, "no-timestamps": true})", "/w/speech.wav"}, "beam");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_EQ(between(r.output, "--- transcript"), expected_text(n, false));
}

TEST(WhisperGuest, StreamedSegmentsEqualTheComputedTranscript) {
  const Native n = native("long.wav", kGreedyCli, "long");
  const GuestRun r = transcribe({"--config", kGreedy, "--stream", "/w/long.wav"}, "stream");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_GT(n.doc.at("transcription").size(), 1u);  // two 30 s windows at least
  EXPECT_EQ(between(r.output, "--- transcript"), expected_text(n, true));
}

TEST(WhisperGuest, OutputsSrtLrcJsonEqualWhisperCliFiles) {
  const Native n = native("speech.wav", kGreedyCli, "files");
  for (const auto& [index, expected] : std::vector<std::pair<std::string, std::string>>{{"1", n.srt}, {"2", n.lrc}}) {
    const GuestRun r = transcribe({"--config", kGreedy, "--output", index, "/w/speech.wav"}, "file" + index);
    ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
    EXPECT_EQ(between(r.output, "--- output " + index), expected) << "output " << index;
  }
  const GuestRun r = transcribe({"--config", kGreedy, "--output", "3", "/w/speech.wav"}, "file3");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  const json ours = json::parse(between(r.output, "--- output 3"), nullptr, false);
  ASSERT_FALSE(ours.is_discarded()) << between(r.output, "--- output 3");
  ASSERT_EQ(ours.at("transcription").size(), n.doc.at("transcription").size());
  for (size_t i = 0; i < ours.at("transcription").size(); ++i) {
    const auto &a = ours["transcription"][i], &b = n.doc["transcription"][i];
    EXPECT_EQ(a.at("text"), b.at("text"));
    EXPECT_EQ(a.at("offsets"), b.at("offsets"));
    EXPECT_EQ(a.at("timestamps"), b.at("timestamps"));
  }
  EXPECT_EQ(ours.at("model").at("vocab"), 51864);
  EXPECT_EQ(ours.at("result").at("language"), "en");
}

// Stereo is mixed to mono as WasmEdge and whisper-cli without -di mix it, (left + right) / 2
// (whisper-cli's -di sums them instead, so its transcript is of louder audio); the speaker of a
// segment is the louder channel: here the left, which holds the speech.
TEST(WhisperGuest, StereoIsMixedAsWasmEdgeDoesAndDiarizeNamesTheSpeakingChannel) {
  const Native n = native("stereo.wav", kGreedyCli, "stereo");
  const GuestRun r = transcribe({"--config", kGreedy, "--metadata", R"({"threads": 2, "beam-size": 1, "best-of": 1,
                                 "temperature-inc": 0, "diarize": true})",
                                 "/w/stereo.wav"},
                                "stereo");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  std::string text = between(r.output, "--- transcript");
  size_t named = 0;
  for (size_t at; (at = text.find("(speaker ")) != std::string::npos;) {
    EXPECT_TRUE(text.compare(at, 11, "(speaker 0)") == 0 || text.compare(at, 11, "(speaker ?)") == 0) << text;
    named += text.compare(at, 11, "(speaker 0)") == 0;
    text.erase(at, 11);
  }
  EXPECT_GE(named, 1u);
  EXPECT_EQ(text, expected_text(n, true));
}

// Whatever the file's rate, sample format, channels or codec, the plugin decodes it as
// whisper-cli does (miniaudio to f32, one channel, 16 kHz): the same transcript.
TEST(WhisperGuest, AnyRateSampleFormatFlacAndMp3EqualNative) {
  for (const std::string audio : {"rate-8k.wav", "pcm-8bit.wav", "float-44k.wav", "speech.flac", "speech.mp3"}) {
    const std::string tag = audio.substr(0, audio.find('.')) + "-" + audio.substr(audio.find('.') + 1);
    const Native n = native(audio, kGreedyCli, tag);
    ASSERT_FALSE(n.doc.is_discarded()) << audio;
    ASSERT_FALSE(n.doc.at("transcription").empty()) << audio;
    const GuestRun r = transcribe({"--config", kGreedy, "/w/" + audio}, tag);
    ASSERT_EQ(r.exit_code, 0) << audio << ": " << r.output << r.errors;
    EXPECT_EQ(between(r.output, "--- transcript"), expected_text(n, true)) << audio;
  }
}

TEST(WhisperGuest, BytesLoadWithConfigBuilderEqualsNamedLoad) {
  const Native n = native("speech.wav", kGreedyCli, "bytes");
  const GuestRun r = transcribe({"--model", "/w/tiny-en.bin", "--config", kGreedy, "/w/speech.wav"}, "bytes");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_EQ(between(r.output, "--- transcript"), expected_text(n, true));
}

// Then, in the same process, llama.cpp generates a few tokens: its ggml (a shared library) and
// whisper.cpp's (inside the whisper plugin) do not bind to each other.
TEST(WhisperGuest, EveryBadInputIsAnErrnoWithADetailThenTheGuestTranscribes) {
  const Native n = native("speech.wav", kGreedyCli, "errors");
  // -vv: every refused call's line (the default level warns of each kind once, then by count).
  const GuestRun r = run_wasinn_split(
      {"run", "-vv", "--backend-dir", WASINN_BACKEND_DIR, "--nn-preload", preload(), "--nn-preload",
       "tiny:GGML:AUTO:" + (fixtures_dir() / "llama/tiny.gguf").string(), "--dir",
       (fixtures_dir() / "whisper").string() + "::/w", "--dir", (fixtures_dir() / "llama").string() + "::/l",
       std::string(WASINN_GUEST_DIR) + "/whisper_errors.wasm", "/w", "/l/tiny.gguf"},
      "errors");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  // errno per case; the detail is on the host's log (stderr).
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"load-gguf-as-whisper", 2, "load them with encoding ggml"},
      {"load-text-as-whisper", 2, "not a whisper.cpp ggml model"},
      {"load-truncated-model", 1, "is truncated"},
      {"load-gpu-target", 6, "CPU only"},
      {"config-unknown-key", 1, "unknown whisper option \"no-such-option\""},
      {"config-wrong-type", 1, "\"threads\" must be"},
      {"config-out-of-range", 1, "\"beam-size\" must be an integer from 0 to 16"},
      {"config-malformed", 1, "malformed JSON"},
      {"config-unknown-language", 1, "\"xx\" is not a language whisper knows"},
      {"config-processors", 6, "\"processors\": 2 is not supported"},
      {"config-output-file", 6, "wasinn never does for a guest"},
      {"compute-without-audio", 1, "no audio"},
      {"output-before-compute", 1, "no transcription yet"},
      {"audio-not-riff", 1, "not a WAV, FLAC, MP3 or Ogg file"},
      {"audio-empty", 1, "input 0 is empty"},
      {"audio-truncated", 1, "truncated"},
      {"audio-no-samples", 1, "no samples"},
      {"audio-8khz", 0, ""},  // resampled, as whisper-cli does (AnyRateSampleFormatFlacAndMp3EqualNative)
      {"audio-8bit", 0, ""},
      {"audio-two-files", 1, "expected dims [1, bytes]"},
      {"metadata-unknown-key", 1, "unknown whisper option \"beam\""},
      {"metadata-wrong-type", 1, "\"translate\" must be true or false"},
      {"metadata-not-json", 1, "malformed JSON"},
      {"input-2", 1, "input index 2"},
      {"llama-beside-whisper", 0, ""},  // llama.cpp's ggml and whisper.cpp's in one process
      {"transcribe", 0, ""},
  };
  for (const auto& [name, errno_, detail] : cases) {
    EXPECT_NE(r.output.find(name + " errno " + std::to_string(errno_) + "\n"), std::string::npos)
        << name << " should give errno " << errno_ << "\n"
        << r.output;
    if (!detail.empty()) {
      EXPECT_NE(r.errors.find(detail), std::string::npos) << name << ": no '" << detail << "' in\n" << r.errors;
    }
  }
  EXPECT_NE(r.output.find("llama text: "), std::string::npos) << r.output;
  EXPECT_EQ(between(r.output, "--- transcript"), expected_text(n, true));
}

// The Rust guest built against WasmEdge's own crate, wasmedge-wasi-nn 0.8.0 (guest/rust), making
// its whisper example's calls: GraphEncoding::Whisper, build_from_cache with a config, the WAV
// file as F32 [1, bytes].
const std::string kWasmEdgeCrateGuest = std::string(WASINN_GUEST_DIR) + "/compat_wasmedge_wasi_nn_08.wasm";

// The transcript the crate guest printed as "transcript hex: ...", decoded.
std::string crate_transcript(const GuestRun& r) {
  const size_t at = r.output.find("transcript hex: ");
  if (at == std::string::npos) return "<no transcript line>";
  const std::string hex = r.output.substr(at + 16, r.output.find('\n', at) - at - 16);
  std::string text;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) text += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return text;
}

TEST(WhisperGuest, WasmEdgeCrateGuestTranscribesAsNative) {
  if (!std::filesystem::exists(kWasmEdgeCrateGuest))
    GTEST_SKIP() << "the Rust guests are not built (scripts/fetch-deps.sh rust-guest)";
  const Native n = native("speech.wav", kGreedyCli, "crate");
  const GuestRun r = run_wasinn_split({"run", "--backend-dir", WASINN_BACKEND_DIR, "--nn-preload", preload(), "--dir",
                                       (fixtures_dir() / "whisper").string() + "::/w", kWasmEdgeCrateGuest, "whisper",
                                       "default", kGreedy, "/w/speech.wav"},
                                      "crate");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_EQ(crate_transcript(r), expected_text(n, true));
}

// The same guest as WasmEdge's whisper example's README runs it: in the model's directory, with
// `--dir .:.` (WasmEdge's GUEST:HOST, both sides alike) and relative paths.
TEST(WhisperGuest, WasmEdgeCommandLineWithDirDotColonDot) {
  if (!std::filesystem::exists(kWasmEdgeCrateGuest))
    GTEST_SKIP() << "the Rust guests are not built (scripts/fetch-deps.sh rust-guest)";
  const Native n = native("speech.wav", kGreedyCli, "crate-dot");
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(fixtures_dir() / "whisper");
  const GuestRun r = run_wasinn_split(
      {"run", "--backend-dir", WASINN_BACKEND_DIR, "--dir", ".:.", "--nn-preload", "default:Whisper:AUTO:tiny-en.bin",
       kWasmEdgeCrateGuest, "whisper", "default", kGreedy, "speech.wav"},
      "crate-dot");
  std::filesystem::current_path(previous);
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_EQ(crate_transcript(r), expected_text(n, true));
}

// WIT's graph-encoding has no whisper case: a component loads with ggml or autodetect and the
// model's bytes say whisper; the named inputs are the witx slots' names.
TEST(WhisperGuest, ComponentLoadsAWhisperModelAsGgmlAndGetsTheSameTranscript) {
  const Native n = native("speech.wav", kGreedyCli, "wit");
  const std::string config_dir = scratch_dir("whisper-wit-config");
  std::ofstream(config_dir + "/greedy.json") << kGreedy;
  const auto size = static_cast<uint32_t>(std::filesystem::file_size(fixture("speech.wav")));
  for (const std::string encoding : {"ggml", "autodetect"}) {
    const WitModelRun r =
        run_wit_model("whisper-wit-" + encoding,
                      {"--dir", (fixtures_dir() / "whisper").string() + "::/w", "--dir", config_dir + "::/c"},
                      {"--model", "/w/tiny-en.bin", "--encoding", encoding, "--input",
                       wit_input("audio", "u8", {1, size}, "/w/speech.wav"), "--input",
                       wit_input("metadata", "u8", {static_cast<uint32_t>(kGreedy.size())}, "/c/greedy.json")});
    ASSERT_EQ(r.run.exit_code, 0) << encoding << ": " << r.run.output;
    ASSERT_FALSE(r.outputs.empty()) << r.run.output;
    EXPECT_EQ(r.outputs[0].name, "text");
    EXPECT_EQ(std::string(r.outputs[0].data.begin(), r.outputs[0].data.end()), expected_text(n, true)) << encoding;
  }
}

TEST(WhisperGuest, ModelsInspectShowsTheHyperParametersAndLanguages) {
  const GuestRun r =
      run_wasinn_split({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, fixture("tiny-en.bin")}, "inspect");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  for (const char* want : {"whisper", "whisper.n_vocab", "51864", "whisper.audio.n_state", "whisper.languages", "audio",
                           "metadata", "text", "srt", "beam-size"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << " in\n" << r.output;
}

}  // namespace
}  // namespace wasinn_test
