// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The piper plugin driven through its C table as the host drives it, on the random-weight voice
// piper/tiny.onnx: the WAV (and raw samples) it writes for each case of piper/reference.json
// equal, byte for byte, piper-tts's (the native tool: same voice, same text, normalize_audio off,
// as WasmEdge's plugin); for the "divergent" case, where piper-tts's espeak-ng fork phonemizes
// otherwise than upstream's, piper-tts's synthesis of upstream's phonemes (the same ids in: equal at
// the phoneme-id level); and every bad input gets its status and reason, after which the same
// context still speaks correctly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

using json = nlohmann::json;

const std::string kAllow = R"({"allow-host-paths": true})";

std::string fixture(const std::string& name) { return (fixtures_dir() / "piper" / name).string(); }

json reference() {
  const auto bytes = read_fixture("piper/reference.json");
  return json::parse(bytes.begin(), bytes.end());
}

std::vector<uint8_t> text_bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::string read_text_file(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return {bytes.begin(), bytes.end()};
}

std::string run_config(json extra = json::object()) {
  json c = {{"model", fixture("tiny.onnx")}};
  c.update(extra);
  return c.dump();
}

int load_voice(Backend& b, const std::string& config, Graph& g, Diag& d) {
  return load(b, {text_bytes(config)}, g, d, WASINN_TARGET_CPU, "", "piper");
}

int speak(wasinn_context* c, const std::string& text, Diag& d) {
  const std::vector<uint8_t> bytes = text_bytes(text);
  if (int st = set_input(api(), c, by_index(0), WASINN_TYPE_U8, {static_cast<uint32_t>(bytes.size())}, bytes, d))
    return st;
  return api().compute(c, &d);
}

std::vector<uint8_t> audio(wasinn_context* c) { return output_bytes(api(), c, by_index(0), WASINN_TYPE_U8); }

// A failed call's status and the words its detail must hold.
void expect_refused(int status, const Diag& d, int want, const std::string& words) {
  EXPECT_EQ(status, want) << d.detail;
  EXPECT_NE(d.detail.find(words), std::string::npos) << "detail: " << d.detail;
}

TEST(Piper, EachCaseEqualsPiperTtsByteForByte) {
  TestBackend b(kAllow);
  const json ref = reference();
  ASSERT_FALSE(ref.at("cases").empty());
  for (const auto& [name, c] : ref.at("cases").items()) {
    SCOPED_TRACE(name + ": " + c.at("text").get<std::string>());
    Graph plain, json_in;
    Diag d;
    const json model = {{"model", fixture(c.at("voice"))}};
    ASSERT_EQ(load_voice(b, model.dump(), plain, d), WASINN_OK) << d.detail;
    json with_json_input = model;
    with_json_input["json_input"] = true;
    ASSERT_EQ(load_voice(b, with_json_input.dump(), json_in, d), WASINN_OK) << d.detail;
    const std::vector<uint8_t> want = read_fixture("piper/" + c.at("wav").get<std::string>());
    ASSERT_GT(want.size(), 44u);
    // As text when the case has no options, and always as WasmEdge's JSON input.
    if (c.at("options").empty()) {
      TestContext ctx(plain.ptr);
      ASSERT_EQ(speak(ctx.ptr, c.at("text"), d), WASINN_OK) << d.detail;
      EXPECT_EQ(audio(ctx.ptr), want);
    }
    json input = c.at("options");
    input["text"] = c.at("text");
    TestContext ctx(json_in.ptr);
    ASSERT_EQ(speak(ctx.ptr, input.dump(), d), WASINN_OK) << d.detail;
    EXPECT_EQ(audio(ctx.ptr), want);
    input["output_type"] = "raw";  // the samples alone: the WAV's data chunk
    ASSERT_EQ(speak(ctx.ptr, input.dump(), d), WASINN_OK) << d.detail;
    EXPECT_EQ(audio(ctx.ptr), std::vector<uint8_t>(want.begin() + 44, want.end()));
  }
}

// A multi-speaker voice takes "sid": the run config's speaker_id is the default, the input's
// overrides it, and one past the voice's speakers is refused; a single-speaker voice ignores it.
TEST(Piper, SpeakerIdPicksTheSpeakerAndIsChecked) {
  TestBackend b(kAllow);
  Graph g, single;
  Diag d;
  ASSERT_EQ(
      load_voice(b, json{{"model", fixture("speakers.onnx")}, {"speaker_id", 2}, {"json_input", true}}.dump(), g, d),
      WASINN_OK)
      << d.detail;
  const std::string text = reference().at("cases").at("speaker-2").at("text");
  TestContext ctx(g.ptr);
  ASSERT_EQ(speak(ctx.ptr, json{{"text", text}}.dump(), d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-speaker-2.wav"));
  ASSERT_EQ(speak(ctx.ptr, json{{"text", text}, {"speaker_id", 0}}.dump(), d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-speaker-0.wav"));
  expect_refused(speak(ctx.ptr, json{{"text", text}, {"speaker_id", 3}}.dump(), d), d, WASINN_INVALID_ARGUMENT,
                 "not below the voice's num_speakers 3");
  Graph refused;
  expect_refused(load_voice(b, json{{"model", fixture("speakers.onnx")}, {"speaker_id", 7}}.dump(), refused, d), d,
                 WASINN_INVALID_ARGUMENT, "not below num_speakers 3");
  ASSERT_EQ(load_voice(b, run_config({{"speaker_id", 7}}), single, d), WASINN_OK) << d.detail;
  TestContext one(single.ptr);
  ASSERT_EQ(speak(one.ptr, text, d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(one.ptr), read_fixture("piper/ref-welcome.wav"));
  // A model whose inputs disagree with its config's speakers is refused at load.
  const std::string mismatched = std::filesystem::temp_directory_path() / "wasinn-piper-one-speaker.onnx.json";
  json v = json::parse(read_text_file(fixture("speakers.onnx.json")));
  v["num_speakers"] = 1;
  write_file(mismatched, text_bytes(v.dump()));
  expect_refused(load_voice(b, json{{"model", fixture("speakers.onnx")}, {"config", mismatched}}.dump(), refused, d), d,
                 WASINN_INVALID_ARGUMENT, "takes a speaker id");
}

TEST(Piper, WhereTheForkPhonemizesOtherwiseTheIdsOfUpstreamsPhonemesDecide) {
  const json c = reference().at("cases").at("divergent");
  ASSERT_NE(c.at("phonemes"), c.at("upstream_phonemes")) << "the case no longer shows a difference";
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  ASSERT_EQ(load_voice(b, run_config(), g, d), WASINN_OK) << d.detail;
  TestContext ctx(g.ptr);
  ASSERT_EQ(speak(ctx.ptr, c.at("text"), d), WASINN_OK) << d.detail;
  const std::vector<uint8_t> got = audio(ctx.ptr);
  EXPECT_EQ(got, read_fixture("piper/ref-divergent.wav"));
  EXPECT_NE(got, read_fixture("piper/ref-divergent-fork.wav"));
}

TEST(Piper, RunConfigOptionsAreTheDefaultsAndInputOverridesThem) {
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  ASSERT_EQ(load_voice(b, run_config({{"noise_scale", 0.3}, {"json_input", true}}), g, d), WASINN_OK) << d.detail;
  const json cases = reference().at("cases");
  TestContext ctx(g.ptr);
  ASSERT_EQ(speak(ctx.ptr, json{{"text", cases.at("noise").at("text")}}.dump(), d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-noise.wav"));
  ASSERT_EQ(speak(ctx.ptr, json{{"text", cases.at("welcome").at("text")}, {"noise_scale", 0.667}}.dump(), d), WASINN_OK)
      << d.detail;
  EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-welcome.wav"));
}

TEST(Piper, ARegisteredVoiceLoadsFromItsFileWithoutHostPaths) {
  TestBackend b;  // no allow-host-paths: the operator registered the voice
  LoadArgs a = model_args("piper", {read_fixture("piper/tiny.onnx")});
  a.paths = {fixture("tiny.onnx")};
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, a, g, d), WASINN_OK) << d.detail;
  TestContext ctx(g.ptr);
  ASSERT_EQ(speak(ctx.ptr, reference().at("cases").at("welcome").at("text"), d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-welcome.wav"));
  // Its load config may name no host file either.
  a.config = R"({"espeak_data": "/usr/lib/x86_64-linux-gnu/espeak-ng-data"})";
  Graph refused;
  expect_refused(load(b, a, refused, d), d, WASINN_SECURITY, "allow-host-paths");
}

TEST(Piper, BadLoadsGetAStatusAndAReason) {
  const std::string empty_dir = std::filesystem::temp_directory_path() / "wasinn-piper-empty-espeak";
  std::filesystem::create_directories(empty_dir);
  const std::string other_data = std::filesystem::temp_directory_path() / "wasinn-piper-other-espeak";
  std::filesystem::create_directories(other_data);
  write_file(other_data + "/phontab", text_bytes("not read: refused before"));
  const std::string bad_voice = std::filesystem::temp_directory_path() / "wasinn-piper-bad-voice.onnx.json";
  {
    json v = json::parse(read_text_file(fixture("tiny.onnx.json")));
    v["espeak"]["voice"] = "xx-no-such-voice";
    write_file(bad_voice, text_bytes(v.dump()));
  }
  struct Case {
    std::string backend_config, run_config;
    int status;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"", run_config(), WASINN_SECURITY, "allow-host-paths"},
      {kAllow, "{\"model\": ", WASINN_INVALID_ARGUMENT, "malformed JSON"},
      {kAllow, "[1, 2]", WASINN_INVALID_ARGUMENT, "expected a JSON object"},
      {kAllow, "{}", WASINN_INVALID_ARGUMENT, "\"model\" is required"},
      {kAllow, run_config({{"modle", "x"}}), WASINN_INVALID_ARGUMENT, "unknown piper setting \"modle\""},
      {kAllow, run_config({{"noise_scale", "loud"}}), WASINN_INVALID_ARGUMENT, "\"noise_scale\" must be a number"},
      {kAllow, run_config({{"length_scale", 0}}), WASINN_INVALID_ARGUMENT, "\"length_scale\" must be a number above 0"},
      {kAllow, run_config({{"output_type", "mp3"}}), WASINN_INVALID_ARGUMENT, "\"wav\" or \"raw\""},
      {kAllow, run_config({{"json_input", "yes"}}), WASINN_INVALID_ARGUMENT, "\"json_input\" must be true or false"},
      {kAllow, json{{"model", "/no/such/voice.onnx"}}.dump(), WASINN_NOT_FOUND, "/no/such/voice.onnx does not exist"},
      {kAllow, run_config({{"config", "/no/such.json"}}), WASINN_NOT_FOUND, "/no/such.json does not exist"},
      {kAllow, run_config({{"config", fixture("tiny.onnx")}}), WASINN_INVALID_ARGUMENT, "malformed JSON"},
      {kAllow, run_config({{"espeak_data", "/no/such/espeak-ng-data"}}), WASINN_NOT_FOUND, "is not a directory"},
      {kAllow, run_config({{"espeak_data", empty_dir}}), WASINN_NOT_FOUND, "holds no espeak-ng data"},
      // espeak-ng keeps the first data directory it started from (the plugin's own, by the loads above).
      {kAllow, run_config({{"espeak_data", other_data}}), WASINN_UNSUPPORTED_OPERATION,
       "one data directory per process"},
      {kAllow, run_config({{"config", bad_voice}}), WASINN_NOT_FOUND, "no voice \"xx-no-such-voice\""},
      {kAllow, json{{"model", fixture("tiny.onnx.json")}, {"config", fixture("tiny.onnx.json")}}.dump(),
       WASINN_INVALID_ARGUMENT, "ONNX Runtime cannot load the voice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.run_config);
    TestBackend b(c.backend_config);
    Graph g;
    Diag d;
    expect_refused(load_voice(b, c.run_config, g, d), d, c.status, c.words);
    // The same backend loads a good voice right after, and it speaks as piper-tts.
    Graph good;
    TestBackend allowed(kAllow);
    ASSERT_EQ(load_voice(allowed, run_config(), good, d), WASINN_OK) << d.detail;
    TestContext ctx(good.ptr);
    ASSERT_EQ(speak(ctx.ptr, reference().at("cases").at("welcome").at("text"), d), WASINN_OK) << d.detail;
    EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-welcome.wav"));
  }
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  LoadArgs gpu = model_args("piper", {text_bytes(run_config())});
  gpu.target = WASINN_TARGET_GPU;
  expect_refused(load(b, gpu, g, d), d, WASINN_UNSUPPORTED_OPERATION, "CPU provider only");
}

TEST(Piper, BadInputsGetAStatusAndAReasonThenTheContextStillSpeaks) {
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  ASSERT_EQ(load_voice(b, run_config({{"json_input", true}}), g, d), WASINN_OK) << d.detail;
  TestContext ctx(g.ptr);
  const std::string welcome = reference().at("cases").at("welcome").at("text");
  const std::string good = json{{"text", welcome}}.dump();
  wasinn_tensor out{};
  const wasinn_tensor_id out0 = by_index(0), out3 = by_index(3);
  expect_refused(api().compute(ctx.ptr, &d), d, WASINN_INVALID_ARGUMENT, "no text");
  expect_refused(api().get_output(ctx.ptr, &out0, &out, &d), d, WASINN_INVALID_ARGUMENT, "call compute first");
  struct Case {
    std::string input;
    int status;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"{\"text\": ", WASINN_INVALID_ARGUMENT, "malformed JSON"},
      {"\"just a string\"", WASINN_INVALID_ARGUMENT, "expected a JSON object"},
      {"{}", WASINN_INVALID_ARGUMENT, "\"text\" is required"},
      {json{{"text", welcome}, {"voice", "x"}}.dump(), WASINN_INVALID_ARGUMENT, "unknown key \"voice\""},
      {json{{"text", 5}}.dump(), WASINN_INVALID_ARGUMENT, "\"text\" must be a string"},
      {json{{"text", welcome}, {"speaker_id", -1}}.dump(), WASINN_INVALID_ARGUMENT, "non-negative integer"},
      {json{{"text", welcome}, {"noise_w", 1e9}}.dump(), WASINN_INVALID_ARGUMENT, "from 0 to 1000"},
      {std::string("{\"text\": \"caf\xC3\x28\"}"), WASINN_INVALID_ARGUMENT, "malformed JSON"},
      {json{{"text", std::string(70000, 'a')}}.dump(), WASINN_TOO_LARGE, "split the text"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.substr(0, 80));
    const std::vector<uint8_t> bytes = text_bytes(c.input);
    expect_refused(
        set_input(api(), ctx.ptr, by_index(0), WASINN_TYPE_U8, {static_cast<uint32_t>(bytes.size())}, bytes, d), d,
        c.status, c.words);
    ASSERT_EQ(speak(ctx.ptr, good, d), WASINN_OK) << d.detail;
    EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-welcome.wav"));
  }
  const std::vector<uint8_t> bytes = text_bytes(good);
  expect_refused(
      set_input(api(), ctx.ptr, by_index(1), WASINN_TYPE_U8, {static_cast<uint32_t>(bytes.size())}, bytes, d), d,
      WASINN_INVALID_ARGUMENT, "out of range");
  expect_refused(
      set_input(api(), ctx.ptr, by_index(0), WASINN_TYPE_U8, {2, static_cast<uint32_t>(bytes.size()) / 2}, bytes, d), d,
      WASINN_INVALID_ARGUMENT, "expected dims [bytes]");
  expect_refused(api().get_output(ctx.ptr, &out3, &out, &d), d, WASINN_INVALID_ARGUMENT, "out of range");
  ASSERT_EQ(speak(ctx.ptr, good, d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(ctx.ptr), read_fixture("piper/ref-welcome.wav"));
}

// espeak-ng is one global state per process: contexts on several threads, on graphs loaded with
// and without espeak_data (the plugin's own data, spelled through a link), each get piper-tts's WAV.
TEST(Piper, ThreadsAndDataDirectoriesDoNotMixUp) {
  TestBackend b(kAllow);
  Graph own, explicit_dir;
  Diag d;
  ASSERT_EQ(load_voice(b, run_config(), own, d), WASINN_OK) << d.detail;
  const std::filesystem::path data = std::filesystem::temp_directory_path() / "wasinn-piper-espeak-link";
  std::filesystem::remove(data);
  std::filesystem::create_directory_symlink(std::string(WASINN_BACKEND_DIR) + "/piper-espeak-ng-data", data);
  ASSERT_EQ(load_voice(b, run_config({{"espeak_data", data.string()}}), explicit_dir, d), WASINN_OK) << d.detail;
  const json cases = reference().at("cases");
  std::vector<std::thread> threads;
  std::vector<std::string> failures(8);
  for (size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([&, t] {
      const json& c = cases.at(t % 2 ? "welcome" : "sentences");
      const std::vector<uint8_t> want = read_fixture("piper/" + c.at("wav").get<std::string>());
      TestContext ctx((t / 2) % 2 ? explicit_dir.ptr : own.ptr);
      Diag td;
      for (int round = 0; round < 5 && failures[t].empty(); ++round) {
        if (speak(ctx.ptr, c.at("text"), td) != WASINN_OK)
          failures[t] = td.detail;
        else if (audio(ctx.ptr) != want)
          failures[t] = "a WAV differs from piper-tts's";
      }
    });
  }
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < failures.size(); ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// The host's compute deadline: cancel from another thread stops a long compute with TIMEOUT, and
// the context speaks correctly after.
TEST(Piper, CancelStopsALongComputeAndTheContextSpeaksAfter) {
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  ASSERT_EQ(load_voice(b, json{{"model", fixture("bench.onnx")}}.dump(), g, d), WASINN_OK) << d.detail;
  TestContext ctx(g.ptr);
  std::string text;
  while (text.size() < 60000) text += "Each sentence here is spoken by a voice of random weights. ";
  const std::vector<uint8_t> bytes = text_bytes(text);
  ASSERT_EQ(set_input(api(), ctx.ptr, by_index(0), WASINN_TYPE_U8, {static_cast<uint32_t>(bytes.size())}, bytes, d),
            WASINN_OK)
      << d.detail;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    api().cancel(ctx.ptr);
  });
  const auto start = std::chrono::steady_clock::now();
  const int st = api().compute(ctx.ptr, &d);
  const auto took = std::chrono::steady_clock::now() - start;
  canceller.join();
  expect_refused(st, d, WASINN_TIMEOUT, "cancelled");
  EXPECT_LT(took, std::chrono::seconds(5)) << "the whole text would take far longer";
  Graph tiny;
  ASSERT_EQ(load_voice(b, run_config(), tiny, d), WASINN_OK) << d.detail;
  TestContext again(tiny.ptr);
  ASSERT_EQ(speak(again.ptr, reference().at("cases").at("welcome").at("text"), d), WASINN_OK) << d.detail;
  EXPECT_EQ(audio(again.ptr), read_fixture("piper/ref-welcome.wav"));
  ASSERT_EQ(speak(ctx.ptr, "Short.", d), WASINN_OK) << d.detail;  // the cancelled context too
}

std::string utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6)), s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (c >> 12)), s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

// A letter of a script other than the voice's makes espeak-ng switch language for it. Debian 12's
// 1.51 then freed the translator it was reading when the other language had no name for the
// letter (U+0DD5, a gap in the Sinhala block: tests/fuzz/regressions/README.md); the plugin's
// 1.52 does not. Under ASan this reads every 7th character of the BMP, in words of 8.
TEST(Piper, TextInEveryScriptIsPhonemized) {
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  ASSERT_EQ(load_voice(b, run_config(), g, d), WASINN_OK) << d.detail;
  TestContext ctx(g.ptr);
  for (const std::string& text :
       {utf8(0x0DD5), "y\"tec\"=e" + utf8(0x0DD5), "Sinhala " + utf8(0x0D85) + utf8(0x0DD5)}) {
    ASSERT_EQ(speak(ctx.ptr, text, d), WASINN_OK) << d.detail;
    EXPECT_GE(audio(ctx.ptr).size(), 44u);
  }
  std::string text;
  int in_word = 0;
  for (char32_t c = 0xA0; c < 0xFFF0; c += 7) {
    if (c >= 0xD800 && c < 0xE000) continue;  // surrogates are not text
    text += utf8(c);
    if (++in_word == 8) text += ' ', in_word = 0;
    if (text.size() > 600 || c + 7 >= 0xFFF0) {
      ASSERT_EQ(speak(ctx.ptr, text, d), WASINN_OK)
          << "at U+" << std::hex << static_cast<uint32_t>(c) << ": " << d.detail;
      text.clear();
    }
  }
}

TEST(Piper, PlainTextThatIsNotUtf8IsRefused) {
  TestBackend b(kAllow);
  Graph g;
  Diag d;
  ASSERT_EQ(load_voice(b, run_config(), g, d), WASINN_OK) << d.detail;
  TestContext ctx(g.ptr);
  expect_refused(speak(ctx.ptr, "caf\xC3\x28", d), d, WASINN_INVALID_ARGUMENT, "not UTF-8");
  // Empty text is no error: a WAV with no samples, as WasmEdge's plugin writes.
  ASSERT_EQ(speak(ctx.ptr, "", d), WASINN_OK) << d.detail;
  const std::vector<uint8_t> empty = audio(ctx.ptr);
  ASSERT_EQ(empty.size(), 44u);
  EXPECT_EQ(std::string(empty.begin(), empty.begin() + 4), "RIFF");
}

}  // namespace
}  // namespace wasinn_test
