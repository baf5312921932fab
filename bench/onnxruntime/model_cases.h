// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The models the ONNX Runtime benchmark measures, each with its input and its known answer,
// all taken from the fixtures scripts/make_fixtures.py writes. Plain values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace wasinn::bench {

struct ModelCase {
  std::string name;            // the table's row label
  std::string model;           // the .onnx file, relative to the fixtures directory
  std::vector<uint32_t> dims;  // the shape of input 0, an f32 tensor
  uint32_t calls_per_sample;   // inferences per timed sample: amortizes entering the guest
  size_t min_samples;          // per side, whatever --seconds says: a slow model needs more
  // The input values (or nullopt with *error set).
  std::function<std::optional<std::vector<float>>(const std::filesystem::path& fixtures, std::string* error)> input;
  // Whether output 0 is the known answer for that input; *detail says how it is not.
  std::function<bool(const std::filesystem::path& fixtures, std::span<const uint8_t> output, std::string* detail)>
      check;
};

// mobilenet_v2 (the ratio target), digits (a small MLP), tiny (per-call overhead).
std::vector<ModelCase> onnxruntime_cases();

}  // namespace wasinn::bench
