// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide ONNX Runtime backend: one OrtEnv (its logger feeds the host's), the CPU
// memory description every input tensor uses, the default session config from backend_create,
// and the CUDA provider as found then. Immutable after create, so graphs on any thread share it
// without locking.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "cuda_provider.h"
#include "ort_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::onnxruntime {

class OrtGraph;
class OrtContext;

// While it lives, ONNX Runtime's lines on this thread are logged at debug once `cancelled` is
// set: the complaint of a run that its context's cancel stopped is no error (its caller gave up).
class CancellableRunLog {
 public:
  explicit CancellableRunLog(const std::atomic<bool>& cancelled);
  ~CancellableRunLog();
  CancellableRunLog(const CancellableRunLog&) = delete;
  CancellableRunLog& operator=(const CancellableRunLog&) = delete;

 private:
  const std::atomic<bool>* before_;
};

class OrtBackend {
 public:
  WASINN_SDK_BACKEND(OrtBackend, OrtGraph, OrtContext, "onnxruntime")

  OrtEnv* env() const { return env_.get(); }
  const OrtMemoryInfo* cpu_memory() const { return cpu_memory_.get(); }
  const SessionConfig& defaults() const { return defaults_; }
  const CudaProvider& cuda() const { return cuda_; }
  // For `wasinn backends --check`: the CUDA provider serving target gpu, when it can (else "").
  const std::string& description() const { return description_; }
  // The SDK's device report: the CPU, then each CUDA GPU when the provider can use them.
  const std::vector<sdk::Device>& devices() const { return devices_; }
  // Why `target` cannot run here (gpu: the CUDA provider's reason; tpu: none exists), or nullptr.
  const char* target_unavailable(int32_t target) const;

 private:
  EnvPtr env_;
  MemoryInfoPtr cpu_memory_;
  SessionConfig defaults_;
  CudaProvider cuda_;
  std::string description_;
  std::vector<sdk::Device> devices_;
};

}  // namespace wasinn::onnxruntime
