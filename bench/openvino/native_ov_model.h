// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NativeOvModel: the native side of the OpenVINO benchmark. It compiles the model with the
// properties the wasinn plugin gets from its config (CPU, inference threads, f32 precision, no
// cache), sets each input tensor once over the caller's buffer (no copy per run) and runs it
// with infer(): the leanest loop a native C++ program writes, so the guest meets the best.
//
// OpenVINO throws; every method here catches and reports false plus a detail instead. Not
// thread-safe: one thread drives one model.
#pragma once

#include <openvino/runtime/core.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wasinn::bench {

class NativeOvModel {
 public:
  static std::unique_ptr<NativeOvModel> open(ov::Core& core, const std::string& xml_path, int threads,
                                             std::string* error);

  // Sets f32 input `index` over `data` (which must outlive the model) with shape `dims`.
  bool bind_f32_input(size_t index, std::span<float> data, const std::vector<uint32_t>& dims, std::string* error);

  // One inference. The outputs stay until the next run.
  bool run(std::string* error);

  // The bytes of output `index` of the last run (empty when there is none).
  std::span<const uint8_t> output_bytes(size_t index);

 private:
  NativeOvModel(ov::CompiledModel compiled, ov::InferRequest request)
      : compiled_(std::move(compiled)), request_(std::move(request)) {}
  ov::CompiledModel compiled_;
  ov::InferRequest request_;
};

}  // namespace wasinn::bench
