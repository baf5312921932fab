// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "digits_reference.h"

#include "native_ort.h"
#include "test_env.h"

namespace wasinn_it {

const std::vector<float>& native_digit_logits() {
  static const std::vector<float> logits = [] {
    NativeOrtModel model(read_bytes(fixture("digits/model.onnx")), 1);
    const auto x = read_array<float>(fixture("digits/test_x.f32"));
    std::vector<float> out;
    for (size_t row = 0; row * kDigitFeatures < x.size(); ++row) {
      std::vector<float> in(x.begin() + row * kDigitFeatures, x.begin() + (row + 1) * kDigitFeatures);
      const auto y = model.run(in, {1, static_cast<int64_t>(kDigitFeatures)});
      out.insert(out.end(), y.begin(), y.end());
    }
    return out;
  }();
  return logits;
}

size_t correct_count(const std::vector<float>& logits, const std::vector<uint8_t>& labels) {
  size_t correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const float* row = logits.data() + i * kDigitClasses;
    size_t best = 0;
    for (size_t k = 1; k < kDigitClasses; ++k)
      if (row[k] > row[best]) best = k;
    correct += best == labels[i];
  }
  return correct;
}

}  // namespace wasinn_it
