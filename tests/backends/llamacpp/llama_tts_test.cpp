// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text to speech as WasmEdge's GGML plugin does it ("tts": OuteTTS 0.2 and a WavTokenizer
// vocoder), on the tiny random models of scripts/fixtures/export_outetts.py: WasmEdge's tts example
// rebuilt on its crates (guest/rust/wasmedge-ggml-tts) on the wasinn command, and the plugin's C
// table, must write the WAV native llama.cpp makes: the OuteTTS prompt's pieces tokenized apart,
// greedy codes, the decoder's spectra from llama_encode, and the transform written out plainly
// below in double precision. Bad input is an error with a reason, then the same context speaks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "guest_runner.h"
#include "llama_native.h"
#include "plugin_harness.h"
#include "probe_run.h"
#include "support/stream_bytes.h"
#ifdef WASINN_HAVE_WIT_RUN_MODEL
#include "wit_guest.h"
#endif

namespace wasinn_test {
namespace {

using json = nlohmann::json;

constexpr int kPredict = 48;
constexpr int32_t kFirstCode = 151672, kLastCode = 155772;
const std::string kText = "Hello, world 42.";
// kText as OuteTTS takes it: lowercase words, the number in words, <|text_sep|> between.
const std::string kWords = "hello<|text_sep|>world<|text_sep|>forty<|text_sep|>two";

std::string outetts(const std::string& name) { return (fixtures_dir() / "outetts" / name).string(); }
std::string default_speaker_file() { return std::string(WASINN_DEPS_DIR) + "/outetts/speakers/en_female_1.json"; }

struct Speaker {
  std::string text, data;
};

// An OuteTTS speaker profile as the prompt's two pieces.
Speaker speaker_from(const std::string& path, bool last_newline = true) {
  std::ifstream in(path);
  const json doc = json::parse(in);
  Speaker s{"<|text_start|>", "<|audio_start|>\n"};
  for (const json& w : doc["words"]) {
    char t[32];
    std::snprintf(t, sizeof t, "%.2f", w["duration"].get<double>());
    s.text += w["word"].get<std::string>() + "<|text_sep|>";
    s.data += w["word"].get<std::string>() + "<|t_" + t + "|><|code_start|>";
    for (const json& c : w["codes"]) s.data += "<|" + std::to_string(c.get<int>()) + "|>";
    s.data += "<|code_end|>\n";
  }
  if (!last_newline) s.data.pop_back();  // WasmEdge's built-in copy of en_female_1
  return s;
}

struct NativeSpeech {
  size_t n_prompt = 0;
  std::vector<uint8_t> wav;
};

// Native llama.cpp and the spectra-to-waveform arithmetic of WasmEdge's (and llama.cpp's former)
// OuteTTS code, each sum written out.
NativeSpeech native_speech(const std::string& words, const Speaker& speaker, int n_predict = kPredict) {
  const std::string model = outetts("tiny.gguf");
  const std::string pieces[] = {"<|im_start|>\n", speaker.text, words, "<|text_end|>\n", speaker.data};
  std::vector<int32_t> prompt;
  for (size_t i = 0; i < std::size(pieces); ++i) {
    const auto t = native_tokenize(model, pieces[i], i == 0);
    prompt.insert(prompt.end(), t.begin(), t.end());
  }
  NativeSettings s;
  s.n_ctx = s.n_batch = 2048;
  s.n_predict = n_predict;
  const NativeRun run = native_generate(model, prompt, s);
  std::vector<int32_t> codes;
  for (int32_t t : run.tokens)
    if (t >= kFirstCode && t <= kLastCode) codes.push_back(t - kFirstCode);
  EXPECT_EQ(codes.size(), run.tokens.size()) << "the fixture's head scores only codes";
  const std::vector<float> spectra = native_spectra(outetts("wavtokenizer.gguf"), codes);
  const size_t n = codes.size(), n_out = n * 320;
  std::vector<double> sum(n_out), env(n_out);
  for (size_t l = 0; l < n; ++l) {
    const float* x = spectra.data() + l * 1282;
    for (size_t j = 0; j < 1280; ++j) {
      const long at = static_cast<long>(l * 320 + j) - 480;
      if (at < 0 || at >= static_cast<long>(n_out)) continue;
      double v = 0;
      for (size_t k = 0; k < 641; ++k) {
        v += std::min(std::exp(double(x[k])), 100.0) * std::cos(2 * M_PI * double(j * k) / 1280 + x[641 + k]);
      }
      const double hann = 0.5 * (1 - std::cos(2 * M_PI * double(j) / 1280));
      sum[at] += v / 641 * hann;
      env[at] += hann * hann;
    }
  }
  NativeSpeech out;
  out.n_prompt = prompt.size();
  auto put = [&](uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.wav.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto tag = [&](const char* t) { out.wav.insert(out.wav.end(), t, t + 4); };
  tag("RIFF"), put(36 + 2 * n_out, 4), tag("WAVE"), tag("fmt "), put(16, 4), put(1, 2), put(1, 2);
  put(24000, 4), put(48000, 4), put(2, 2), put(16, 2), tag("data"), put(2 * n_out, 4);
  for (size_t i = 0; i < n_out; ++i) {
    const double sample = i < 6000 ? 0.0 : static_cast<float>(sum[i] / env[i]);
    put(static_cast<uint16_t>(static_cast<int16_t>(std::clamp(sample * 32767.0, -32768.0, 32767.0))), 2);
  }
  return out;
}

const NativeSpeech& native_with_speaker_file() {
  static const NativeSpeech s = native_speech(kWords, speaker_from(outetts("speaker.json")));
  return s;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return stream_bytes(in);
}

// ---- WasmEdge's tts example on the wasinn command ----

const std::string kTtsGuest = "compat_wasmedge_ggml_tts";

class TtsGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(std::string(WASINN_GUEST_DIR) + "/" + kTtsGuest + ".wasm"))
      GTEST_SKIP() << "the Rust guests are not built (scripts/fetch-deps.sh rust-guest)";
    dir_ = scratch_dir("llama_tts_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  }
  // The example's command line (its README's), greedy through its own "temp" and "n_predict"; the
  // guest's working directory, where it writes output-buffer.wav, is dir_.
  // `wasm`: a .wasm path, else the rebuilt example in WASINN_GUEST_DIR.
  GuestRun run(std::vector<std::string> env, const std::string& model = outetts("tiny.gguf"), bool allow = true,
               const std::string& wasm = "") {
    std::vector<std::string> host = {"--dir", dir_ + "::.", "--nn-preload", "default:GGML:AUTO:" + model};
    for (const std::string& e :
         std::vector<std::string>{"temp=0", "n_predict=" + std::to_string(kPredict), "n_gpu_layers=0", "ctx_size=2048",
                                  "batch_size=2048", "ubatch_size=512", "threads=1"})
      env.push_back(e);
    for (const auto& e : env) host.insert(host.end(), {"--env", e});
    if (allow) host.insert(host.end(), {"--backend-config", R"(llamacpp={"allow-preload-paths":true})"});
    if (wasm.empty()) return run_guest(host, kTtsGuest, {"default", kText});
    std::vector<std::string> args = {"run", "--backend-dir", WASINN_BACKEND_DIR};
    args.insert(args.end(), host.begin(), host.end());
    args.insert(args.end(), {wasm, "default", kText});
    return run_wasinn(args, "wasmedge_ggml_tts_prebuilt");
  }
  std::string dir_;
};

TEST_F(TtsGuest, SpeakerFileWavEqualsNativeInTheFileAndTheOutputTensor) {
  const GuestRun r = run({"tts_output_file=" + dir_ + "/output.wav", "model_vocoder=" + outetts("wavtokenizer.gguf"),
                          "tts_speaker_file=" + outetts("speaker.json")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NativeSpeech& native = native_with_speaker_file();
  EXPECT_NE(r.output.find("[INFO] Number of input tokens: " + std::to_string(native.n_prompt) + "\n"),
            std::string::npos)
      << r.output;
  const auto file = file_bytes(dir_ + "/output.wav"), tensor = file_bytes(dir_ + "/output-buffer.wav");
  EXPECT_EQ(file.size(), 44u + 2 * 320 * kPredict);
  EXPECT_TRUE(file == native.wav) << "the WAV file differs from native llama.cpp's";
  EXPECT_TRUE(tensor == native.wav) << "output 0 differs from native llama.cpp's";
}

TEST_F(TtsGuest, DefaultSpeakerIsOuteTtsEnFemale1AsWasmEdges) {
  const GuestRun r = run({"tts_output_file=" + dir_ + "/output.wav", "model_vocoder=" + outetts("wavtokenizer.gguf")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NativeSpeech native = native_speech(kWords, speaker_from(default_speaker_file(), /*last_newline=*/false));
  EXPECT_NE(r.output.find("[INFO] Number of input tokens: " + std::to_string(native.n_prompt) + "\n"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(file_bytes(dir_ + "/output-buffer.wav") == native.wav) << "output 0 differs from native llama.cpp's";
}

// WasmEdge's own wasmedge-ggml-tts.wasm, which cannot be fetched here and is not ours to commit:
// WASINN_WASMEDGE_EXAMPLES names a checkout of WasmEdge-WASINN-examples (as for the vision guests).
// It reads no "threads"; the answer does not depend on it.
TEST_F(TtsGuest, WasmEdgesOwnPrebuiltBinaryWritesTheNativeWav) {
  const char* examples = std::getenv("WASINN_WASMEDGE_EXAMPLES");
  if (!examples || !*examples)
    GTEST_SKIP() << "WASINN_WASMEDGE_EXAMPLES (a WasmEdge-WASINN-examples checkout) is not set";
  const std::string wasm = std::string(examples) + "/wasmedge-ggml/tts/wasmedge-ggml-tts.wasm";
  ASSERT_TRUE(std::filesystem::exists(wasm)) << wasm;
  const GuestRun r = run({"tts_output_file=" + dir_ + "/output.wav", "model_vocoder=" + outetts("wavtokenizer.gguf"),
                          "tts_speaker_file=" + outetts("speaker.json")},
                         outetts("tiny.gguf"), true, wasm);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(file_bytes(dir_ + "/output.wav") == native_with_speaker_file().wav);
  EXPECT_TRUE(file_bytes(dir_ + "/output-buffer.wav") == native_with_speaker_file().wav);
}

TEST_F(TtsGuest, BadInputIsAnErrorWithItsReason) {
  const std::string out = "tts_output_file=" + dir_ + "/output.wav";
  const std::string vocoder = "model_vocoder=" + outetts("wavtokenizer.gguf");
  struct Case {
    std::vector<std::string> env;
    std::string model;
    bool allow;
    std::string reason;
  };
  std::ofstream(dir_ + "/bad-speaker.json") << R"({"words": [{"word": "hi", "duration": 0.2, "codes": [5000]}]})";
  const Case cases[] = {
      {{out, vocoder}, outetts("tiny.gguf"), false, "allow-preload-paths"},
      {{out, "model_vocoder=" + dir_ + "/no-such.gguf"}, outetts("tiny.gguf"), true, "no-such.gguf' does not exist"},
      {{out, "model_vocoder=" + tiny_model()}, outetts("tiny.gguf"), true, "not a WavTokenizer decoder"},
      {{out, vocoder}, tiny_model(), true, "is not an OuteTTS model"},
      {{out, vocoder, "tts_speaker_file=" + dir_ + "/bad-speaker.json"},
       outetts("tiny.gguf"),
       true,
       "codes holds 5000, not an integer from 0 to 4099"},
      {{"tts_output_file=" + dir_ + "/no-dir/out.wav", vocoder}, outetts("tiny.gguf"), true, "no directory"},
  };
  for (const Case& c : cases) {
    const GuestRun r = run(c.env, c.model, c.allow);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Failed to build graph"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.reason), std::string::npos) << c.reason << "\n" << r.output;
  }
}

// The load config of the plugin-table and WIT tests: the fixtures, greedy, kPredict codes.
json tts_config() {
  return {{"tts", true},
          {"model-vocoder", outetts("wavtokenizer.gguf")},
          {"tts-speaker-file", outetts("speaker.json")},
          {"temp", 0},
          {"n-predict", kPredict},
          {"ctx-size", 2048},
          {"batch-size", 2048},
          {"threads", 1}};
}

// ---- the plugin's C table: one context through errors ----

const wasinn_backend_api& llama() { return plugin_api("llamacpp"); }

TEST(LlamaTts, OneContextSpeaksAfterEachRefusalAndAgainTheSame) {
  Backend backend(llama(), R"({"allow-preload-paths": true})");
  LoadArgs args = model_args("ggml", {read_file(outetts("tiny.gguf"))});
  args.paths = {outetts("tiny.gguf")};
  args.config = tts_config().dump();
  Graph graph;
  Diag d;
  ASSERT_EQ(load(backend, args, graph, d), WASINN_OK) << d.detail;
  Context ctx(llama(), graph.ptr);
  auto set = [&](uint32_t slot, const std::string& text) {
    d.detail.clear();
    return set_input(llama(), ctx.ptr, by_index(slot), WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())},
                     std::vector<uint8_t>(text.begin(), text.end()), d);
  };
  EXPECT_EQ(llama().compute(ctx.ptr, &d), WASINN_INVALID_ARGUMENT) << "no prompt yet";
  EXPECT_EQ(set(1, R"({"tts": false})"), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("\"tts\" applies when the model is loaded"), std::string::npos) << d.detail;
  EXPECT_EQ(set(2, R"([{"role": "user", "content": "hi"}])"), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_NE(d.detail.find("speaks the text of input 0"), std::string::npos) << d.detail;
  // No words (empty, or only spaces and punctuation): an error, not the speaker prompt spoken.
  for (const std::string empty : {"", " ", " .,- "}) {
    const int set_status = set(0, empty);
    const int status = set_status != WASINN_OK ? set_status : llama().compute(ctx.ptr, &d);
    EXPECT_EQ(status, WASINN_INVALID_ARGUMENT) << "'" << empty << "'";
    EXPECT_NE(d.detail.find("no words to speak"), std::string::npos) << d.detail;
  }
  ASSERT_EQ(set(0, kText), WASINN_OK) << d.detail;
  EXPECT_EQ(llama().compute_single(ctx.ptr, &d), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_NE(d.detail.find("makes its WAV with compute"), std::string::npos) << d.detail;
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(llama().compute(ctx.ptr, &d), WASINN_OK) << d.detail;
    EXPECT_TRUE(output_bytes(llama(), ctx.ptr, by_index(0), WASINN_TYPE_U8) == native_with_speaker_file().wav)
        << "round " << round;
    const auto meta = output_bytes(llama(), ctx.ptr, by_index(1), WASINN_TYPE_U8);
    EXPECT_EQ(metadata_field(std::string(meta.begin(), meta.end()), "output_tokens"), kPredict);
  }
}

TEST(LlamaTts, KeysThatNeedTtsAndTtsWithoutAVocoderAreRefusedAtLoad) {
  Backend backend(llama(), R"({"allow-preload-paths": true})");
  const std::pair<json, std::string> cases[] = {
      {{{"tts", true}}, "needs \"model-vocoder\""},
      {{{"model-vocoder", outetts("wavtokenizer.gguf")}}, "set \"tts\": true"},
      {{{"tts", true}, {"model-vocoder", outetts("wavtokenizer.gguf")}, {"embedding", true}}, "exclude each other"},
      {{{"tts", true}, {"hf-repo-vocoder", "x/y"}}, "downloads nothing"},
  };
  for (const auto& [config, reason] : cases) {
    LoadArgs args = model_args("ggml", {read_file(outetts("tiny.gguf"))});
    args.paths = {outetts("tiny.gguf")};
    args.config = config.dump();
    Graph graph;
    Diag d;
    EXPECT_NE(load(backend, args, graph, d), WASINN_OK) << config.dump();
    EXPECT_NE(d.detail.find(reason), std::string::npos) << reason << ": " << d.detail;
  }
}

// ---- a WIT component (wasi:nn): the text as the tensor "prompt", the WAV as the tensor "text" ----

#ifdef WASINN_HAVE_WIT_RUN_MODEL
TEST(LlamaTtsWit, PromptTensorSpeaksTheNativeWav) {
  const std::string in = scratch_dir("llama_tts_wit_in");
  const std::string config = tts_config().dump();
  write_file(in + "/config.json", std::vector<uint8_t>(config.begin(), config.end()));
  write_file(in + "/text.txt", std::vector<uint8_t>(kText.begin(), kText.end()));
  const std::vector<std::string> host = {"--nn-preload",
                                         "tts:GGML:AUTO:" + outetts("tiny.gguf") + ":" + in + "/config.json",
                                         "--dir",
                                         in + "::/in",
                                         "--log-level",
                                         "error",
                                         "--backend-config",
                                         R"(llamacpp={"allow-preload-paths":true})"};
  const WitModelRun r = run_wit_model(
      "llama_tts_wit", host,
      {"--name", "tts", "--input", wit_input("prompt", "u8", {static_cast<uint32_t>(kText.size())}, "/in/text.txt")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  ASSERT_FALSE(r.outputs.empty()) << r.run.output;
  EXPECT_EQ(r.outputs[0].name, "text");
  EXPECT_TRUE(r.outputs[0].data == native_with_speaker_file().wav) << "the WAV differs from native llama.cpp's";
}
#endif

}  // namespace
}  // namespace wasinn_test
