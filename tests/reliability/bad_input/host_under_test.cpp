// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_under_test.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace wasinn::bad_input {

namespace fs = std::filesystem;

std::string_view abi_name(Abi abi) {
  switch (abi) {
    case Abi::ephemeral: return "wasi_ephemeral_nn";
    case Abi::legacy: return "wasi_nn (legacy)";
    case Abi::wit: return "wasi:nn (WIT)";
  }
  return "?";
}

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::none: return "none (host)";
    case Backend::onnxruntime: return "onnxruntime";
    case Backend::openvino: return "openvino";
    case Backend::pytorch: return "pytorch";
    case Backend::tensorflowlite: return "tensorflowlite";
    case Backend::tensorflow: return "tensorflow";
    case Backend::llamacpp: return "llamacpp";
    case Backend::whisper: return "whisper";
    case Backend::piper: return "piper";
  }
  return "?";
}

uint32_t witx_encoding(Backend backend) {
  switch (backend) {
    case Backend::openvino: return 0;
    case Backend::onnxruntime: return 1;
    case Backend::tensorflow: return 2;
    case Backend::pytorch: return 3;
    case Backend::tensorflowlite: return 4;
    case Backend::llamacpp: return 6;  // WasmEdge's ggml
    case Backend::whisper: return 9;   // WasmEdge's whisper
    case Backend::piper: return 11;    // WasmEdge's piper
    case Backend::none: return 1;
  }
  return 1;
}

namespace {

Encoding encoding_of(Backend backend) {
  switch (backend) {
    case Backend::openvino: return Encoding::openvino;
    case Backend::tensorflow: return Encoding::tensorflow;
    case Backend::pytorch: return Encoding::pytorch;
    case Backend::tensorflowlite: return Encoding::tensorflowlite;
    case Backend::llamacpp: return Encoding::ggml;
    case Backend::whisper: return Encoding::whisper;
    case Backend::piper: return Encoding::piper;
    default: return Encoding::onnx;
  }
}

fs::path fixtures_root() {
  const char* env = std::getenv("WASINN_FIXTURES");
  return env && *env ? fs::path(env) : fs::path(WASINN_FIXTURES_DEFAULT);
}

size_t argmax(const float* v, size_t n) { return static_cast<size_t>(std::max_element(v, v + n) - v); }

}  // namespace

namespace {
bool g_load_isolation = false;
}  // namespace

void HostUnderTest::set_load_isolation(bool on) { g_load_isolation = on; }
bool HostUnderTest::load_isolation() { return g_load_isolation; }

HostUnderTest& HostUnderTest::get() {
  static HostUnderTest host;
  return host;
}

HostUnderTest::HostUnderTest() {
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_BACKEND_DIR};
  // One framework thread each: the matrix shares two cores with the rest of the suite.
  options.backend_configs = {{"onnxruntime", R"({"intra_op_threads": 1})"}, {"openvino", R"({"num_threads": 1})"}};
  if (g_load_isolation) options.isolation.mode = IsolationMode::by_manifest;
  env_ = wire_environment(std::move(options)).env;
  session_ = std::make_unique<NnSession>(env_);
  if (fs::exists(fixture_path("digits/model.onnx"))) {
    add_named(kDigitsOnnx, Encoding::onnx, {fixture_path("digits/model.onnx")});
  }
  if (fs::exists(fixture_path("llama/tiny.gguf"))) {
    add_named(kTinyLlama, Encoding::ggml, {fixture_path("llama/tiny.gguf")});
  }
  if (fs::exists(fixture_path("whisper/tiny-en.bin"))) {
    add_named(kTinyWhisper, Encoding::whisper, {fixture_path("whisper/tiny-en.bin")});
  }
  // Its config piper/tiny.onnx.json beside it, as an operator registers a voice.
  if (fs::exists(fixture_path("piper/tiny.onnx"))) {
    add_named(kTinyPiper, Encoding::piper, {fixture_path("piper/tiny.onnx")});
  }
}

fs::path HostUnderTest::fixture_path(const std::string& relative) const { return fixtures_root() / relative; }

const std::vector<uint8_t>& HostUnderTest::fixture(const std::string& relative) {
  auto it = files_.find(relative);
  if (it == files_.end()) it = files_.emplace(relative, wasinn_it::read_bytes(wasinn_it::fixture(relative))).first;
  return it->second;
}

const std::vector<float>& HostUnderTest::logits(const std::string& relative) {
  auto it = logits_.find(relative);
  if (it == logits_.end()) {
    const auto& bytes = fixture(relative);
    std::vector<float> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
    it = logits_.emplace(relative, std::move(v)).first;
  }
  return it->second;
}

std::vector<std::string> HostUnderTest::digits_model(Backend backend) {
  switch (backend) {
    case Backend::openvino: return {"digits/openvino/model.xml", "digits/openvino/model.bin"};
    case Backend::pytorch: return {"digits/model.pt"};
    case Backend::tensorflowlite: return {"tflite/digits_f32.tflite"};
    case Backend::tensorflow: return {"tensorflow/digits_frozen.pb"};
    case Backend::llamacpp:
    case Backend::whisper:
    case Backend::piper: return {};
    default: return {"digits/model.onnx"};
  }
}

Backend HostUnderTest::digits_backend(Backend backend) {
  return digits_model(backend).empty() || backend == Backend::none ? Backend::onnxruntime : backend;
}

std::string HostUnderTest::recorded_logits(Backend backend) {
  if (backend == Backend::tensorflowlite) return "tflite/digits_f32_expected.f32";
  if (backend == Backend::tensorflow) return "tensorflow/digits_frozen_expected.f32";
  return {};
}

std::string HostUnderTest::unavailable(Backend backend) {
  if (backend == Backend::none) backend = Backend::onnxruntime;
  if (auto it = unavailable_.find(backend); it != unavailable_.end()) return it->second;
  std::string why;
  const fs::path manifest = fs::path(WASINN_BACKEND_DIR) / (std::string(backend_name(backend)) + ".json");
  if (!fs::exists(manifest)) {
    why = "no plugin manifest " + manifest.string() + " (backend not built)";
  } else if (auto plugin = env_->backends().backend_for(encoding_of(backend)); !plugin) {
    why = "the plugin does not open: " + plugin.error().detail;
  } else {
    auto files = digits_model(backend);
    if (backend == Backend::llamacpp) files = {"llama/tiny.gguf", "llama/truncated.gguf"};
    if (backend == Backend::whisper) files = {"whisper/tiny-en.bin", "whisper/speech.wav"};
    if (backend == Backend::piper)
      files = {"piper/tiny.onnx", "piper/tiny.onnx.json", "piper/speakers.onnx", "piper/reference.json",
               "piper/ref-welcome.wav"};
    files.push_back("digits/test_x.f32");
    for (const auto& f : files) {
      if (!fs::exists(fixture_path(f))) {
        why = "fixture " + fixture_path(f).string() + " is missing (scripts/make_fixtures.py)";
        break;
      }
    }
  }
  unavailable_[backend] = why;
  return why;
}

const Digit& HostUnderTest::digit(uint32_t n) {
  if (digits_.empty()) {
    const auto& x = fixture("digits/test_x.f32");
    const auto& y = fixture("digits/test_y.u8");
    // Samples every recorded model output gets right; a misclassified sample would make a
    // healthy host look broken.
    std::vector<const std::vector<float>*> recorded;
    for (Backend b : {Backend::tensorflowlite, Backend::tensorflow}) {
      if (fs::exists(fixture_path(recorded_logits(b)))) recorded.push_back(&logits(recorded_logits(b)));
    }
    for (uint32_t i = 0; i < y.size() && (i + 1) * 64 * 4 <= x.size(); ++i) {
      bool agreed = true;
      for (const auto* l : recorded) agreed = agreed && argmax(l->data() + i * 10, 10) == y[i];
      if (!agreed) continue;
      Digit d{i, std::vector<float>(64), y[i]};
      std::memcpy(d.pixels.data(), x.data() + i * 64 * 4, 64 * 4);
      digits_.push_back(std::move(d));
    }
    if (digits_.empty()) throw std::runtime_error("no digits sample is classified correctly by the recorded outputs");
  }
  return digits_[n % digits_.size()];
}

void HostUnderTest::add_named(const std::string& name, Encoding encoding, std::vector<fs::path> paths) {
  if (env_->models().contains(name)) return;
  NamedModel model;
  model.name = name;
  model.encoding = encoding;
  model.paths = std::move(paths);
  if (auto st = env_->models().add(std::move(model)); !st) throw std::runtime_error(st.error().detail);
}

}  // namespace wasinn::bad_input
