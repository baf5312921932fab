// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target gpu on ggml's Vulkan backend, on whatever Vulkan device the machine has (here Mesa's
// lavapipe, a real Vulkan device on the CPU), against native llama.cpp on the CPU. One binary,
// three ctest entries, each in the environment its suite needs (CMakeLists.txt):
//   LlamaGpu          GGML_VK_VISIBLE_DEVICES=0 admits lavapipe, which ggml skips by default
//   LlamaNoDevice     VK_ICD_FILENAMES=/nonexistent hides every Vulkan driver
//   LlamaCpuTypeOnly  the driver is there but GGML_VK_VISIBLE_DEVICES is not set
// Greedy text must equal the CPU's exactly: the tiny model's logits differ only in float
// rounding between the two, and with 16 tokens no two candidates come close enough to swap (if
// a future driver changes that, compare the first tokens and the logits instead).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "llama_native.h"
#include "plugin_harness.h"
#include "probe_run.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

const std::string kPrompt = "The quick brown fox jumps over the lazy dog. Once upon a time";
constexpr int kTokens = 16;
const std::string kGreedy = greedy_config(128, kTokens);

// Every line the plugin logs, down to debug, so llama.cpp's own placement lines can be checked.
class LogCapture {
 public:
  static void write(void* self, int32_t, const char* message, size_t length) {
    auto* c = static_cast<LogCapture*>(self);
    std::lock_guard lock(c->mu_);
    c->text_.append(message, length).push_back('\n');
  }
  std::string take() {
    std::lock_guard lock(mu_);
    return std::exchange(text_, {});
  }

 private:
  std::mutex mu_;
  std::string text_;
};
LogCapture& host_log() {
  static LogCapture capture;
  return capture;
}

const wasinn_backend_api& llama() {
  static const wasinn_backend_api& table = []() -> const wasinn_backend_api& {
    const wasinn_backend_api& t = plugin_api("llamacpp");
    const wasinn_log_sink sink{&host_log(), LogCapture::write, WASINN_LOG_TRACE};
    t.set_log_sink(&sink);
    return t;
  }();
  return table;
}

Backend& backend() {
  static Backend b(llama());
  return b;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Whether this process has mapped a library whose path contains `name`.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (has(line, name)) return true;
  return false;
}

struct Loaded {
  Graph graph;
  int status = -1;
  std::string detail;
};

Loaded load_tiny(int32_t target, const std::string& config = kGreedy) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.paths = {tiny_model()};
  args.target = target;
  args.config = config;
  Loaded r;
  Diag d;
  r.status = load(backend(), args, r.graph, d);
  r.detail = d.detail;
  return r;
}

std::string property(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < llama().graph_property_count(g.ptr); ++i) {
    wasinn_property p{};
    if (llama().graph_property_info(g.ptr, i, &p) == WASINN_OK && p.name == name) return p.value;
  }
  return "(no property " + name + ")";
}

// The backend's device report, "API TARGET NAME" per device.
std::vector<std::string> reported_devices() {
  std::vector<std::string> out;
  for (size_t i = 0; i < llama().backend_device_count(backend().ptr); ++i) {
    wasinn_device d{};
    EXPECT_EQ(llama().backend_device_info(backend().ptr, i, &d), WASINN_OK);
    out.push_back(std::string(d.api) + " " + (d.target == WASINN_TARGET_GPU ? "gpu " : "cpu ") + d.name);
  }
  return out;
}

std::string gpu_unavailable() {
  const char* why = llama().backend_target_unavailable(backend().ptr, WASINN_TARGET_GPU);
  return why ? why : "";
}

// Input 0 of `c` is the test's prompt.
void set_prompt(const Context& c) {
  const std::vector<uint8_t> prompt(kPrompt.begin(), kPrompt.end());
  Diag d;
  EXPECT_EQ(set_input(llama(), c.ptr, by_index(0), WASINN_TYPE_U8, {static_cast<uint32_t>(prompt.size())}, prompt, d),
            WASINN_OK)
      << d.detail;
}

std::string generate(const Graph& g) {
  Context c(llama(), g.ptr);
  set_prompt(c);
  Diag d;
  EXPECT_EQ(llama().compute(c.ptr, &d), WASINN_OK) << d.detail;
  const auto out = output_bytes(llama(), c.ptr, by_index(0), WASINN_TYPE_U8);
  return {out.begin(), out.end()};
}

// compute_single until the sequence ends, the pieces joined.
std::string stream(const Graph& g, int* end) {
  Context c(llama(), g.ptr);
  set_prompt(c);
  Diag d;
  std::string text;
  while ((*end = llama().compute_single(c.ptr, &d)) == WASINN_OK) {
    const wasinn_tensor_id id = by_index(0);
    wasinn_tensor t{};
    EXPECT_EQ(llama().get_output_single(c.ptr, &id, &t, &d), WASINN_OK) << d.detail;
    text.append(static_cast<const char*>(t.data), t.data_length);
  }
  return text;
}

const NativeRun& native_cpu() {
  static const NativeRun run = [] {
    NativeSettings s;
    s.n_ctx = 128;
    s.n_predict = kTokens;
    return native_generate(tiny_model(), kPrompt, s);
  }();
  return run;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Mesa's lavapipe registers this ICD manifest; without it this machine has no Vulkan device.
bool have_lavapipe() { return std::filesystem::exists("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"); }

class LlamaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (env("GGML_VK_VISIBLE_DEVICES").empty() || !env("VK_ICD_FILENAMES").empty())
      GTEST_SKIP() << "run by ctest as llamacpp_gpu_vulkan (GGML_VK_VISIBLE_DEVICES=0)";
    if (!have_lavapipe()) GTEST_SKIP() << "no Vulkan device: install mesa-vulkan-drivers (scripts/deps/vulkan.apt)";
    // Native llama.cpp shares this process's llama.cpp and sets its log callback: run it before
    // the plugin's backend exists, whose log router then takes the callback for good.
    native_cpu();
    // These tests name Vulkan0; a CUDA module's devices come first when it is there.
    const auto devices = reported_devices();
    if (devices.size() >= 2 && devices[1].rfind("Vulkan ", 0) != 0)
      GTEST_SKIP() << "the first GPU device is not a Vulkan one (" << devices[1] << "): LlamaGpuCheck covers it";
  }
};

// Any GPU: the check scripts/gpu-check.sh runs on an NVIDIA machine, and lavapipe here.
class LlamaGpuCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (env("GGML_VK_VISIBLE_DEVICES").empty() || !env("VK_ICD_FILENAMES").empty())
      GTEST_SKIP() << "run by ctest as llamacpp_gpu_vulkan (GGML_VK_VISIBLE_DEVICES=0)";
    native_cpu();  // before the plugin's backend exists, as in LlamaGpu
    if (!gpu_unavailable().empty()) GTEST_SKIP() << "no GPU device: " << gpu_unavailable();
  }
};

TEST_F(LlamaGpu, GreedyTextEqualsNativeCpuAndRunsOnVulkan) {
  host_log().take();
  Loaded r = load_tiny(WASINN_TARGET_GPU);
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  const std::string device = property(r.graph, "device");
  EXPECT_EQ(device.rfind("gpu: Vulkan0 (", 0), 0u) << device;
  // llama.cpp's own account of the load: every layer and the weights on the Vulkan device.
  const std::string log = host_log().take();
  EXPECT_TRUE(has(log, "offloaded 3/3 layers to GPU")) << log;
  EXPECT_TRUE(has(log, "Vulkan0 model buffer size")) << log;
  ASSERT_EQ(native_cpu().tokens.size(), static_cast<size_t>(kTokens));
  EXPECT_EQ(generate(r.graph), native_cpu().text());
  // The device report (backends --check): the CPU, then the Vulkan device(s) for gpu (more
  // devices follow on a machine with a real GPU or a CUDA module).
  const auto devices = reported_devices();
  ASSERT_GE(devices.size(), 2u);
  EXPECT_EQ(devices[0].rfind("CPU cpu CPU", 0), 0u) << devices[0];
  EXPECT_EQ(devices[1].rfind("Vulkan gpu Vulkan0 (", 0), 0u) << devices[1];
  EXPECT_EQ(gpu_unavailable(), "");
}

// What scripts/gpu-check.sh collects: the GPU's text against the CPU's, and the speed of each
// (on lavapipe a GPU is slower; on a real one this is the speedup).
TEST_F(LlamaGpuCheck, GreedyTextEqualsTheCpusAndTimesBoth) {
  Loaded cpu = load_tiny(WASINN_TARGET_CPU), gpu = load_tiny(WASINN_TARGET_GPU);
  ASSERT_EQ(cpu.status, WASINN_OK) << cpu.detail;
  ASSERT_EQ(gpu.status, WASINN_OK) << gpu.detail;
  auto timed = [](const Graph& g, double* ms) {
    const auto start = std::chrono::steady_clock::now();
    std::string text = generate(g);
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return text;
  };
  double cpu_ms = 0, gpu_ms = 0;
  const std::string cpu_text = timed(cpu.graph, &cpu_ms), gpu_text = timed(gpu.graph, &gpu_ms);
  EXPECT_EQ(gpu_text, cpu_text);
  std::printf(
      "GPU-CHECK llamacpp tiny.gguf, %d greedy tokens: %s, same text as the cpu: %s, cpu %.1f ms, gpu %.1f ms, "
      "speedup %.2fx\n",
      kTokens, property(gpu.graph, "device").c_str(), gpu_text == cpu_text ? "yes" : "NO", cpu_ms, gpu_ms,
      gpu_ms > 0 ? cpu_ms / gpu_ms : 0.0);
}

TEST_F(LlamaGpu, StreamingEqualsNativeCpu) {
  Loaded r = load_tiny(WASINN_TARGET_GPU);
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  int end = -1;
  EXPECT_EQ(stream(r.graph, &end), native_cpu().text());
  EXPECT_EQ(end, WASINN_END_OF_SEQUENCE);
}

TEST_F(LlamaGpu, CpuTargetCreatesNothingOnTheDeviceAndAutoTakesTheGpu) {
  host_log().take();
  Loaded cpu = load_tiny(WASINN_TARGET_CPU);
  ASSERT_EQ(cpu.status, WASINN_OK) << cpu.detail;
  EXPECT_EQ(property(cpu.graph, "device"), "cpu");
  const std::string log = host_log().take();
  EXPECT_FALSE(has(log, "Vulkan0")) << log;
  EXPECT_EQ(generate(cpu.graph), native_cpu().text());
  EXPECT_FALSE(has(host_log().take(), "Vulkan0"));

  Loaded automatic = load_tiny(WASINN_TARGET_AUTO);
  ASSERT_EQ(automatic.status, WASINN_OK) << automatic.detail;
  EXPECT_EQ(property(automatic.graph, "device").rfind("gpu: Vulkan0 (", 0), 0u);
  // auto with n-gpu-layers 0 asks for nothing on the GPU: the CPU.
  Loaded none = load_tiny(WASINN_TARGET_AUTO, R"({"n-gpu-layers": 0})");
  ASSERT_EQ(none.status, WASINN_OK) << none.detail;
  EXPECT_EQ(property(none.graph, "device"), "cpu");
}

TEST_F(LlamaGpu, PartialOffloadAndMainGpu) {
  host_log().take();
  std::string partial = greedy_config(128, kTokens);
  partial.insert(1, "\"n-gpu-layers\": 1, ");
  Loaded one = load_tiny(WASINN_TARGET_GPU, partial);
  ASSERT_EQ(one.status, WASINN_OK) << one.detail;
  EXPECT_TRUE(has(property(one.graph, "device"), ", 1 layers offloaded")) << property(one.graph, "device");
  const std::string log = host_log().take();
  EXPECT_TRUE(has(log, "offloaded 1/3 layers to GPU")) << log;
  EXPECT_EQ(generate(one.graph), native_cpu().text());

  Loaded main0 = load_tiny(WASINN_TARGET_GPU, R"({"main-gpu": 0})");
  EXPECT_EQ(main0.status, WASINN_OK) << main0.detail;
  Loaded main7 = load_tiny(WASINN_TARGET_GPU, R"({"main-gpu": 7})");
  EXPECT_EQ(main7.status, WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(main7.detail, "main-gpu 7 names no GPU device; this process has 0: Vulkan0 (")) << main7.detail;
  Loaded zero = load_tiny(WASINN_TARGET_GPU, R"({"n-gpu-layers": 0})");
  EXPECT_EQ(zero.status, WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(zero.detail, "load with target cpu")) << zero.detail;
}

// The WIT path: a component guest on `wasinn run`, the model registered for target gpu, and what
// `models inspect --target gpu` says about where it runs.
TEST_F(LlamaGpu, WitComponentOnGpuEqualsNativeCpu) {
  const std::string in = scratch_dir("llama_gpu_wit_in");
  const std::string config = greedy_config(128, kTokens);
  write_file(in + "/prompt.txt", std::vector<uint8_t>(kPrompt.begin(), kPrompt.end()));
  write_file(in + "/config.json", std::vector<uint8_t>(config.begin(), config.end()));
  // The load check runs in a child as usual, its verdict kept for this run only: the on-disk
  // verdict cache's key holds no environment, so another case's refusal could answer for it.
  // At debug level llama.cpp says where the layers went; the plugin says so from info up.
  std::vector<std::string> host = {"--dir",
                                   in + "::/in",
                                   "--log-level",
                                   "debug",
                                   "--isolated-load-cache",
                                   "memory",
                                   "--nn-preload",
                                   "tinygpu:GGML:GPU:" + tiny_model()};
  const WitModelRun run =
      run_wit_model("llama_gpu_wit", host,
                    {"--name", "tinygpu", "--input",
                     wit_input("prompt", "u8", {static_cast<uint32_t>(kPrompt.size())}, "/in/prompt.txt"), "--input",
                     wit_input("metadata", "u8", {static_cast<uint32_t>(config.size())}, "/in/config.json")});
  ASSERT_EQ(run.run.exit_code, 0) << run.run.output;
  ASSERT_FALSE(run.outputs.empty()) << run.run.output;
  EXPECT_EQ(std::string(run.outputs[0].data.begin(), run.outputs[0].data.end()), native_cpu().text());
  EXPECT_TRUE(has(run.run.output, "runs on gpu: Vulkan0 (")) << run.run.output;
  EXPECT_TRUE(has(run.run.output, "offloaded 3/3 layers to GPU")) << run.run.output;

  // In process (no load check): `inspect` has no option to keep verdicts out of the disk cache.
  const GuestRun inspect =
      run_wasinn_split({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--isolate-loads", "never", "--json",
                        "--target", "gpu", "--encoding", "ggml", tiny_model()},
                       "llama_gpu_inspect");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.output << inspect.errors;
  const auto j = nlohmann::json::parse(inspect.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << inspect.output;
  EXPECT_TRUE(has(j["properties"].dump(), "gpu: Vulkan0 (")) << j["properties"].dump();
}

// No Vulkan driver at all: gpu is refused with the reason, auto and cpu run on the CPU.
class LlamaNoDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (env("VK_ICD_FILENAMES") != "/nonexistent")
      GTEST_SKIP() << "run by ctest as llamacpp_gpu_nodevice (VK_ICD_FILENAMES=/nonexistent)";
  }
};

TEST_F(LlamaNoDevice, GpuIsUnsupportedWithTheReasonAndAutoRunsOnTheCpu) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "a GPU without Vulkan (a CUDA module's device) is there";
  Loaded gpu = load_tiny(WASINN_TARGET_GPU);
  EXPECT_EQ(gpu.status, WASINN_UNSUPPORTED_OPERATION);
  EXPECT_TRUE(has(gpu.detail, "target gpu: no GPU device: Vulkan: ")) << gpu.detail;
  EXPECT_TRUE(has(gpu.detail, "the Vulkan loader found no driver (VK_ICD_FILENAMES=/nonexistent)")) << gpu.detail;
  EXPECT_TRUE(has(gpu.detail, "load with target cpu or auto")) << gpu.detail;
  EXPECT_FALSE(gpu.graph.ptr);
  // backends --check says the same, and lists the CPU alone.
  EXPECT_TRUE(has(gpu.detail, gpu_unavailable())) << gpu_unavailable();
  EXPECT_TRUE(has(gpu_unavailable(), "VK_ICD_FILENAMES=/nonexistent")) << gpu_unavailable();
  ASSERT_EQ(reported_devices().size(), 1u);
  EXPECT_EQ(reported_devices()[0].rfind("CPU cpu ", 0), 0u);

  Loaded automatic = load_tiny(WASINN_TARGET_AUTO);
  ASSERT_EQ(automatic.status, WASINN_OK) << automatic.detail;
  EXPECT_EQ(property(automatic.graph, "device"), "cpu");
  EXPECT_EQ(generate(automatic.graph), native_cpu().text());
  Loaded cpu = load_tiny(WASINN_TARGET_CPU);
  ASSERT_EQ(cpu.status, WASINN_OK) << cpu.detail;
  int end = -1;
  EXPECT_EQ(stream(cpu.graph, &end), native_cpu().text());

  Loaded tpu = load_tiny(WASINN_TARGET_TPU);
  EXPECT_EQ(tpu.status, WASINN_UNSUPPORTED_OPERATION);
  EXPECT_TRUE(has(tpu.detail, "no TPU backend")) << tpu.detail;
}

// The same refusal through the host: `models inspect --target gpu` fails with the reason.
TEST_F(LlamaNoDevice, InspectForGpuIsRefused) {
  const GuestRun inspect =
      run_wasinn_split({"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--isolate-loads", "never", "--json",
                        "--target", "gpu", "--encoding", "ggml", tiny_model()},
                       "llama_nodevice_inspect");
  EXPECT_NE(inspect.exit_code, 0);
  EXPECT_TRUE(has(inspect.errors, "no GPU device")) << inspect.output << inspect.errors;
}

// Mesa's lavapipe is there but ggml skips CPU-type devices unless told: the refusal says how.
class LlamaCpuTypeOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!env("GGML_VK_VISIBLE_DEVICES").empty() || !env("VK_ICD_FILENAMES").empty())
      GTEST_SKIP() << "run by ctest as llamacpp_gpu_cputype (neither variable set)";
    if (!have_lavapipe()) GTEST_SKIP() << "no Vulkan device: install mesa-vulkan-drivers (scripts/deps/vulkan.apt)";
  }
};

// First in its process: cpu loads and computes never load a GPU module, so no Vulkan instance and
// no driver (lavapipe's LLVM) ever come into a process that runs on the CPU only.
TEST_F(LlamaCpuTypeOnly, CpuLoadsLoadNoGpuModule) {
  Loaded cpu = load_tiny(WASINN_TARGET_CPU);
  ASSERT_EQ(cpu.status, WASINN_OK) << cpu.detail;
  EXPECT_EQ(generate(cpu.graph), native_cpu().text());
  EXPECT_FALSE(mapped("libggml-vulkan.so"));
  EXPECT_FALSE(mapped("libvulkan_lvp.so"));
  EXPECT_GE(llama().backend_device_count(backend().ptr), 1u);  // the report loads them
  EXPECT_TRUE(mapped("libggml-vulkan.so"));
}

TEST_F(LlamaCpuTypeOnly, GpuRefusalNamesTheDeviceAndTheSwitch) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "ggml found a GPU it takes without being told: not lavapipe alone";
  Loaded gpu = load_tiny(WASINN_TARGET_GPU);
  EXPECT_EQ(gpu.status, WASINN_UNSUPPORTED_OPERATION);
  EXPECT_TRUE(has(gpu.detail, "Vulkan lists only CPU-type devices (0: llvmpipe")) << gpu.detail;
  EXPECT_TRUE(has(gpu.detail, "GGML_VK_VISIBLE_DEVICES=0")) << gpu.detail;
  Loaded automatic = load_tiny(WASINN_TARGET_AUTO);
  ASSERT_EQ(automatic.status, WASINN_OK) << automatic.detail;
  EXPECT_EQ(property(automatic.graph, "device"), "cpu");
}

}  // namespace
}  // namespace wasinn_test
