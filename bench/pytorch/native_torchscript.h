// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The native side of the pytorch benchmark: a TorchScript module run by libtorch the way a C++
// application would (InferenceMode, input bound once, output 0 copied out). Declared
// without torch types so only native_torchscript.cpp pays for libtorch's headers.
// One thread drives one object.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wasinn::bench {

class NativeTorchScript {
 public:
  // torch::jit::load + eval(); nullptr and *error when the file does not load.
  static std::unique_ptr<NativeTorchScript> open(const std::string& path, std::string* error);
  ~NativeTorchScript();

  // Input 0: an f32 tensor holding a copy of `data`, made once here; runs copy nothing.
  void bind_f32_input(std::span<const float> data, const std::vector<int64_t>& dims);
  // forward once; output 0 (a tensor) is copied into output_bytes().
  bool run(std::string* error);
  std::span<const uint8_t> output_bytes() const { return output_; }

 private:
  struct Impl;
  explicit NativeTorchScript(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::vector<uint8_t> output_;
};

// libtorch's process-wide intra-op thread count (the plugin shares it: same library).
void set_torch_threads(int n);
const char* torch_version();

}  // namespace wasinn::bench
