// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The reference the guest runs are compared with: the same model run by ONNX Runtime in this
// process through its C++ API, with the session settings wasinn's plugin uses (graph
// optimizations at ORT's default "all", intra-op threads as given).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wasinn_it {

class NativeOrtModel {
 public:
  // model: the .onnx bytes. Throws Ort::Exception if ORT rejects them.
  NativeOrtModel(const std::vector<uint8_t>& model, int intra_op_threads);
  ~NativeOrtModel();

  // Runs the model's only f32 input through to its first output, which must be f32.
  std::vector<float> run(const std::vector<float>& input, const std::vector<int64_t>& dims);

  static std::string version();  // e.g. "1.29.0"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wasinn_it
