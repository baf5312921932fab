// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What load isolation adds to a load, per isolated backend, with real models: the same model
// file loaded in-process only (--isolate-loads=never), with its check every time (auto, with
// --isolated-load-cache off; ONNX Runtime with always, for reference), and again by a host that
// remembers verdicts (a repeat load of a checked file, answered without a child). The plugin is
// warmed first in every host, so its one-time start is not counted. bench/load_isolation
// measures more cases (guest bytes, a second process); this keeps the comparison in CI.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "test_env.h"
#include "wasinn/host.h"

namespace wasinn_it {
namespace {

constexpr int kTimedLoads = 3;

struct Case {
  const char* backend;
  const char* encoding;
  const char* fixture;
  const char* mode;  // the isolating mode for this backend
};

double load_ms(wasinn::Host& host, const fs::path& file, const std::string& encoding) {
  wasinn::ModelInfo info;
  std::string error;
  const auto t0 = std::chrono::steady_clock::now();
  const bool ok = host.inspect_model({file.string()}, encoding, &info, &error);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(ok) << file << ": " << error;
  return ms;
}

std::unique_ptr<wasinn::Host> make_host(const std::string& mode, const std::string& verdict_cache) {
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  options.isolate_loads = mode;
  options.isolated_load_cache = verdict_cache;
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  EXPECT_TRUE(host) << error;
  return host;
}

size_t entries_in(const fs::path& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  return n;
}

class LoadOverhead : public ::testing::TestWithParam<Case> {};

TEST_P(LoadOverhead, Measured) {
  const Case& c = GetParam();
  if (!fs::exists(backend_dir() / ("libwasinn_backend_" + std::string(c.backend) + ".so"))) {
    GTEST_SKIP() << c.backend << " plugin not built";
  }
  ScratchDir dir;
  // The fixture itself, not a fresh copy: a file changed in the last 2 s is hashed at every load
  // (its stat identity does not vouch for its bytes yet), which is not what a preload sees.
  const fs::path model = fixture(c.fixture);
  const auto bytes = read_bytes(model);
  auto plain = make_host("never", "off");
  auto checking = make_host(c.mode, "off");
  auto remembering = make_host(c.mode, (dir / "verdicts").string());
  ASSERT_TRUE(plain && checking && remembering);
  load_ms(*plain, model, c.encoding);  // warm: plugin and framework start
  load_ms(*checking, model, c.encoding);
  load_ms(*remembering, model, c.encoding);  // checked here, remembered from here on

  double plain_ms = 0, isolated_ms = 0, cached_ms = 0;
  for (int i = 0; i < kTimedLoads; ++i) {
    plain_ms += load_ms(*plain, model, c.encoding) / kTimedLoads;
    isolated_ms += load_ms(*checking, model, c.encoding) / kTimedLoads;
    cached_ms += load_ms(*remembering, model, c.encoding) / kTimedLoads;
  }

  std::printf(
      "[isolation overhead] %s (%s, %zu bytes): in-process load %.1f ms; with its isolated check "
      "%.1f ms (+%.1f ms); repeat load of a checked file (verdict remembered) %.1f ms\n",
      c.backend, c.fixture, bytes.size(), plain_ms, isolated_ms, isolated_ms - plain_ms, cached_ms);
  RecordProperty("in_process_ms", std::to_string(plain_ms));
  RecordProperty("isolated_ms", std::to_string(isolated_ms));
  RecordProperty("cached_ms", std::to_string(cached_ms));
  // The check is one more process and one more load: it costs time, and the verdict gives it back.
  EXPECT_GT(isolated_ms, plain_ms) << "the check ran in a child";
  EXPECT_LT(cached_ms, isolated_ms) << "a repeat load of a checked file skips the check";
  EXPECT_EQ(entries_in(dir / "verdicts"), 1u) << "the remembering host keeps its verdict in the directory given";
}

const Case kCases[] = {
    {"tensorflowlite", "tensorflowlite", "tflite/digits_f32.tflite", "auto"},
    {"tensorflowlite", "tensorflowlite", "tflite/mobilenet_v2.tflite", "auto"},
    {"llamacpp", "ggml", "llama/tiny.gguf", "auto"},
    {"pytorch", "pytorch", "digits/model.pt", "auto"},
    {"onnxruntime", "onnx", "digits/model.onnx", "always"},
};

INSTANTIATE_TEST_SUITE_P(Backends, LoadOverhead, ::testing::ValuesIn(kCases), [](const auto& info) {
  std::string name = std::string(info.param.backend) + "_" + fs::path(info.param.fixture).stem().string();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
});

}  // namespace
}  // namespace wasinn_it
