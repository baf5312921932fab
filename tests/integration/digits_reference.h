// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The digits model's known answers for tests that run it through a guest: native ONNX
// Runtime's logits for every held-out row (one intra-op thread, a batch of 1 per row, as the
// guests run it) and the count of rows a set of logits classifies right.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wasinn_it {

inline constexpr size_t kDigitFeatures = 64, kDigitClasses = 10;

const std::vector<float>& native_digit_logits();
size_t correct_count(const std::vector<float>& logits, const std::vector<uint8_t>& labels);

}  // namespace wasinn_it
