// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target gpu through LiteRT's GPU accelerator (libLiteRtWebGpuAccelerator.so: Dawn over Vulkan),
// driven through the plugin table. Two ctest entries run this file with a different Vulkan
// driver in VK_ICD_FILENAMES (tests/backends/tensorflowlite/CMakeLists.txt):
//   - Mesa 25.0's lavapipe (scripts/deps/lavapipe.sh), a real Vulkan device on the CPU that Dawn
//     accepts: MobileNetV2 on target gpu gives the CPU's answer within a tolerance, and the
//     graph says it ran on that device.
//   - no driver at all: target gpu is UNSUPPORTED_OPERATION with the reason, auto runs on the
//     CPU with the CPU's answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "guest_runner.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

const wasinn_backend_api& api() { return plugin_api("tensorflowlite"); }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string property(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < api().graph_property_count(g.ptr); ++i) {
    wasinn_property p{};
    if (api().graph_property_info(g.ptr, i, &p) == WASINN_OK && p.name == name) return p.value;
  }
  return {};
}

std::vector<float> classify(Backend& b, int32_t target, std::string* device = nullptr) {
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("tflite/mobilenet_v2.tflite")}, g, d, target), WASINN_OK) << d.detail;
  if (!g.ptr) return {};
  if (device) *device = property(g, "device");
  Context c(api(), g.ptr);
  int st = set_input(api(), c.ptr, by_index(0), WASINN_TYPE_F32, {1, 224, 224, 3},
                     read_fixture("tflite/mobilenet_v2_input.f32"), d);
  if (st == WASINN_OK) st = api().compute(c.ptr, &d);
  EXPECT_EQ(st, WASINN_OK) << d.detail;
  if (st != WASINN_OK) return {};
  return as_vector<float>(output_bytes(api(), c.ptr, by_index(0), WASINN_TYPE_F32));
}

size_t argmax(const std::vector<float>& v) {
  return static_cast<size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// The ICD this ctest entry chose, when it names a file that is there.
bool icd_present() {
  const char* icd = std::getenv("VK_ICD_FILENAMES");
  return icd && std::filesystem::exists(icd);
}

// LiteRT's GPU accelerator computes in half precision by default: mobilenet_v2's 1000 logits
// (about -5..15) differ from XNNPACK's float32 ones by up to ~0.1. Within 0.25 each, same class.
// Returns the largest difference.
double expect_gpu_near_cpu(const std::vector<float>& gpu, const std::vector<float>& cpu) {
  EXPECT_EQ(gpu.size(), 1000u);
  EXPECT_EQ(cpu.size(), gpu.size());
  if (gpu.size() != 1000u || cpu.size() != gpu.size()) return -1;
  double worst = 0;
  for (size_t i = 0; i < cpu.size(); ++i) worst = std::max(worst, double(std::abs(cpu[i] - gpu[i])));
  EXPECT_LT(worst, 0.25);
  EXPECT_EQ(argmax(gpu), argmax(cpu));
  return worst;
}

TEST(TfliteGpu, MobilenetOnLavapipeMatchesTheCpu) {
  if (!icd_present())
    GTEST_SKIP() << "Mesa 25.0's lavapipe is not installed (VK_ICD_FILENAMES="
                 << (std::getenv("VK_ICD_FILENAMES") ? std::getenv("VK_ICD_FILENAMES") : "")
                 << "); scripts/fetch-deps.sh lavapipe installs it";
  Backend b(api());
  ASSERT_NE(api().backend_description, nullptr);
  const std::string description = api().backend_description(b.ptr);
  EXPECT_TRUE(has(description, "gpu: GPU WebGPU")) << "the accelerator registered: " << description;
  // The device report (`backends --check`): lavapipe serves gpu, and nothing is missing.
  std::string gpu_devices;
  for (size_t i = 0; i < api().backend_device_count(b.ptr); ++i) {
    wasinn_device dev{};
    ASSERT_EQ(api().backend_device_info(b.ptr, i, &dev), WASINN_OK);
    if (dev.target == WASINN_TARGET_GPU) gpu_devices += std::string(dev.api) + ": " + dev.name + "; ";
  }
  EXPECT_TRUE(has(gpu_devices, "Vulkan (LiteRT's WebGPU accelerator): llvmpipe")) << gpu_devices;
  EXPECT_EQ(api().backend_target_unavailable(b.ptr, WASINN_TARGET_GPU), nullptr);

  const std::vector<float> cpu = classify(b, WASINN_TARGET_CPU);
  std::string device;
  const std::vector<float> gpu = classify(b, WASINN_TARGET_GPU, &device);
  // The graph says where it ran: the GPU accelerator, on the Vulkan device Dawn opened.
  EXPECT_TRUE(has(device, "gpu: WebGPU (Vulkan) llvmpipe")) << device;
  const double worst = expect_gpu_near_cpu(gpu, cpu);
  const auto tf = read_fixture_as<float>("tflite/mobilenet_v2_expected.f32");
  ASSERT_EQ(tf.size(), gpu.size());
  EXPECT_EQ(argmax(gpu), argmax(tf)) << "TensorFlow's own answer";
  // auto takes the GPU when there is one, with the same answer.
  std::string auto_device;
  const std::vector<float> auto_out = classify(b, WASINN_TARGET_AUTO, &auto_device);
  EXPECT_EQ(auto_device, device);
  EXPECT_EQ(auto_out, gpu);
  std::printf("GPU-CHECK tensorflowlite mobilenet_v2: %s, max |gpu-cpu| = %.4f over %zu logits, class %zu\n",
              device.c_str(), worst, gpu.size(), argmax(gpu));
}

// Contexts of one gpu graph computing in two threads at once (the plugin ABI allows it): each
// gets its single-threaded answer.
TEST(TfliteGpu, TwoContextsOnLavapipeInTwoThreads) {
  if (!icd_present()) GTEST_SKIP() << "Mesa 25.0's lavapipe is not installed (scripts/fetch-deps.sh lavapipe)";
  Backend b(api());
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {read_fixture("tflite/mobilenet_v2.tflite")}, g, d, WASINN_TARGET_GPU), WASINN_OK) << d.detail;
  const auto x = read_fixture("tflite/mobilenet_v2_input.f32");
  auto run = [&](std::vector<uint8_t>& out) {
    Context c(api(), g.ptr);
    Diag cd;
    for (int i = 0; i < 3; ++i) {
      if (set_input(api(), c.ptr, by_index(0), WASINN_TYPE_F32, {1, 224, 224, 3}, x, cd) != WASINN_OK ||
          api().compute(c.ptr, &cd) != WASINN_OK) {
        ADD_FAILURE() << cd.detail;
        return;
      }
      out = output_bytes(api(), c.ptr, by_index(0), WASINN_TYPE_F32);
    }
  };
  std::vector<uint8_t> serial, a, b2;
  run(serial);
  std::thread ta([&] { run(a); });
  std::thread tb([&] { run(b2); });
  ta.join();
  tb.join();
  ASSERT_EQ(serial.size(), 4000u);
  EXPECT_EQ(a, serial);
  EXPECT_EQ(b2, serial);
}

// The same through a guest: run_model loads with target gpu (witx load, target 1) on `wasinn
// run`, and `wasinn models inspect --target gpu` shows where it runs.
TEST(TfliteGpu, GuestOnLavapipeMatchesTheCpu) {
  if (!icd_present()) GTEST_SKIP() << "Mesa 25.0's lavapipe is not installed (scripts/fetch-deps.sh lavapipe)";
  auto run = [](const std::string& target) {
    const std::string out = scratch_dir("gpu_guest_" + target);
    const GuestRun r =
        run_guest({"--dir", fixtures_dir().string() + "::/f", "--dir", out + "::/o"}, "run_model",
                  {"--model", "/f/tflite/mobilenet_v2.tflite", "--encoding", "tensorflowlite", "--target", target,
                   "--input", "0:f32:1x224x224x3:/f/tflite/mobilenet_v2_input.f32", "--output", "0:/o/logits.f32"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return as_vector<float>(read_file(out + "/logits.f32"));
  };
  const auto cpu = run("cpu"), gpu = run("gpu");
  expect_gpu_near_cpu(gpu, cpu);
  const GuestRun inspect =
      run_wasinn({"models", "inspect", "--target", "gpu", (fixtures_dir() / "tflite/mobilenet_v2.tflite").string()},
                 "gpu_inspect");
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_TRUE(has(inspect.output, "device             gpu: WebGPU (Vulkan) llvmpipe")) << inspect.output;
}

TEST(TfliteGpu, NoDeviceGpuIsRefusedAndAutoRunsOnTheCpu) {
  const char* icd = std::getenv("VK_ICD_FILENAMES");
  if (icd_present() || !icd) GTEST_SKIP() << "this case runs with VK_ICD_FILENAMES naming no file";
  Backend b(api());
  // The device report: the CPU only, and why not gpu.
  ASSERT_EQ(api().backend_device_count(b.ptr), 1u);
  wasinn_device dev{};
  ASSERT_EQ(api().backend_device_info(b.ptr, 0, &dev), WASINN_OK);
  EXPECT_EQ(dev.target, WASINN_TARGET_CPU);
  const char* why = api().backend_target_unavailable(b.ptr, WASINN_TARGET_GPU);
  ASSERT_NE(why, nullptr);
  EXPECT_TRUE(has(why, "no Vulkan device for LiteRT's WebGPU accelerator")) << why;
  EXPECT_EQ(api().backend_target_unavailable(b.ptr, WASINN_TARGET_AUTO), nullptr);
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("tflite/mobilenet_v2.tflite")}, g, d, WASINN_TARGET_GPU),
            WASINN_UNSUPPORTED_OPERATION);
  EXPECT_TRUE(has(d.detail, why)) << "the load's reason is the report's: " << d.detail;
  EXPECT_EQ(g.ptr, nullptr);
  EXPECT_TRUE(has(d.detail, "no Vulkan device")) << d.detail;
  EXPECT_TRUE(has(d.detail, "use target cpu")) << d.detail;

  std::string device;
  const std::vector<float> auto_out = classify(b, WASINN_TARGET_AUTO, &device);
  EXPECT_EQ(device, "cpu");
  const std::vector<float> cpu = classify(b, WASINN_TARGET_CPU);
  EXPECT_EQ(auto_out, cpu) << "auto is the CPU here, bit for bit";
  // A guest's gpu load gets errno 6 (unsupported_operation) and the host prints the reason.
  const GuestRun r =
      run_guest({"--dir", fixtures_dir().string() + "::/f"}, "run_model",
                {"--model", "/f/tflite/mobilenet_v2.tflite", "--encoding", "tensorflowlite", "--target", "gpu"});
  EXPECT_EQ(r.exit_code, 6) << r.output;
  EXPECT_TRUE(has(r.output, "errno 6 in load")) << r.output;
  EXPECT_TRUE(has(r.output, "no Vulkan device")) << r.output;
}

}  // namespace
}  // namespace wasinn_test
