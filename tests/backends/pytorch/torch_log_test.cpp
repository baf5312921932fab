// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libtorch's own log lines reach the host's log sink at the level libtorch gave them, and the
// plugin writes nothing to stderr. Runs as its own ctest process (pytorch_backend_log_test), so
// the sink is installed before the plugin's first backend_create, as the host does it.
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "native_torch.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

struct Line {
  int32_t level;
  std::string text;
};

// The host's side of wasinn_log_sink: any thread, any time, for the rest of the process.
struct LogLines {
  std::mutex mutex;
  std::vector<Line> lines;

  static void write(void* self, int32_t level, const char* message, size_t length) {
    auto* log = static_cast<LogLines*>(self);
    std::lock_guard<std::mutex> lock(log->mutex);
    log->lines.push_back({level, std::string(message, length)});
  }
  bool has(int32_t level, const std::string& part) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Line& l : lines)
      if (l.level == level && l.text.find(part) != std::string::npos) return true;
    return false;
  }
  std::string all() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string s;
    for (const Line& l : lines) s += std::to_string(l.level) + " " + l.text + "\n";
    return s;
  }
};

TEST(TorchLogging, LibtorchLinesReachTheHostLogAndNothingReachesStderr) {
  if (::testing::UnitTest::GetInstance()->test_to_run_count() != 1)
    GTEST_SKIP() << "needs a process of its own: --gtest_filter=TorchLogging.*";
  // TorchScript's pass log, read by libtorch when the plugin installs its hooks; the inliner
  // runs whenever TorchScript is compiled.
  setenv("PYTORCH_JIT_LOG_LEVEL", "inliner", /*overwrite=*/1);
  static LogLines log;  // the plugin keeps the sink for the rest of the process
  const wasinn_log_sink sink{&log, LogLines::write, WASINN_LOG_TRACE};
  api().set_log_sink(&sink);

  ::testing::internal::CaptureStderr();
  {
    Backend b(api(), R"({"num_threads": 1})");
    // torch.warn is TorchScript's warnings.warn: the interpreter raises a c10 warning on the
    // thread running forward, the first time that statement runs.
    const auto archive = native_script_archive(R"(
def forward(self, x: Tensor) -> Tensor:
    torch.warn("wasinn log probe")
    return x + 1
)");
    Graph g;
    Diag d;
    ASSERT_EQ(load_bytes(b, {archive}, g, d), WASINN_OK) << d.detail;
    Context c(api(), g.ptr);
    const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2}, {1, 2});
    ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
    ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
    EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{2, 3}));
  }
  // On a thread the plugin never saw, c10's default handler gives the warning to glog, whose
  // only outlet is now the plugin's sink.
  native_warn_on_new_thread("wasinn glog probe");
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();

  EXPECT_TRUE(log.has(WASINN_LOG_WARN, "wasinn log probe")) << log.all();
  EXPECT_TRUE(log.has(WASINN_LOG_WARN, "wasinn glog probe")) << log.all();
  EXPECT_TRUE(log.has(WASINN_LOG_TRACE, "API usage: torch.script.load")) << log.all();
  EXPECT_TRUE(log.has(WASINN_LOG_DEBUG, "[DUMP inliner.cpp")) << log.all();
  EXPECT_EQ(stderr_text, "");
}

}  // namespace
}  // namespace wasinn_test
