// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A u8 variant of the digits classifier, made from the fixture model in the test itself: its
// f32 input is replaced by a u8 input of raw pixel values (0-16) followed by Cast and a multiply
// by 1/16, which reproduces the fixture's scaled features exactly (k/16 is exact in f32). The
// u8 guests (old numbering u8 = 2, current u8 = 3) then classify real digits, and their
// answers must equal the f32 model's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasinn_compat {

// model: the f32 ONNX model bytes; input_name: its f32 input, which must be [batch, features].
// Throws std::runtime_error if the bytes are not the expected protobuf.
std::vector<uint8_t> make_u8_front_end(const std::vector<uint8_t>& model, const std::string& input_name, float scale);

// Raw pixel values for features scaled by `scale`: round(x / scale); throws if any feature is
// not such a value, since the u8 model would then not reproduce the f32 inputs.
std::vector<uint8_t> unscale_features(const std::vector<float>& x, float scale);

}  // namespace wasinn_compat
