// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The native reference: the same LiteRT runtime the plugin uses, called directly through its C
// API in this process, as an application linking TensorFlow Lite would. Tests compare what a
// guest gets through wasinn with what this returns for the same model and inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wasinn_test {

struct NativeTensor {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> bytes;
};

class NativeLiteRt {
 public:
  // CPU, signature 0. error() is non-empty when the model could not be loaded.
  explicit NativeLiteRt(const std::vector<uint8_t>& model);
  ~NativeLiteRt();
  NativeLiteRt(const NativeLiteRt&) = delete;
  NativeLiteRt& operator=(const NativeLiteRt&) = delete;

  const std::string& error() const { return error_; }
  // One inference; inputs and outputs in subgraph order (TFLite's interpreter order).
  // Returns no outputs and sets error() on failure.
  std::vector<NativeTensor> run(const std::vector<NativeTensor>& inputs);

 private:
  struct State;
  std::unique_ptr<State> s_;
  std::string error_;
};

}  // namespace wasinn_test
