// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target gpu on a machine with no GPU device at all, through the embedding API
// (include/wasinn/host.h), for every backend: ctest runs this with the Vulkan driver hidden
// (VK_ICD_FILENAMES / VK_DRIVER_FILES naming no file) and CUDA's devices hidden
// (CUDA_VISIBLE_DEVICES empty), tests/integration/CMakeLists.txt.
//   - a gpu load is UNSUPPORTED_OPERATION with a reason, never a crash and never a model that
//     quietly runs on the CPU;
//   - an auto load says it runs on the CPU (its "device" property), and a guest's auto run gives
//     the right answer: the reference digits' labels for the classifiers, the target-cpu answer
//     for the generative models (llama.cpp, whisper.cpp).
// A backend that is not built here is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_env.h"
#include "wasinn/host.h"

namespace wasinn_it {
namespace {

struct Row {
  std::string backend;
  std::string encoding;              // for inspect_model and run_model's --encoding
  std::vector<std::string> files;    // fixture paths, relative to the fixtures directory
  std::vector<std::string> reasons;  // words the refusal must hold (besides "gpu")
};

// The classifiers of the reference digits (64 features, 10 classes), one row per framework.
const std::vector<Row>& classifiers() {
  static const std::vector<Row> rows = {
      {"onnxruntime", "onnx", {"digits/model.onnx"}, {}},
      {"openvino", "openvino", {"digits/openvino/model.xml", "digits/openvino/model.bin"}, {"GPU"}},
      {"pytorch", "pytorch", {"digits/model.pt"}, {"CUDA"}},
      {"tensorflow", "tensorflow", {"tensorflow/digits_frozen.pb"}, {"CPU-only"}},
      {"tensorflowlite", "tensorflowlite", {"tflite/digits_f32.tflite"}, {"no Vulkan device"}},
  };
  return rows;
}

const Row kLlama{"llamacpp", "ggml", {"llama/tiny.gguf"}, {}};
const Row kWhisper{"whisper", "whisper", {"whisper/tiny-en.bin"}, {"CPU only"}};

class GpuTargets : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    wasinn::HostOptions options;
    options.backend_dirs = {backend_dir().string()};
    // In this process: a framework that crashes on a gpu load must fail the test, not be
    // contained by the load isolation.
    options.isolate_loads = "never";
    std::string error;
    host_ = wasinn::Host::create(options, &error).release();
    ASSERT_NE(host_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }

  // Skips unless this build has the backend's plugin, and unless the devices are really hidden.
  void require(const Row& row) {
    const char* icd = std::getenv("VK_ICD_FILENAMES");
    if (!icd || fs::exists(icd)) GTEST_SKIP() << "runs with VK_ICD_FILENAMES naming no file (ctest sets it)";
    for (const auto& b : host_->list_backends())
      if (b.name == row.backend && b.library_found) return;
    GTEST_SKIP() << row.backend << " is not built here";
  }

  static std::vector<std::string> paths(const Row& row) {
    std::vector<std::string> out;
    for (const auto& f : row.files) out.push_back(fixture(f).string());
    return out;
  }

  // The backend's device report (`backends --check`) lists no gpu device and says why, for
  // backends that report devices; then a gpu load of the row's model is refused, with its reason.
  void expect_gpu_refused(const Row& row) {
    for (const auto& b : host_->probe_backends()) {
      if (b.name != row.backend || b.devices.empty()) continue;
      for (const auto& d : b.devices) EXPECT_NE(d.target, "gpu") << row.backend << ": " << d.name;
      bool said = false;
      for (const auto& [target, why] : b.unavailable_targets) said |= target == "gpu" && !why.empty();
      EXPECT_TRUE(said) << row.backend << " reports devices but not why gpu is unavailable";
    }
    wasinn::ModelInfo info;
    std::string error;
    EXPECT_FALSE(host_->inspect_model(paths(row), row.encoding, &info, &error, "gpu"))
        << row.backend << " loaded for gpu on a machine without one; device: " << device_of(info);
    EXPECT_EQ(error.rfind("unsupported_operation", 0), 0u) << row.backend << ": " << error;
    std::string lower = error;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    EXPECT_NE(lower.find("gpu"), std::string::npos) << row.backend << ": " << error;
    for (const auto& word : row.reasons)
      EXPECT_NE(error.find(word), std::string::npos) << row.backend << " should say " << word << ": " << error;
  }

  // An auto load of the row's model reports the CPU.
  void expect_auto_on_cpu(const Row& row) {
    wasinn::ModelInfo info;
    std::string error;
    ASSERT_TRUE(host_->inspect_model(paths(row), row.encoding, &info, &error, "auto")) << row.backend << ": " << error;
    EXPECT_EQ(device_of(info), "cpu") << row.backend;
  }

  static std::string device_of(const wasinn::ModelInfo& info) {
    for (const auto& p : info.properties)
      if (p.name == "device") return p.value;
    return "<no device property>";
  }

  // A guest's whole standard output.
  static wasinn::RunOutcome run(wasinn::Program program, std::string& out) {
    out.clear();
    program.on_stdout = [&out](std::string_view s) { out.append(s); };
    return host_->run(program);
  }

  static wasinn::Host* host_;
};

wasinn::Host* GpuTargets::host_ = nullptr;

TEST_F(GpuTargets, ClassifiersRefuseGpuAndRunAutoOnTheCpu) {
  constexpr size_t kRows = 10, kFeatures = 64, kClasses = 10;
  const char* icd = std::getenv("VK_ICD_FILENAMES");
  if (!icd || fs::exists(icd)) GTEST_SKIP() << "runs with VK_ICD_FILENAMES naming no file (ctest sets it)";
  ScratchDir dir;
  const auto x = read_array<float>(fixture("digits/test_x.f32"));
  const auto labels = read_bytes(fixture("digits/test_y.u8"));
  ASSERT_GE(x.size(), kRows * kFeatures);
  write_bytes(dir / "x.f32", x.data(), kRows * kFeatures * sizeof(float));
  for (const Row& row : classifiers()) {
    SCOPED_TRACE(row.backend);
    bool built = false;
    for (const auto& b : host_->list_backends()) built |= b.name == row.backend && b.library_found;
    if (!built) continue;  // the others still run; each row stands alone
    expect_gpu_refused(row);
    expect_auto_on_cpu(row);

    wasinn::Program p;
    p.wasm_path = guest("run_model");
    std::string models;
    for (const auto& f : row.files) models += (models.empty() ? "" : ",") + ("/f/" + f);
    p.args = {"--model", models,    "--encoding",           row.encoding, "--target",
              "auto",    "--input", "0:f32:10x64:/o/x.f32", "--output",   "0:/o/" + row.backend + ".f32"};
    p.dirs = {{fixture("").string(), "/f"}, {dir.path().string(), "/o"}};
    std::string out;
    const auto r = run(p, out);
    ASSERT_EQ(r.exit_code, 0) << out << r.message;
    const auto logits = read_array<float>(dir / (row.backend + ".f32"));
    ASSERT_EQ(logits.size(), kRows * kClasses);
    for (size_t i = 0; i < kRows; ++i) {
      const auto* l = logits.data() + i * kClasses;
      EXPECT_EQ(static_cast<size_t>(std::max_element(l, l + kClasses) - l), labels[i]) << "digit " << i;
    }
  }
}

TEST_F(GpuTargets, LlamaRefusesGpuAndRunsAutoOnTheCpu) {
  require(kLlama);
  expect_gpu_refused(kLlama);
  expect_auto_on_cpu(kLlama);
  // auto's greedy answer is the CPU's.
  auto answer = [&](const std::string& target) {
    wasinn::HostOptions options;
    options.backend_dirs = {backend_dir().string()};
    options.isolate_loads = "never";
    options.preloads = {"tiny:GGML:" + target + ":" + fixture("llama/tiny.gguf").string()};
    std::string error;
    auto host = wasinn::Host::create(options, &error);
    EXPECT_TRUE(host) << error;
    if (!host) return std::string();
    wasinn::Program p;
    p.wasm_path = guest("chat");
    p.args = {"--name", "tiny", "--config", R"({"temp": 0, "ctx-size": 128, "n-predict": 12, "threads": 1})",
              "Once",   "upon", "a",        "time"};
    std::string out;
    p.on_stdout = [&out](std::string_view s) { out.append(s); };
    const auto r = host->run(p);
    EXPECT_EQ(r.exit_code, 0) << out << r.message;
    return out;
  };
  const std::string cpu = answer("CPU");
  EXPECT_FALSE(cpu.empty());
  EXPECT_EQ(answer("AUTO"), cpu);
}

TEST_F(GpuTargets, WhisperRefusesGpuAndRunsAutoOnTheCpu) {
  require(kWhisper);
  expect_gpu_refused(kWhisper);
  expect_auto_on_cpu(kWhisper);
  auto transcript = [&](const std::string& target) {
    wasinn::HostOptions options;
    options.backend_dirs = {backend_dir().string()};
    options.isolate_loads = "never";
    options.preloads = {"default:Whisper:" + target + ":" + fixture("whisper/tiny-en.bin").string()};
    std::string error;
    auto host = wasinn::Host::create(options, &error);
    EXPECT_TRUE(host) << error;
    if (!host) return std::string();
    wasinn::Program p;
    p.wasm_path = guest("transcribe");
    p.args = {"--config", R"({"threads": 2, "beam-size": 1, "best-of": 1, "temperature-inc": 0})", "/w/speech.wav"};
    p.dirs = {{fixture("whisper").string(), "/w"}};
    std::string out;
    p.on_stdout = [&out](std::string_view s) { out.append(s); };
    const auto r = host->run(p);
    EXPECT_EQ(r.exit_code, 0) << out << r.message;
    return out;
  };
  const std::string cpu = transcript("CPU");
  EXPECT_NE(cpu.find("--- transcript"), std::string::npos) << cpu;
  EXPECT_EQ(transcript("AUTO"), cpu);
}

}  // namespace
}  // namespace wasinn_it
