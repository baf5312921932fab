// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NativeTfSession: the native side of the TensorFlow benchmark. It loads the model with the TF C
// API and the same thread settings the plugin gets, holds its input tensor, and runs the session
// fetching one output: the leanest loop a native C program can write against the same library.
//
// Not thread-safe: one thread drives one session.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wasinn::bench {

class NativeTfSession {
 public:
  // A SavedModel directory (tags {"serve"}) when `saved_model` is true, else a frozen GraphDef
  // file. `input` and `output` are graph tensors ("op:0"). Thread counts 0 = TF's defaults.
  static std::unique_ptr<NativeTfSession> open(const std::string& path, bool saved_model, const std::string& input,
                                               const std::string& output, int intra_op_threads, int inter_op_threads,
                                               std::string* error);
  ~NativeTfSession();

  // Call once, before run(): the f32 input of shape `dims`.
  bool set_input(std::span<const uint8_t> data, const std::vector<int64_t>& dims, std::string* error);
  // One TF_SessionRun; the output stays until the next run.
  bool run(std::string* error);
  std::span<const uint8_t> output_bytes() const;

 private:
  NativeTfSession();
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace wasinn::bench
