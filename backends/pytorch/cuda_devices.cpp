// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_devices.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/version.h>

namespace wasinn::pytorch {

CudaDevices find_cuda_devices() {
  CudaDevices out;
  // libtorch_cuda registers CUDA's device guard when it is loaded; a CPU build has none.
  if (!c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA)) {
    out.unavailable = "this libtorch (" TORCH_VERSION
                      ") is a CPU build, without CUDA; a CUDA "
                      "build of libtorch is needed for target gpu";
    return out;
  }
  try {
    out.count = at::detail::getCUDAHooks().getNumGPUs();
  } catch (const std::exception& e) {
    out.unavailable = std::string("libtorch's CUDA cannot start: ") + e.what();
    return out;
  }
  if (out.count <= 0)
    out.unavailable =
        "libtorch has CUDA but found no CUDA device (no NVIDIA driver, or "
        "CUDA_VISIBLE_DEVICES hides them)";
  return out;
}

}  // namespace wasinn::pytorch
