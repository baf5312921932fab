// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Element types: the plugin ABI's wasinn_tensor_type <-> torch's c10::ScalarType. Sizes, names
// and dims of wasinn types come from the plugin SDK (wasinn/plugin_sdk/tensor.hpp).
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>

#include "wasinn/backend_plugin.h"

namespace wasinn::pytorch {

// f16 Half, bf16 BFloat16, f32 Float, f64 Double, u8 Byte, i32 Int, i64 Long, i8 Char.
// nullopt for a value that is not a wasinn type.
std::optional<c10::ScalarType> to_scalar_type(int32_t wasinn_type);

// The wasinn type of a torch output, or nullopt when none expresses it (complex, i16,
// quantized...). Bool is reported as u8: torch stores it as one byte holding 0 or 1.
std::optional<wasinn_tensor_type> to_wasinn_type(c10::ScalarType type);

}  // namespace wasinn::pytorch
