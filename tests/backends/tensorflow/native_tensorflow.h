// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The native reference: TensorFlow's C API called directly in this process, as an application
// linking TensorFlow would, feeding and fetching graph tensors by the names TensorFlow's own
// Python API reported when the fixtures were made. Tests compare a guest's answers with it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace wasinn_test {

struct NativeTfTensor {
  int dtype = 0;  // TF_DataType
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

class NativeTensorFlow {
 public:
  // A SavedModel directory (tags {"serve"}), or a frozen GraphDef.
  static std::unique_ptr<NativeTensorFlow> saved_model(const std::string& dir);
  static std::unique_ptr<NativeTensorFlow> graph_def(const std::vector<uint8_t>& bytes);
  ~NativeTensorFlow();

  const std::string& error() const { return error_; }
  // One TF_SessionRun; tensors named "op:index". Empty result and error() set on failure.
  std::vector<NativeTfTensor> run(const std::vector<std::pair<std::string, NativeTfTensor>>& feeds,
                                  const std::vector<std::string>& fetches);

 private:
  NativeTensorFlow();
  struct State;
  std::unique_ptr<State> s_;
  std::string error_;
};

}  // namespace wasinn_test
