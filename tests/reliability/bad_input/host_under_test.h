// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// HostUnderTest: the one NnEnvironment (the build's real backend plugins) and the one guest
// NnSession that every bad-input case and every follow-up valid request runs against, plus the
// fixture files and digit samples the cases use. Created on first use, lives for the process.
// Not thread-safe: the matrix runs its cases one after another.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/nn_environment.h"
#include "root/wired_environment.h"
#include "core/nn_session.h"
#include "test_env.h"

namespace wasinn::bad_input {

enum class Abi { ephemeral, legacy, wit };
// none: the host rejects the input before any backend sees it.
enum class Backend { none, onnxruntime, openvino, pytorch, tensorflowlite, tensorflow, llamacpp, whisper, piper };

std::string_view abi_name(Abi abi);
std::string_view backend_name(Backend backend);
// The witx graph_encoding value a guest passes for the backend's models.
uint32_t witx_encoding(Backend backend);

// A test sample every digits model classifies as its label.
struct Digit {
  uint32_t index;             // row in digits/test_x.f32
  std::vector<float> pixels;  // 64 values in [0, 1]
  uint8_t label;
};

class HostUnderTest {
 public:
  static HostUnderTest& get();
  // Before the first get(): loads of the backends marked isolate_load run in a checked child
  // first, as `wasinn run` does by default (--isolate-loads=auto). Off: the frameworks are seen
  // in this process, and cases that crash one are not run.
  static void set_load_isolation(bool on);
  static bool load_isolation();

  NnEnvironment& env() { return *env_; }
  const std::shared_ptr<NnEnvironment>& shared_env() { return env_; }
  NnSession& session() { return *session_; }

  // Why `backend` cannot be exercised here ("" when it can): no manifest, a plugin that fails
  // to open, or a missing fixture.
  std::string unavailable(Backend backend);

  std::filesystem::path fixture_path(const std::string& relative) const;
  const std::vector<uint8_t>& fixture(const std::string& relative);
  // The digits model files of a backend, in builder order (empty for llamacpp, whisper, piper).
  static std::vector<std::string> digits_model(Backend backend);
  // The backend whose digits model a case's valid request and setup use: ONNX Runtime for the
  // host and for the backends that serve no digits model.
  static Backend digits_backend(Backend backend);
  // Logits the fixture generator recorded for every test sample (TFLite, TensorFlow), else empty.
  static std::string recorded_logits(Backend backend);
  const std::vector<float>& logits(const std::string& relative);

  // The n-th correctly classified sample, cycling through them.
  const Digit& digit(uint32_t n);

  // A directory for files crafted at test time; removed when the process ends.
  std::filesystem::path scratch() const { return scratch_.path(); }
  // Registers a named model (as --nn-preload does) unless one of that name exists.
  void add_named(const std::string& name, Encoding encoding, std::vector<std::filesystem::path> paths);

  // Named models every run registers.
  static constexpr const char* kDigitsOnnx = "digits";         // digits/model.onnx, onnx
  static constexpr const char* kTinyLlama = "tiny";            // llama/tiny.gguf, ggml
  static constexpr const char* kTinyWhisper = "tiny-whisper";  // whisper/tiny-en.bin, whisper
  static constexpr const char* kTinyPiper = "tiny-piper";      // piper/tiny.onnx (+ .json), piper

 private:
  HostUnderTest();
  std::shared_ptr<NnEnvironment> env_;
  std::unique_ptr<NnSession> session_;
  wasinn_it::ScratchDir scratch_;
  std::map<std::string, std::vector<uint8_t>> files_;
  std::map<std::string, std::vector<float>> logits_;
  std::vector<Digit> digits_;
  std::map<Backend, std::string> unavailable_;
};

}  // namespace wasinn::bad_input
