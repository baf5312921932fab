// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ONNX Runtime's CUDA execution provider as this backend finds it once, at backend_create: the
// provider library beside the loaded ORT core (scripts/gpu/onnxruntime-cuda.sh puts it there),
// the NVIDIA driver's word on the GPUs, and ORT's own device list for the provider (its EP
// device API). Either it can serve target gpu, or `unavailable()` says why and what to do.
// Immutable after find(), so graphs on any thread read it without locking.
#pragma once

#include <string>
#include <vector>

#include "cuda_driver.h"
#include "ort_api.h"

namespace wasinn::onnxruntime {

// The CUDA version the installed provider and its runtime libraries need (CUDA 13 line).
inline constexpr int kCudaNeeded = 13000;
// ORT's name of the provider, in device lists and graph assignments.
inline constexpr const char* kCudaEpName = "CUDAExecutionProvider";

class CudaProvider {
 public:
  // Looks once; never fails the backend (a CPU-only ORT is a normal setup): the outcome is
  // unavailable()'s reason. Touches nothing CUDA when the provider library is absent.
  void find(OrtEnv* env);

  // Why target gpu cannot run here ("" when it can).
  const std::string& unavailable() const { return unavailable_; }
  // The GPUs the driver lists (empty when unavailable).
  const std::vector<CudaDevice>& devices() const { return driver_.devices; }
  // "CUDA 13.0 driver, provider <path>" for the backend's description.
  const std::string& summary() const { return summary_; }

  // Adds the CUDA provider for device 0 to `options`, ahead of ORT's CPU provider.
  Error append(OrtEnv* env, OrtSessionOptions* options) const;

 private:
  std::string unavailable_, summary_;
  CudaDriver driver_;
  std::vector<const OrtEpDevice*> ep_devices_;  // owned by the OrtEnv
};

}  // namespace wasinn::onnxruntime
