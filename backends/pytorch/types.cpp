// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "types.h"

namespace wasinn::pytorch {

std::optional<c10::ScalarType> to_scalar_type(int32_t wasinn_type) {
  switch (wasinn_type) {
    case WASINN_TYPE_F16: return c10::ScalarType::Half;
    case WASINN_TYPE_BF16: return c10::ScalarType::BFloat16;
    case WASINN_TYPE_F32: return c10::ScalarType::Float;
    case WASINN_TYPE_F64: return c10::ScalarType::Double;
    case WASINN_TYPE_U8: return c10::ScalarType::Byte;
    case WASINN_TYPE_I32: return c10::ScalarType::Int;
    case WASINN_TYPE_I64: return c10::ScalarType::Long;
    case WASINN_TYPE_I8: return c10::ScalarType::Char;
    default: return std::nullopt;
  }
}

std::optional<wasinn_tensor_type> to_wasinn_type(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Half: return WASINN_TYPE_F16;
    case c10::ScalarType::BFloat16: return WASINN_TYPE_BF16;
    case c10::ScalarType::Float: return WASINN_TYPE_F32;
    case c10::ScalarType::Double: return WASINN_TYPE_F64;
    case c10::ScalarType::Byte: return WASINN_TYPE_U8;
    case c10::ScalarType::Bool: return WASINN_TYPE_U8;
    case c10::ScalarType::Int: return WASINN_TYPE_I32;
    case c10::ScalarType::Long: return WASINN_TYPE_I64;
    case c10::ScalarType::Char: return WASINN_TYPE_I8;
    default: return std::nullopt;
  }
}

}  // namespace wasinn::pytorch
