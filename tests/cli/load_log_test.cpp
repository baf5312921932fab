// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Each model load is one line at info level (what was loaded, its size, the backend, the time),
// and on a terminal a load taking over a second shows "loading ..." while it runs; never on a
// non-terminal, never under -q.
#include <regex>

#include <gtest/gtest.h>

#include "cli_test_env.h"
#include "pty_child.h"

namespace wasinn_cli_test {
namespace {

// A fake-backend model (tests/unit/fake_backend) whose load sleeps `ms` milliseconds.
fs::path fake_model(const ScratchDir& dir, int ms) {
  const fs::path file = dir / "slow.onnx";
  write_text(file, "fake:slow_load:" + std::to_string(ms) + "\n");
  return file;
}

std::vector<std::string> inspect_fake(const fs::path& model, const std::vector<std::string>& flags) {
  std::vector<std::string> args{wasinn_it::wasinn_binary(), "models", "inspect", "--backend-dir",
                                WASINN_FAKE_BACKEND_DIR};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(model.string());
  return args;
}

TEST(LoadLog, InfoLineForAFileModel) {
  const auto model = fixture("tiny/model.onnx");
  if (!model || !ort_plugin_built()) GTEST_SKIP() << "needs the tiny fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", "-v", model->string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::regex line("wasinn: info: loaded " +
                        std::regex_replace(model->string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                        R"( \([0-9.]+ (B|KiB)\) with onnxruntime on cpu in [0-9]+ ms\n)");
  EXPECT_TRUE(std::regex_search(r.err, line)) << r.describe();
  EXPECT_EQ(wasinn({"models", "inspect", model->string()}).err, "") << "not at the default level";
}

TEST(LoadLog, InfoLineForGuestBytes) {
  const auto digits = fixture("digits");
  if (!digits || !ort_plugin_built()) GTEST_SKIP() << "needs the digits fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"run", "--log-level", "info", "--dir", digits->string() + "::/d",
                                guest("classify_digits"), "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(wasinn: info: loaded guest bytes \(19\.2 KiB\) with onnxruntime on cpu in [0-9]+ ms\n)")))
      << r.describe();
  size_t lines = 0;
  for (size_t at = r.err.find("wasinn: info: load"); at != std::string::npos;
       at = r.err.find("wasinn: info: load", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << "one line per load\n" << r.describe();
}

// The line says why, not only that: the reason is the load's own error.
TEST(LoadLog, AFailedLoadIsOneInfoLineToo) {
  const auto garbage = fixture("corrupt/garbage.onnx");
  if (!garbage || !ort_plugin_built()) GTEST_SKIP() << "needs the corrupt fixtures and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", "-v", "--encoding", "onnx", garbage->string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_TRUE(std::regex_search(
      r.err,
      std::regex(
          R"(wasinn: info: loading .*garbage\.onnx \(4\.0 KiB\) with onnxruntime failed after [0-9]+ ms: .+\n)")))
      << r.describe();
}

TEST(LoadProgress, ALongLoadOnATerminalSaysSoAndThenHowLongItTook) {
  ScratchDir dir;
  const fs::path model = fake_model(dir, 1600);
  const PtyResult r = run_in_pty(inspect_fake(model, {}), {"WASINN_BACKEND_PATH"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string loading = "wasinn: loading " + model.string() + " (20 B) with fake...\n";
  EXPECT_NE(r.output.find(loading), std::string::npos) << r.describe();
  EXPECT_TRUE(std::regex_search(r.output,
                                std::regex(R"(wasinn: loaded .*slow\.onnx \(20 B\) with fake on cpu in 1\.[0-9] s\n)")))
      << r.describe();
  EXPECT_LT(r.output.find(loading), r.output.find("wasinn: loaded")) << r.describe();

  // At info level the info line completes it; under -q nothing is shown.
  PtyResult verbose = run_in_pty(inspect_fake(model, {"-v"}), {"WASINN_BACKEND_PATH"});
  verbose.output = std::regex_replace(verbose.output, std::regex("\x1b\\[[0-9;]*m"), "");  // the level's colour
  EXPECT_NE(verbose.output.find(loading), std::string::npos) << verbose.describe();
  EXPECT_NE(verbose.output.find("wasinn: info: loaded " + model.string()), std::string::npos) << verbose.describe();
  EXPECT_EQ(verbose.output.find("wasinn: loaded"), std::string::npos) << "no second completion\n" << verbose.describe();
  const PtyResult quiet = run_in_pty(inspect_fake(model, {"-q"}), {"WASINN_BACKEND_PATH"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.describe();
  EXPECT_EQ(quiet.output.find("loading"), std::string::npos) << quiet.describe();
}

TEST(LoadProgress, NeverForAShortLoadNorOffATerminal) {
  ScratchDir dir;
  const PtyResult fast = run_in_pty(inspect_fake(fake_model(dir, 0), {}), {"WASINN_BACKEND_PATH"});
  ASSERT_EQ(fast.exit_code, 0) << fast.describe();
  EXPECT_EQ(fast.output.find("wasinn: load"), std::string::npos) << fast.describe();

  const fs::path slow = fake_model(dir, 1300);
  const auto args = inspect_fake(slow, {});
  const ChildResult piped = wasinn(std::vector<std::string>(args.begin() + 1, args.end()));
  ASSERT_EQ(piped.exit_code, 0) << piped.describe();
  EXPECT_EQ(piped.err, "") << piped.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
