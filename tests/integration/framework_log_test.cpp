// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Framework log lines reach the user only through wasinn's logger: a default run prints nothing
// but its result, and --log-level debug shows the frameworks' lines tagged with the backend.
#include <gtest/gtest.h>

#include "test_env.h"

namespace wasinn_it {
namespace {

std::vector<std::string> digits_run(const std::vector<std::string>& host_flags) {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), host_flags.begin(), host_flags.end());
  const std::vector<std::string> rest = {"--backend-dir",
                                         backend_dir().string(),
                                         "--dir",
                                         fixture("digits").string() + "::/digits",
                                         guest("classify_digits"),
                                         "/digits/model.onnx",
                                         "/digits/test_x.f32",
                                         "/digits/test_y.u8"};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

TEST(FrameworkLog, BackendsListingPrintsNothingOnStderr) {
  // --check loads every plugin and its framework, which is when frameworks would print.
  for (const char* mode : {"--check", "--json"}) {
    const ChildResult r = run_wasinn({"backends", mode, "--backend-dir", backend_dir().string()});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.err, "") << r.describe();
  }
}

TEST(FrameworkLog, BackendsCheckAtDebugShowsTaggedFrameworkLinesAndOffIsSilent) {
  const ChildResult debug =
      run_wasinn({"backends", "--check", "--log-level", "debug", "--backend-dir", backend_dir().string()});
  ASSERT_EQ(debug.exit_code, 0) << debug.describe();
  // LiteRT logs as its environment is created; its lines arrive through the plugin's sink.
  EXPECT_NE(debug.err.find("[tensorflowlite] "), std::string::npos) << debug.describe();
  const ChildResult off =
      run_wasinn({"backends", "--check", "--log-level", "off", "--backend-dir", backend_dir().string()});
  ASSERT_EQ(off.exit_code, 0) << off.describe();
  EXPECT_EQ(off.err, "") << off.describe();
}

// LiteRT prints as its environment is created and as it loads, here in the isolated-load child
// too: nothing of it may reach stderr at --log-level off, nor at the default level.
TEST(FrameworkLog, TfliteRunAtLevelOffPrintsOnlyItsResult) {
  const std::string model = (fixture("tflite") / "digits_f32.tflite").string();
  for (const char* level : {"off", "warn"}) {
    const ChildResult r =
        run_wasinn({"run", "--log-level", level, "--backend-dir", backend_dir().string(), "--nn-preload",
                    "digits:tensorflowlite:cpu:" + model, "--dir", fixture("digits").string() + "::/digits",
                    guest("classify_digits"), "name:digits", "/digits/test_x.f32", "/digits/test_y.u8"});
    ASSERT_EQ(r.exit_code, 0) << level << ": " << r.describe();
    EXPECT_NE(r.out.find("accuracy"), std::string::npos) << level << ": " << r.describe();
    EXPECT_EQ(r.err, "") << level << ": " << r.describe();
  }
  const ChildResult listing = run_wasinn({"backends", "--log-level", "off", "--backend-dir", backend_dir().string()});
  ASSERT_EQ(listing.exit_code, 0) << listing.describe();
  EXPECT_EQ(listing.err, "") << listing.describe();
}

TEST(FrameworkLog, OnnxRuntimeRunAtLevelOffPrintsOnlyItsResult) {
  const ChildResult r = run_wasinn(digits_run({"--log-level", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("accuracy"), std::string::npos) << r.describe();
  EXPECT_EQ(r.err, "") << r.describe();
}

TEST(FrameworkLog, DefaultRunPrintsOnlyItsResult) {
  const ChildResult r = run_wasinn(digits_run({}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("accuracy"), std::string::npos) << r.describe();
  EXPECT_EQ(r.err, "") << r.describe();
}

TEST(FrameworkLog, DebugLevelShowsTaggedFrameworkLines) {
  const ChildResult r = run_wasinn(digits_run({"--log-level", "debug"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("[onnxruntime] "), std::string::npos) << r.describe();
}

TEST(FrameworkLog, ErrorLevelIsQuietToo) {
  const ChildResult r = run_wasinn(digits_run({"--log-level", "error"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.err, "") << r.describe();
}

}  // namespace
}  // namespace wasinn_it
