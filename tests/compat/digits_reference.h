// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The known answers: the digits classified by ONNX Runtime in this process (its C++ API, one
// row at a time like the guests, one intra-op thread), for the f32 fixture model and for its u8
// variant (u8_front_end.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace wasinn_compat {

struct DigitsAnswer {
  std::string predictions;  // one ASCII digit per held-out row
  size_t correct = 0, total = 0;
  std::vector<float> logits0;  // the 10 logits of row 0
};

const DigitsAnswer& native_f32_answer();  // digits/model.onnx on test_x.f32
const DigitsAnswer& native_u8_answer();   // data_dir()/digits_u8/model.onnx on test_x.u8

}  // namespace wasinn_compat
