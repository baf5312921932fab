// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What libtorch offers for target gpu: its CUDA devices, looked up once at backend creation so
// that a gpu load is refused with the reason (a CPU build of libtorch, or no device) and
// `wasinn backends --check` can show it. Small c10/ATen headers only.
#pragma once

#include <string>

namespace wasinn::pytorch {

struct CudaDevices {
  int count = 0;            // CUDA devices libtorch can use
  std::string unavailable;  // why target gpu cannot run here, "" when count > 0
};

CudaDevices find_cuda_devices();

}  // namespace wasinn::pytorch
