// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenVINO's compiled-model cache: a configured directory receives the compiled blob, a second
// load from it gives the same answers, "" turns caching off, and the default lives under
// $XDG_CACHE_HOME/wasinn/openvino. Load times are recorded, not asserted (the machine is shared).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "ov_test_support.h"

namespace wasinn_test {
namespace {

namespace fs = std::filesystem;

size_t file_count(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); ++it)
    n += it->is_regular_file() ? 1 : 0;
  return n;
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/wasinn-ov-cache-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Sets an environment variable for the scope, restoring the old value after.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() { old ? setenv(name.c_str(), old->c_str(), 1) : unsetenv(name.c_str()); }
};

double load_ms(Backend& b, Graph& g, const std::string& config) {
  const auto xml = read_fixture("mobilenet_v2/openvino/model.xml"),
             bin = read_fixture("mobilenet_v2/openvino/model.bin");
  Diag d;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(load_bytes(b, {xml, bin}, g, d, WASINN_TARGET_CPU, config), WASINN_OK) << d.detail;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<float> run_mobilenet(wasinn_graph* g) {
  const auto x = read_fixture_as<float>("mobilenet_v2/input.f32");
  Context c(api(), g);
  Diag d;
  EXPECT_EQ(set_input_of(c.ptr, by_index(0), WASINN_TYPE_F32, {1, 3, 224, 224}, x.data(), x.size(), d), WASINN_OK);
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  return output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32);
}

TEST(OvCache, SecondLoadUsesTheCacheDir) {
  TempDir dir;
  Backend b(api(), kF32);
  const std::string cfg = R"({"inference_precision":"f32","cache_dir":")" + dir.path.string() + R"("})";
  Graph cold, warm;
  const double cold_ms = load_ms(b, cold, cfg);
  ASSERT_NE(cold.ptr, nullptr);
  EXPECT_GE(file_count(dir.path), 1u) << "nothing was cached in " << dir.path;
  const double warm_ms = load_ms(b, warm, cfg);
  ASSERT_NE(warm.ptr, nullptr);
  RecordProperty("cold_load_ms", std::to_string(cold_ms));
  RecordProperty("cached_load_ms", std::to_string(warm_ms));
  std::printf("mobilenet_v2 IR load: cold %.1f ms, from cache %.1f ms\n", cold_ms, warm_ms);
  EXPECT_EQ(run_mobilenet(cold.ptr), run_mobilenet(warm.ptr));
}

TEST(OvCache, EmptyCacheDirTurnsCachingOff) {
  TempDir dir;
  ScopedEnv xdg("XDG_CACHE_HOME", dir.path.string());
  Backend b(api(), R"({"cache_dir":""})");
  Graph g;
  load_ms(b, g, "");
  ASSERT_NE(g.ptr, nullptr);
  EXPECT_EQ(file_count(dir.path), 0u);
}

TEST(OvCache, DefaultDirIsUnderXdgCacheHome) {
  TempDir dir;
  ScopedEnv xdg("XDG_CACHE_HOME", dir.path.string());
  Backend b(api());
  Graph g;
  load_ms(b, g, "");
  ASSERT_NE(g.ptr, nullptr);
  EXPECT_GE(file_count(dir.path / "wasinn" / "openvino"), 1u);
}

}  // namespace
}  // namespace wasinn_test
