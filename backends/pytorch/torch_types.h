// Element types: the plugin ABI's wasinn_tensor_type <-> torch's c10::ScalarType, and the names
// used in details.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn_torch {

// f16 Half, bf16 BFloat16, f32 Float, f64 Double, u8 Byte, i32 Int, i64 Long, i8 Char.
// nullopt for a value that is not a wasinn type.
std::optional<c10::ScalarType> to_scalar_type(int32_t wasinn_type);

// The wasinn type of a torch output, or nullopt when none expresses it (complex, i16,
// quantized...). Bool is reported as u8: torch stores it as one byte holding 0 or 1.
std::optional<wasinn_tensor_type> to_wasinn_type(c10::ScalarType type);

size_t element_size(wasinn_tensor_type type);
const char *wasinn_type_name(int32_t type);

// "f32 [2, 3]"
std::string describe(int32_t type, std::span<const uint32_t> dims);

}  // namespace wasinn_torch
