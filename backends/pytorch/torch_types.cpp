#include "torch_types.h"

namespace wasinn_torch {

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

size_t element_size(wasinn_tensor_type type) {
  switch (type) {
    case WASINN_TYPE_F16: case WASINN_TYPE_BF16: return 2;
    case WASINN_TYPE_F32: case WASINN_TYPE_I32: return 4;
    case WASINN_TYPE_F64: case WASINN_TYPE_I64: return 8;
    case WASINN_TYPE_U8: case WASINN_TYPE_I8: return 1;
    default: return 0;
  }
}

const char *wasinn_type_name(int32_t type) {
  switch (type) {
    case WASINN_TYPE_F16: return "f16";
    case WASINN_TYPE_F32: return "f32";
    case WASINN_TYPE_F64: return "f64";
    case WASINN_TYPE_BF16: return "bf16";
    case WASINN_TYPE_U8: return "u8";
    case WASINN_TYPE_I32: return "i32";
    case WASINN_TYPE_I64: return "i64";
    case WASINN_TYPE_I8: return "i8";
    default: return "unknown type";
  }
}

std::string describe(int32_t type, std::span<const uint32_t> dims) {
  std::string s = std::string(wasinn_type_name(type)) + " [";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace wasinn_torch
