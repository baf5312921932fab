// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasm guests on the piper backend, run by the wasinn command as a user runs them, against
// piper-tts's WAVs (the native tool, scripts/fixtures/export_piper.py) on the same random-weight
// voice: WasmEdge's Piper example as a C guest with every bad input in between (errno, the
// host's reason, then the same guest speaks), a registered voice, and a WIT component reaching
// the voice through wasi:nn's autodetect.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "guest_runner.h"
#include "plugin_harness.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

const std::string kAllow = R"(piper={"allow-host-paths":true})";
const std::string kWelcome = "Welcome to the world of speech synthesis!";

std::string fixture(const std::string& name) { return (fixtures_dir() / "piper" / name).string(); }

TEST(PiperGuest, WasmEdgeExampleSpeaksAsPiperTtsAndEveryBadInputIsAnErrnoWithAReason) {
  const std::string out = scratch_dir("piper-guest");
  const GuestRun r =
      // -vv: every refused call's line (the default level warns of each kind once, then by count).
      run_wasinn_split(
          {"run", "-vv", "--backend-dir", WASINN_BACKEND_DIR, "--backend-config", kAllow, "--dir", out + "::/out",
           std::string(WASINN_GUEST_DIR) + "/piper_tts.wasm", fixture("tiny.onnx"), "/out"},
          "piper-guest");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_NE(r.output.find("done\n"), std::string::npos) << r.output;
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"load-malformed-json", 1, "malformed JSON"},
      {"load-unknown-key", 1, "unknown piper setting \"modle\""},
      {"load-missing-espeak-data", 8, "/no/such/espeak-ng-data is not a directory"},
      {"load-missing-voice", 8, "/no/such/voice.onnx does not exist"},
      {"load-chattts", 2, "ChatTTS, which wasinn does not serve"},
      {"load-chattts-no-builders", 2, "ChatTTS, which wasinn does not serve"},
      {"load-as-onnx", 2, "load them with encoding piper"},
      {"compute-without-text", 1, "no text"},
      {"output-before-compute", 1, "call compute first"},
      {"text-too-long", 7, "split the text"},
      {"text-not-utf8", 1, "not UTF-8"},
      {"input-1", 1, "input index 1 is out of range"},
      {"output-64-bytes", 7, ""},
      {"json-malformed", 1, "malformed JSON"},
      {"json-no-text", 1, "\"text\" is required"},
      {"json-unknown-key", 1, "unknown key \"volume\""},
  };
  for (const auto& [name, errno_, detail] : cases) {
    EXPECT_NE(r.output.find(name + " errno " + std::to_string(errno_) + "\n"), std::string::npos)
        << name << " should give errno " << errno_ << "\n"
        << r.output;
    if (!detail.empty()) {
      EXPECT_NE(r.errors.find(detail), std::string::npos) << name << ": no '" << detail << "' in\n" << r.errors;
    }
  }
  const std::vector<uint8_t> welcome = read_fixture("piper/ref-welcome.wav");
  EXPECT_EQ(read_file(out + "/welcome.wav"), welcome);
  EXPECT_EQ(read_file(out + "/welcome-after.wav"), welcome);
  EXPECT_EQ(read_file(out + "/noise.wav"), read_fixture("piper/ref-noise.wav"));
}

TEST(PiperGuest, WithoutTheOperatorsConsentAGuestNamesNoHostFile) {
  const std::string out = scratch_dir("piper-guest-refused");
  const GuestRun r = run_wasinn_split({"run", "--backend-dir", WASINN_BACKEND_DIR, "--dir", out + "::/out",
                                       std::string(WASINN_GUEST_DIR) + "/piper_tts.wasm", fixture("tiny.onnx"), "/out"},
                                      "piper-guest-refused");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("load-example errno 6"), std::string::npos) << r.output;
  EXPECT_NE(r.errors.find("allow-host-paths"), std::string::npos) << r.errors;
}

// The Rust guest built against WasmEdge's own crate, wasmedge-wasi-nn 0.8.0 (guest/rust), making
// its piper example's calls: GraphEncoding::Piper, build_from_bytes with the run config, the
// text as U8 [len], get_output(0) into a 1 MiB buffer.
TEST(PiperGuest, WasmEdgeCrateGuestSpeaksAsPiperTts) {
  const std::string guest = std::string(WASINN_GUEST_DIR) + "/compat_wasmedge_wasi_nn_08.wasm";
  if (!std::filesystem::exists(guest)) GTEST_SKIP() << guest << " not built (scripts/deps/rust-guest.sh)";
  const std::string out = scratch_dir("piper-crate");
  const GuestRun r = run_wasinn_split(
      {"run", "--backend-dir", WASINN_BACKEND_DIR, "--backend-config", kAllow, "--dir", out + "::/out", guest, "piper",
       R"({"model": ")" + fixture("tiny.onnx") + R"("})", kWelcome, "/out/welcome.wav"},
      "piper-crate");
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_NE(r.output.find("library: wasmedge-wasi-nn 0.8.0"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(out + "/welcome.wav"), read_fixture("piper/ref-welcome.wav"));
}

// wit_run_model loads the run config's bytes with autodetect: the host tells it is a Piper run
// config (a JSON object naming a .onnx "model") and the piper backend speaks it.
TEST(PiperGuest, ComponentReachesTheVoiceThroughWasiNnAutodetect) {
  const std::string dir = scratch_dir("piper-wit-in");
  std::ofstream(dir + "/run.json") << R"({"model": ")" << fixture("tiny.onnx") << R"("})";
  std::ofstream(dir + "/text.txt") << kWelcome;
  const WitModelRun r =
      run_wit_model("piper-wit", {"--backend-config", kAllow, "--dir", dir + "::/in"},
                    {"--model", "/in/run.json", "--encoding", "autodetect", "--input",
                     wit_input("text", "u8", {static_cast<uint32_t>(kWelcome.size())}, "/in/text.txt")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  ASSERT_EQ(r.outputs.size(), 1u) << r.run.output;
  EXPECT_EQ(r.outputs[0].name, "audio");
  EXPECT_EQ(r.outputs[0].data, read_fixture("piper/ref-welcome.wav"));
}

// --nn-preload NAME:piper:CPU:VOICE.onnx registers a voice (its .onnx.json beside it) that a
// guest loads by name, with no host path in its hands.
TEST(PiperGuest, ARegisteredVoiceLoadsByName) {
  const std::string dir = scratch_dir("piper-named-in");
  std::ofstream(dir + "/text.txt") << kWelcome;
  const WitModelRun r =
      run_wit_model("piper-named", {"--nn-preload", "voice:piper:CPU:" + fixture("tiny.onnx"), "--dir", dir + "::/in"},
                    {"--name", "voice", "--input",
                     wit_input("text", "u8", {static_cast<uint32_t>(kWelcome.size())}, "/in/text.txt")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  ASSERT_EQ(r.outputs.size(), 1u) << r.run.output;
  EXPECT_EQ(r.outputs[0].data, read_fixture("piper/ref-welcome.wav"));
}

}  // namespace
}  // namespace wasinn_test
