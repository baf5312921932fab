// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target gpu on ONNX Runtime's CUDA provider (the opt-in variant, scripts/gpu/onnxruntime-cuda.sh).
// Its own executable, which does not link ORT: the plugin must load the ORT core from the CUDA
// variant's folder, where the provider sits, not one the test process loaded first.
// Without a GPU (this project's machines): a gpu load is refused naming the cause, auto and
// "fallback":"cpu" run on the CPU with the CPU's answers, and every library resolves but the
// driver's. With an NVIDIA GPU (scripts/gpu-check.sh): gpu runs on CUDA and matches the CPU.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "detail: " << (haystack)

// The CUDA variant's lib folder, as the build found it ("" when it is not installed).
const fs::path kCudaLibDir = WASINN_ORT_CUDA_LIB_DIR;

#define SKIP_WITHOUT_VARIANT()                                                               \
  if (kCudaLibDir.empty())                                                                   \
  GTEST_SKIP() << "the ONNX Runtime CUDA variant is not installed (scripts/setup.sh --gpu, " \
                  "then rebuild)"

bool have_driver() {
  static const bool yes = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr;
  return yes;
}

// What `ldd` says of each library `lib` needs: "name => path" or "name => not found".
std::vector<std::pair<std::string, std::string>> ldd(const fs::path& lib) {
  std::vector<std::pair<std::string, std::string>> out;
  // No LD_LIBRARY_PATH: only the library's own RUNPATH and the system's folders count.
  FILE* p = popen(("env -u LD_LIBRARY_PATH ldd '" + lib.string() + "' 2>&1").c_str(), "r");
  if (!p) return out;
  std::array<char, 1024> line{};
  while (fgets(line.data(), line.size(), p)) {
    std::string s(line.data());
    const size_t arrow = s.find(" => ");
    if (arrow == std::string::npos) continue;
    std::string name = s.substr(0, arrow), where = s.substr(arrow + 4);
    name.erase(0, name.find_first_not_of(" \t"));
    where = where.substr(0, where.find(" ("));
    while (!where.empty() && isspace(static_cast<unsigned char>(where.back()))) where.pop_back();
    out.emplace_back(name, where);
  }
  pclose(p);
  return out;
}

std::string property(wasinn_graph* g, const std::string& name) {
  for (size_t i = 0; i < api().graph_property_count(g); ++i) {
    wasinn_property p{};
    if (api().graph_property_info(g, i, &p) == WASINN_OK && name == p.name) return p.value;
  }
  return "";
}

// The digits model's logits for the first `rows` test rows, loaded for `target` with `config`.
std::vector<float> digits_logits(Backend& b, int32_t target, const std::string& config, size_t rows,
                                 std::string* device = nullptr, double* ms_per_run = nullptr) {
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("digits/model.onnx")}, g, d, target, config), WASINN_OK) << d.detail;
  if (!g.ptr) return {};
  if (device) *device = property(g.ptr, "device");
  std::vector<float> x = read_fixture_as<float>("digits/test_x.f32");
  x.resize(rows * 64);
  TestContext c(g.ptr);
  EXPECT_EQ(set_input(c.ptr, by_index(0), WASINN_TYPE_F32, {static_cast<uint32_t>(rows), 64}, x, d), WASINN_OK)
      << d.detail;
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;  // the first run also warms up
  if (ms_per_run) {
    constexpr int kRuns = 20;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kRuns; ++i) EXPECT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
    *ms_per_run = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / kRuns;
  }
  return output_as<float>(c.ptr, by_index(0), WASINN_TYPE_F32);
}

TEST(OrtCuda, LibrariesResolve) {
  SKIP_WITHOUT_VARIANT();
  // The plugin loads the ORT core from the CUDA variant, beside the provider.
  bool core_found = false;
  for (const auto& [name, where] : ldd(fs::path(WASINN_BACKEND_DIR) / "libwasinn_backend_onnxruntime.so")) {
    EXPECT_NE(where, "not found") << "the plugin needs " << name;
    if (name == "libonnxruntime.so.1") {
      core_found = true;
      EXPECT_EQ(fs::path(where).parent_path(), kCudaLibDir) << "the plugin loads ORT from " << where;
    }
  }
  EXPECT_TRUE(core_found);
  // The provider and the libraries ORT and cuDNN dlopen at run time: all resolve from the
  // variant's folder, except libcuda.so.1, which only the NVIDIA driver installs.
  for (const char* lib :
       {"libonnxruntime_providers_cuda.so", "libonnxruntime_providers_shared.so", "libcudnn.so.9",
        "libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcufft.so.12", "libnvrtc.so.13"}) {
    ASSERT_TRUE(fs::exists(kCudaLibDir / lib)) << lib;
    size_t deps = 0;
    for (const auto& [name, where] : ldd(kCudaLibDir / lib)) {
      ++deps;
      if (name == "libcuda.so.1") continue;  // the driver's
      EXPECT_NE(where, "not found") << lib << " needs " << name;
    }
    EXPECT_GT(deps, 0u) << lib;
  }
}

TEST(OrtCuda, GpuRefusedNamingTheCause) {
  SKIP_WITHOUT_VARIANT();
  if (have_driver()) GTEST_SKIP() << "an NVIDIA driver is installed: OrtCuda.GpuMatchesCpu covers this machine";
  TestBackend b;
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("digits/model.onnx")}, g, d, WASINN_TARGET_GPU), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_EQ(g.ptr, nullptr);
  EXPECT_CONTAINS(d.detail, "target gpu is not available: no NVIDIA driver: libcuda.so.1");
  EXPECT_CONTAINS(d.detail, "\"fallback\": \"cpu\"");
  std::printf("refusal: %s\n", d.detail.c_str());
  // The backend's device report says the same for `wasinn backends --check`: the CPU alone.
  const char* why = api().backend_target_unavailable(b.ptr, WASINN_TARGET_GPU);
  ASSERT_NE(why, nullptr);
  EXPECT_CONTAINS(why, "no NVIDIA driver: libcuda.so.1");
  EXPECT_EQ(api().backend_target_unavailable(b.ptr, WASINN_TARGET_AUTO), nullptr);
  ASSERT_EQ(api().backend_device_count(b.ptr), 1u);
  wasinn_device dev{};
  ASSERT_EQ(api().backend_device_info(b.ptr, 0, &dev), WASINN_OK);
  EXPECT_STREQ(dev.api, "CPU");
  EXPECT_EQ(dev.target, WASINN_TARGET_CPU);
  EXPECT_EQ(api().backend_description(b.ptr), nullptr);
}

TEST(OrtCuda, AutoAndFallbackRunOnCpuWithoutGpu) {
  SKIP_WITHOUT_VARIANT();
  if (have_driver()) GTEST_SKIP() << "an NVIDIA driver is installed: auto may run on CUDA";
  TestBackend b;
  std::string device;
  const std::vector<float> cpu = digits_logits(b, WASINN_TARGET_CPU, "", 8, &device);
  EXPECT_EQ(device, "cpu");
  ASSERT_EQ(cpu.size(), 80u);
  EXPECT_EQ(digits_logits(b, WASINN_TARGET_AUTO, "", 8, &device), cpu);
  EXPECT_EQ(device, "cpu");
  EXPECT_EQ(digits_logits(b, WASINN_TARGET_GPU, R"({"fallback": "cpu"})", 8, &device), cpu);
  EXPECT_EQ(device, "cpu");
}

TEST(OrtCuda, FallbackConfigChecked) {
  TestBackend b;
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("digits/model.onnx")}, g, d, WASINN_TARGET_GPU, R"({"fallback": "gpu"})"),
            WASINN_INVALID_ARGUMENT);
  EXPECT_CONTAINS(d.detail, "\"fallback\" must be one of \"cpu\" or \"none\"");
}

// The causes a machine without a GPU cannot show, through a stand-in driver (fake_libcuda.c),
// found first on LD_LIBRARY_PATH by the ctest onnxruntime_cuda_fake_driver_test.
class OrtCudaFakeDriver : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
 protected:
  // cuBLAS, cuBLASLt and cuRAND carry a static libstdc++, whose exception pool (72704 bytes
  // each) they allocate when loaded; ORT unloads them with its environment and LeakSanitizer
  // then reports three leaks from an unknown module, which no suppression can name. Kept loaded
  // (the provider's DT_NEEDED resolves to these), their pools stay reachable.
  static void SetUpTestSuite() {
    if (kCudaLibDir.empty()) return;
    for (const char* lib : {"libcublasLt.so.13", "libcublas.so.13", "libcurand.so.10"})
      dlopen((kCudaLibDir / lib).c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  }
};

TEST_P(OrtCudaFakeDriver, GpuRefusedNamingTheCause) {
  SKIP_WITHOUT_VARIANT();
  if (!std::getenv("WASINN_TEST_FAKE_CUDA")) GTEST_SKIP() << "run by ctest onnxruntime_cuda_fake_driver_test";
  const auto [mode, cause] = GetParam();
  setenv("FAKE_CUDA", mode, 1);  // the stand-in reads it at each call; the backend probes at create
  TestBackend b;
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("digits/model.onnx")}, g, d, WASINN_TARGET_GPU), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_EQ(g.ptr, nullptr);
  EXPECT_CONTAINS(d.detail, std::string("target gpu is not available: ") + cause);
  std::printf("%s: %s\n", mode, d.detail.c_str());
  std::string device;
  EXPECT_EQ(digits_logits(b, WASINN_TARGET_AUTO, "", 4, &device).size(), 40u);
  EXPECT_EQ(device, "cpu");
}

INSTANTIATE_TEST_SUITE_P(
    Causes, OrtCudaFakeDriver,
    ::testing::Values(
        std::make_pair("nodevice", "no CUDA device: the NVIDIA driver is installed but finds no GPU"),
        std::make_pair("old", "the NVIDIA driver is too old: it supports CUDA 12.4, the CUDA provider needs CUDA 13.0"),
        std::make_pair("stub", "no NVIDIA driver: the libcuda.so.1 found is the CUDA toolkit's stub"),
        // The probe passes, so ORT loads its CUDA provider with this core (the pair works); the
        // CUDA runtime then finds no real driver behind the stand-in.
        std::make_pair("one", "ONNX Runtime's CUDA provider loaded but offers no device")),
    [](const auto& info) { return std::string(info.param.first); });

// On an NVIDIA machine (scripts/gpu-check.sh): CUDA runs the digits and agrees with the CPU.
TEST(OrtCuda, GpuMatchesCpu) {
  SKIP_WITHOUT_VARIANT();
  if (!have_driver()) GTEST_SKIP() << "no NVIDIA driver (libcuda.so.1) on this machine";
  TestBackend b;
  std::string device;
  double cpu_ms = 0, gpu_ms = 0;
  constexpr size_t kRows = 256;
  const std::vector<float> cpu = digits_logits(b, WASINN_TARGET_CPU, "", kRows, nullptr, &cpu_ms);
  const std::vector<float> gpu = digits_logits(b, WASINN_TARGET_GPU, "", kRows, &device, &gpu_ms);
  ASSERT_EQ(gpu.size(), cpu.size());
  EXPECT_EQ(device.rfind("gpu: CUDA0", 0), 0u) << device;
  float worst = 0;
  for (size_t i = 0; i < cpu.size(); ++i) worst = std::max(worst, std::fabs(gpu[i] - cpu[i]));
  // TF32 and fused kernels differ from the CPU's in the last bits; logits are O(10).
  EXPECT_LT(worst, 1e-3f);
  std::printf("GPU-CHECK onnxruntime digits[%zu]: %s, max |gpu-cpu| = %g, cpu %.3f ms, gpu %.3f ms, speedup %.2fx\n",
              kRows, device.c_str(), worst, cpu_ms, gpu_ms, gpu_ms > 0 ? cpu_ms / gpu_ms : 0.0);
}

}  // namespace
}  // namespace wasinn_test
