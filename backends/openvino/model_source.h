// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the builders of a load request hold, as OpenVINO's read-from-memory API wants it:
// two builders are IR (the .xml text, then the .bin weights); one non-XML builder is a model
// OpenVINO reads directly (ONNX). The weights are copied once into a tensor the graph owns,
// because OpenVINO's constants keep pointing into the weights after compilation.
#pragma once

#include <openvino/runtime/tensor.hpp>

#include <span>
#include <string>

#include "ov_exception.h"

namespace wasinn::openvino {

struct ModelSource {
  bool is_ir = false;
  std::string model;   // the IR's XML text, or the whole ONNX model
  ov::Tensor weights;  // u8 [bytes] for IR; empty for other formats
};

// Checks the builder count against the format of builder 0 and copies the bytes. Wrong counts
// are INVALID_ARGUMENT saying what each builder should be.
Error read_model_source(std::span<const wasinn_bytes> builders, ModelSource& out);

}  // namespace wasinn::openvino
