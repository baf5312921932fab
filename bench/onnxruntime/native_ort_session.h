// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NativeOrtSession: the native side of the ONNX Runtime benchmark. It opens the model with the
// session options the wasinn plugin uses (intra-op threads, ORT_ENABLE_ALL, ORT's defaults for
// the rest), binds each input once over the caller's buffer (no copy per run), and runs it:
// the leanest loop a native C++ program can write, so the guest is measured against the best.
//
// The ORT C++ API throws Ort::Exception; every method here catches it and reports false plus
// a detail instead. Not thread-safe: one thread drives one session.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <onnxruntime_cxx_api.h>

namespace wasinn::bench {

class NativeOrtSession {
 public:
  static std::unique_ptr<NativeOrtSession> open(Ort::Env& env, const std::string& model_path, int intra_op_threads,
                                                std::string* error);

  // Binds f32 input `index` over `data` (which must outlive the session) with shape `dims`.
  bool bind_f32_input(size_t index, std::span<float> data, std::vector<int64_t> dims, std::string* error);

  // One Run of the model. The outputs stay until the next run.
  bool run(std::string* error);

  // The bytes of output `index` of the last run (empty when there is none).
  std::span<const uint8_t> output_bytes(size_t index) const;

 private:
  NativeOrtSession(Ort::Session session, std::vector<std::string> input_names, std::vector<std::string> output_names);

  Ort::Session session_;
  Ort::RunOptions run_options_;
  Ort::MemoryInfo cpu_ = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::vector<std::string> input_names_, output_names_;
  std::vector<const char*> input_name_ptrs_, output_name_ptrs_;
  std::vector<std::vector<int64_t>> input_dims_;
  std::vector<Ort::Value> inputs_, outputs_;
};

}  // namespace wasinn::bench
