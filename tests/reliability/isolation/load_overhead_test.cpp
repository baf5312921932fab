// What load isolation adds to a load, per isolated backend, with real models: the same model
// file loaded in-process only (--isolate-loads=never) and with its check (auto; ONNX Runtime
// with always, for reference). Each timed load uses a fresh copy of the file, so no check is
// answered from the cache; a repeat load of a checked file shows what the cache leaves. The
// plugin is warmed first in both hosts, so its one-time start is not counted.
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

std::unique_ptr<wasinn::Host> make_host(const std::string& mode) {
  wasinn::HostOptions options;
  options.backend_dirs = {backend_dir().string()};
  options.isolate_loads = mode;
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  EXPECT_TRUE(host) << error;
  return host;
}

class LoadOverhead : public ::testing::TestWithParam<Case> {};

TEST_P(LoadOverhead, Measured) {
  const Case& c = GetParam();
  if (!fs::exists(backend_dir() / ("libwasinn_backend_" + std::string(c.backend) + ".so"))) {
    GTEST_SKIP() << c.backend << " plugin not built";
  }
  ScratchDir dir;
  const auto bytes = read_bytes(fixture(c.fixture));
  const std::string ext = fs::path(c.fixture).extension().string();
  std::vector<fs::path> copies;
  for (int i = 0; i <= 2 * kTimedLoads + 1; ++i) {
    copies.push_back(dir / ("model" + std::to_string(i) + ext));
    write_bytes(copies.back(), bytes.data(), bytes.size());
  }
  auto plain = make_host("never");
  auto isolated = make_host(c.mode);
  ASSERT_TRUE(plain && isolated);
  load_ms(*plain, copies[0], c.encoding);  // warm: plugin and framework start
  load_ms(*isolated, copies[1], c.encoding);

  double plain_ms = 0, isolated_ms = 0;
  for (int i = 0; i < kTimedLoads; ++i) {
    plain_ms += load_ms(*plain, copies[2 + 2 * i], c.encoding) / kTimedLoads;
    isolated_ms += load_ms(*isolated, copies[3 + 2 * i], c.encoding) / kTimedLoads;
  }
  const double cached_ms = load_ms(*isolated, copies[3], c.encoding);  // checked above

  std::printf("[isolation overhead] %s (%s, %zu bytes): in-process load %.1f ms; with its isolated check "
              "%.1f ms (+%.1f ms); repeat load of a checked file %.1f ms\n",
              c.backend, c.fixture, bytes.size(), plain_ms, isolated_ms, isolated_ms - plain_ms, cached_ms);
  RecordProperty("in_process_ms", std::to_string(plain_ms));
  RecordProperty("isolated_ms", std::to_string(isolated_ms));
  RecordProperty("cached_ms", std::to_string(cached_ms));
  // The check is one more process and one more load: it costs time, and the cache gives it back.
  EXPECT_GT(isolated_ms, plain_ms) << "the check ran in a child";
  EXPECT_LT(cached_ms, isolated_ms) << "a repeat load of a checked file skips the check";
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
