// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "model_cases.h"

#include <algorithm>
#include <fmt/format.h>

#include "output_check.h"

namespace wasinn::bench {

namespace {

namespace fs = std::filesystem;

std::optional<std::vector<float>> read_f32(const fs::path& file, size_t count, std::string* error) {
  auto bytes = read_bytes(file.string(), error);
  if (!bytes) return std::nullopt;
  if (bytes->size() < count * sizeof(float)) {
    if (error)
      *error = fmt::format("{} holds {} bytes, fewer than the {} floats needed", file.string(), bytes->size(), count);
    return std::nullopt;
  }
  auto values = as_f32(*bytes);
  values.resize(count);
  return values;
}

// 300 samples at least: the ratio target is 2%, and one preempted 30 ms run is more than that.
ModelCase mobilenet() {
  ModelCase c{"mobilenet_v2", "mobilenet_v2/model.onnx", {1, 3, 224, 224}, 1, 300, {}, {}};
  c.input = [](const fs::path& fx, std::string* error) {
    return read_f32(fx / "mobilenet_v2/input.f32", 3 * 224 * 224, error);
  };
  // expected.f32 is PyTorch's output for the same input; the backend tests use the same bound.
  c.check = [](const fs::path& fx, std::span<const uint8_t> out, std::string* detail) {
    auto want = read_bytes((fx / "mobilenet_v2/expected.f32").string(), detail);
    return want && f32_close(out, *want, 1e-3, 0, detail);
  };
  return c;
}

ModelCase digits() {
  ModelCase c{"digits", "digits/model.onnx", {1, 64}, 25, 40, {}, {}};
  c.input = [](const fs::path& fx, std::string* error) { return read_f32(fx / "digits/test_x.f32", 64, error); };
  // The first held-out digit: the trained classifier's top logit must be its label.
  c.check = [](const fs::path& fx, std::span<const uint8_t> out, std::string* detail) {
    auto labels = read_bytes((fx / "digits/test_y.u8").string(), detail);
    if (!labels || labels->empty()) return false;
    const auto logits = as_f32(out);
    if (logits.size() != 10) {
      if (detail) *detail = fmt::format("expected 10 logits, got {}", logits.size());
      return false;
    }
    const auto top = std::max_element(logits.begin(), logits.end()) - logits.begin();
    if (top == (*labels)[0]) return true;
    if (detail) *detail = fmt::format("predicted {}, the label is {}", top, (*labels)[0]);
    return false;
  };
  return c;
}

ModelCase tiny() {
  ModelCase c{"tiny", "tiny/model.onnx", {1, 4}, 25, 40, {}, {}};
  c.input = [](const fs::path&, std::string*) { return std::optional(std::vector<float>{0.5f, -1.25f, 2, 1000}); };
  // y = x + [1, 2, 3, 4], exact in f32 for these values.
  c.check = [](const fs::path&, std::span<const uint8_t> out, std::string* detail) {
    const std::vector<float> want{1.5f, 0.75f, 5, 1004};
    const auto* p = reinterpret_cast<const uint8_t*>(want.data());
    return f32_close(out, std::span<const uint8_t>(p, want.size() * sizeof(float)), 0, 0, detail);
  };
  return c;
}

}  // namespace

std::vector<ModelCase> onnxruntime_cases() { return {mobilenet(), digits(), tiny()}; }

}  // namespace wasinn::bench
