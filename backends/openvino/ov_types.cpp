#include "ov_types.h"

namespace wasinn_ov {

wasinn_tensor_type to_wasinn_type(const ov::element::Type &t) {
  switch (ov::element::Type_t(t)) {
    case ov::element::Type_t::f16: return WASINN_TYPE_F16;
    case ov::element::Type_t::f32: return WASINN_TYPE_F32;
    case ov::element::Type_t::f64: return WASINN_TYPE_F64;
    case ov::element::Type_t::bf16: return WASINN_TYPE_BF16;
    case ov::element::Type_t::u8: return WASINN_TYPE_U8;
    case ov::element::Type_t::i32: return WASINN_TYPE_I32;
    case ov::element::Type_t::i64: return WASINN_TYPE_I64;
    case ov::element::Type_t::i8: return WASINN_TYPE_I8;
    default: return WASINN_TYPE_UNKNOWN;
  }
}

ov::element::Type to_ov_type(int32_t t) {
  switch (t) {
    case WASINN_TYPE_F16: return ov::element::f16;
    case WASINN_TYPE_F32: return ov::element::f32;
    case WASINN_TYPE_F64: return ov::element::f64;
    case WASINN_TYPE_BF16: return ov::element::bf16;
    case WASINN_TYPE_U8: return ov::element::u8;
    case WASINN_TYPE_I32: return ov::element::i32;
    case WASINN_TYPE_I64: return ov::element::i64;
    case WASINN_TYPE_I8: return ov::element::i8;
    default: return ov::element::dynamic;
  }
}

size_t element_size(int32_t t) {
  switch (t) {
    case WASINN_TYPE_U8:
    case WASINN_TYPE_I8: return 1;
    case WASINN_TYPE_F16:
    case WASINN_TYPE_BF16: return 2;
    case WASINN_TYPE_F32:
    case WASINN_TYPE_I32: return 4;
    case WASINN_TYPE_F64:
    case WASINN_TYPE_I64: return 8;
    default: return 0;
  }
}

std::string wasinn_type_name(int32_t t) {
  switch (t) {
    case WASINN_TYPE_F16: return "f16";
    case WASINN_TYPE_F32: return "f32";
    case WASINN_TYPE_F64: return "f64";
    case WASINN_TYPE_BF16: return "bf16";
    case WASINN_TYPE_U8: return "u8";
    case WASINN_TYPE_I32: return "i32";
    case WASINN_TYPE_I64: return "i64";
    case WASINN_TYPE_I8: return "i8";
    default: return "type " + std::to_string(t);
  }
}

std::string describe(const ov::element::Type &t, const ov::PartialShape &shape) {
  return t.get_type_name() + " " + shape.to_string();
}

std::string describe(int32_t type, std::span<const uint32_t> dims) {
  std::string s = wasinn_type_name(type) + " [";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace wasinn_ov
