// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Models that crash their framework's load (scripts/fixtures/export_malformed.py): with load
// isolation (the default, --isolate-loads=auto) the host refuses each with invalid_argument and
// a detail naming the signal, stays up and serves a valid request on a real model next; with
// --isolate-loads=never the same model does crash a `wasinn` child, so the fixtures are real
// crashers. The test process itself is the host of the first kind (the embedding API).
#include <gtest/gtest.h>

#include <signal.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_env.h"
#include "wasinn/host.h"

namespace wasinn_it {
namespace {

struct Crasher {
  const char* test_name;
  const char* backend;   // plugin that must be built
  const char* encoding;  // in the --nn-preload spec
  const char* fixture;
  int signal;  // what the framework dies of without isolation
  const char* signal_name;
  // Or this: a wild pointer's fault is SIGBUS or SIGSEGV depending on where the heap lies that run
  // (LiteRT's "bus" model gave each about half the time in one build). 0: none.
  int other_signal = 0;
  const char* other_signal_name = nullptr;
};

const Crasher kCrashers[] = {
    {"LiteRtSegv", "tensorflowlite", "tensorflowlite", "malformed/tflite_crash_segv.tflite", SIGSEGV, "SIGSEGV"},
    {"LiteRtBus", "tensorflowlite", "tensorflowlite", "malformed/tflite_crash_bus.tflite", SIGBUS, "SIGBUS", SIGSEGV,
     "SIGSEGV"},
    {"TorchScriptBuffer", "pytorch", "pytorch", "malformed/torchscript_buffer.pt", SIGSEGV, "SIGSEGV"},
};

bool backend_built(const std::string& name) {
  return fs::exists(backend_dir() / (name + ".json")) &&
         fs::exists(backend_dir() / ("libwasinn_backend_" + name + ".so"));
}

double accuracy(const std::vector<float>& logits, const std::vector<uint8_t>& labels) {
  size_t right = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    size_t best = 0;
    for (size_t c = 1; c < 10; ++c) {
      if (logits[i * 10 + c] > logits[i * 10 + best]) best = c;
    }
    right += best == labels[i];
  }
  return labels.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(labels.size());
}

// The held-out digits (450 x 64) through a registered digits model, by a real guest; the
// logits must classify them (and match TFLite's reference when it is the TFLite model).
void expect_digits_served(wasinn::Host& host, const std::string& name, const ScratchDir& out,
                          const fs::path& expected = {}) {
  wasinn::Program p;
  p.wasm_path = guest("run_model");
  p.args = {"--name", name, "--input", "0:f32:450x64:/d/test_x.f32", "--output", "0:/o/" + name + ".f32"};
  // Canonical: WASI refuses a preopened path that leaves its directory through a symlink.
  p.dirs = {{fs::canonical(fixture("digits/test_x.f32")).parent_path().string(), "/d"}, {out.path().string(), "/o"}};
  const auto run = host.run(p);
  ASSERT_EQ(run.exit_code, 0) << name << ": " << run.message;
  const auto logits = read_array<float>(out / (name + ".f32"));
  const auto labels = read_bytes(fixture("digits/test_y.u8"));
  ASSERT_EQ(logits.size(), labels.size() * 10) << name;
  EXPECT_GE(accuracy(logits, labels), 0.95) << name;
  if (!expected.empty()) {
    const auto want = read_array<float>(expected);
    ASSERT_EQ(want.size(), logits.size());
    double diff = 0;
    for (size_t i = 0; i < want.size(); ++i) diff = std::max(diff, std::abs(double(want[i]) - double(logits[i])));
    EXPECT_LT(diff, 1e-4) << name << " vs TensorFlow's tf.lite.Interpreter";
  }
}

class Isolation : public ::testing::TestWithParam<Crasher> {
 protected:
  void SetUp() override {
    if (!backend_built(GetParam().backend)) GTEST_SKIP() << GetParam().backend << " plugin not built";
  }
  std::string bad_spec() const {
    return std::string("bad:") + GetParam().encoding + ":cpu:" + fixture(GetParam().fixture).string();
  }
  // The detail for a crash of `signal_name`, found in `text` (either of the crasher's signals).
  bool names_the_crash(const std::string& text, const std::string& before = "") const {
    const auto detail = [&](const char* signal_name) {
      return before + GetParam().backend + ": loading this model crashed the framework in an isolated check (" +
             signal_name + "); the host refused it";
    };
    return text.find(detail(GetParam().signal_name)) != std::string::npos ||
           (GetParam().other_signal_name && text.find(detail(GetParam().other_signal_name)) != std::string::npos);
  }
  bool is_the_crash(int exit_code) const {
    return exit_code == 128 + GetParam().signal ||
           (GetParam().other_signal != 0 && exit_code == 128 + GetParam().other_signal);
  }
};

TEST_P(Isolation, HostRefusesTheModelStaysUpAndServesTheNextRequest) {
  ScratchDir out;
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  options.preloads = {bad_spec(), "digits:onnx:cpu:" + fixture("digits/model.onnx").string()};
  const bool tflite = backend_built("tensorflowlite");
  if (tflite)
    options.preloads.push_back("digits_tfl:tensorflowlite:cpu:" + fixture("tflite/digits_f32.tflite").string());
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  ASSERT_TRUE(host) << error;

  // The detail, as the embedding API reports a load.
  wasinn::ModelInfo info;
  EXPECT_FALSE(host->inspect_model({"bad"}, "autodetect", &info, &error));
  EXPECT_TRUE(names_the_crash(error, "invalid_argument: ")) << error;

  // A real guest gets errno 1 (invalid_argument) from load_by_name, twice (the second answer
  // comes from the check cache), and run_model exits with the errno.
  for (int i = 0; i < 2; ++i) {
    wasinn::Program bad;
    bad.wasm_path = guest("run_model");
    bad.args = {"--name", "bad"};
    const auto run = host->run(bad);
    EXPECT_EQ(run.exit_code, 1) << run.message;
  }

  // The same host serves valid requests next, one of them through the isolated backend.
  expect_digits_served(*host, "digits", out);
  if (tflite) expect_digits_served(*host, "digits_tfl", out, fixture("tflite/digits_f32_expected.f32"));
}

TEST_P(Isolation, CliGuestGetsErrnoAndDetail) {
  const auto r = run_wasinn({"run", "--backend-dir", backend_dir().string(), "--nn-preload", bad_spec(),
                             guest("run_model"), "--name", "bad"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("errno 1 in load_by_name"), std::string::npos) << r.describe();
  EXPECT_TRUE(names_the_crash(r.err)) << r.describe();
}

TEST_P(Isolation, WithoutIsolationTheFrameworkCrashesTheHost) {
  // In a child `wasinn`: this is the crash isolation prevents.
  const auto r = run_wasinn({"run", "--isolate-loads", "never", "--backend-dir", backend_dir().string(), "--nn-preload",
                             bad_spec(), guest("run_model"), "--name", "bad"});
  EXPECT_TRUE(is_the_crash(r.exit_code)) << r.describe();
  EXPECT_EQ(r.out.find("errno"), std::string::npos) << "the guest never got an answer: " << r.describe();
  EXPECT_EQ(r.err.find("trap"), std::string::npos) << "a signal, not a wasm trap: " << r.describe();
}

INSTANTIATE_TEST_SUITE_P(Crashers, Isolation, ::testing::ValuesIn(kCrashers),
                         [](const auto& info) { return std::string(info.param.test_name); });

// A guest's own bytes (no file): the check gets them through an in-memory file. libtorch
// crashes on them as on the file. (LiteRT verifies a model it gets as bytes, so its crashers
// need a file: --nn-preload.)
TEST(IsolationGuestBytes, CrasherFromGuestMemoryIsRefused) {
  if (!backend_built("pytorch")) GTEST_SKIP() << "pytorch plugin not built";
  const fs::path bad = fixture("malformed/torchscript_buffer.pt");
  const auto r =
      run_wasinn({"run", "--backend-dir", backend_dir().string(), "--dir", bad.parent_path().string() + "::/m",
                  guest("run_model"), "--model", "/m/" + bad.filename().string(), "--encoding", "3"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("errno 1 in load"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("pytorch: loading this model crashed the framework in an isolated check (SIGSEGV)"),
            std::string::npos)
      << r.describe();
}

// A model the plugin itself refuses, in a host with isolation off: `bad` is a clean
// invalid_argument whose detail says `why`, and `good` loads in the same host afterwards.
void expect_clean_error_in_process(const std::string& backend, const std::string& encoding, const fs::path& bad,
                                   const std::string& why, const std::string& good) {
  if (!backend_built(backend)) GTEST_SKIP() << backend << " plugin not built";
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  options.isolate_loads = "never";
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  ASSERT_TRUE(host) << error;
  wasinn::ModelInfo info;
  EXPECT_FALSE(host->inspect_model({bad.string()}, encoding, &info, &error));
  EXPECT_NE(error.find("invalid_argument"), std::string::npos) << error;
  EXPECT_NE(error.find(why), std::string::npos) << error;
  ASSERT_TRUE(host->inspect_model({fixture(good).string()}, encoding, &info, &error)) << error;
  EXPECT_EQ(info.backend, backend);
}

// F3: llama.cpp asserts (abort) on a GGUF declaring more than 512 blocks. The plugin now reads
// the header first.
TEST(IsolationLlama, BlockCountOverTheLimitIsACleanErrorInProcess) {
  expect_clean_error_in_process("llamacpp", "ggml", fixture("malformed/llama_block_count.gguf"),
                                "llama.block_count is 1000; llama.cpp supports 1 to 512 blocks", "llama/tiny.gguf");
}

// The fuzzer's llama.cpp crashers (tests/fuzz/regressions/llamacpp): the block count again (F3),
// and a vocabulary listing a token twice, on which llama.cpp asserts (F13).
TEST(IsolationLlama, FuzzedCrashersAreCleanErrorsInProcess) {
  const fs::path dir = fs::path(WASINN_SOURCE_DIR) / "tests/fuzz/regressions/llamacpp";
  expect_clean_error_in_process("llamacpp", "ggml", dir / "n_layer_assert_abort.gguf",
                                "llama.cpp supports 1 to 512 blocks", "llama/tiny.gguf");
  expect_clean_error_in_process("llamacpp", "ggml", dir / "vocab_duplicate_token.gguf",
                                "lists token 7 twice; llama.cpp needs every token once", "llama/tiny.gguf");
}

// F7: libtorch's ErrorReport::what() formats source context inside a noexcept function; the
// plugin now reads the report's message without it, so an archive whose code does not compile
// is a clean error with the report's text.
TEST(IsolationPyTorch, UncompilableArchiveIsACleanErrorInProcess) {
  expect_clean_error_in_process("pytorch", "pytorch", fixture("malformed/torchscript_unknown_op.pt"),
                                "TorchScript compile error: Unknown builtin op: aten::rel0", "digits/model.pt");
}

// F18: libtorch runs a class's TorchScript __setstate__ while loading; this one never ends. The
// isolated check is killed at --isolated-load-timeout and the guest gets the load's error.
TEST(IsolationPyTorch, EndlessSetstateIsStoppedAtTheTimeLimit) {
  if (!backend_built("pytorch")) GTEST_SKIP() << "pytorch plugin not built";
  const auto r = run_wasinn({"run", "--backend-dir", backend_dir().string(), "--isolated-load-timeout", "2s",
                             "--isolated-load-cache", "off", "--nn-preload",
                             "bad:pytorch:cpu:" + fixture("malformed/torchscript_setstate_loop.pt").string(),
                             guest("run_model"), "--name", "bad"});
  EXPECT_EQ(r.exit_code, 5) << r.describe();  // witx's nearest code to timeout, as the guest's exit status
  EXPECT_NE(r.out.find("errno 5 in load_by_name"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("pytorch: loading this model did not finish within 2 s in an isolated check"), std::string::npos)
      << r.describe();
}

TEST(IsolationOptions, UnknownModeIsRefusedAtCreate) {
  wasinn::HostOptions options;
  options.isolate_loads = "sometimes";
  std::string error;
  EXPECT_FALSE(wasinn::Host::create(options, &error));
  EXPECT_NE(error.find("expected auto, always or never"), std::string::npos) << error;
}

}  // namespace
}  // namespace wasinn_it
