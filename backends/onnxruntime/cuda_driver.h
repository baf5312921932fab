// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the NVIDIA driver (libcuda.so.1) says, asked directly through its C API: whether it is
// installed, which CUDA version it supports, and its devices. ONNX Runtime only says "no device"
// or fails on a library; the driver tells a missing driver, a driver too old and an absent GPU
// apart, which is what a refused `gpu` load should name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasinn::onnxruntime {

struct CudaDevice {
  std::string name;           // e.g. "NVIDIA GeForce RTX 4090"
  uint64_t memory_bytes = 0;  // total device memory
};

struct CudaDriver {
  std::string unusable;  // why CUDA cannot run here ("" when it can), with what to do
  int version = 0;       // CUDA version the driver supports, e.g. 13000 for 13.0; 0 unknown
  std::vector<CudaDevice> devices;
};

// Loads libcuda.so.1 (kept loaded: driver libraries are not meant to be unloaded) and asks it.
// `needed` is the CUDA version the installed runtime needs, e.g. 13000.
CudaDriver probe_cuda_driver(int needed);

// 13000 -> "13.0".
std::string cuda_version_text(int version);

}  // namespace wasinn::onnxruntime
