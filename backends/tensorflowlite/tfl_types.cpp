#include "tfl_types.h"

#include <limits>

namespace wasinn_tfl {

int32_t to_wasinn_type(LiteRtElementType t) {
  switch (t) {
    case kLiteRtElementTypeFloat32: return WASINN_TYPE_F32;
    case kLiteRtElementTypeFloat16: return WASINN_TYPE_F16;
    case kLiteRtElementTypeFloat64: return WASINN_TYPE_F64;
    case kLiteRtElementTypeBFloat16: return WASINN_TYPE_BF16;
    case kLiteRtElementTypeUInt8: return WASINN_TYPE_U8;
    case kLiteRtElementTypeInt8: return WASINN_TYPE_I8;
    case kLiteRtElementTypeInt32: return WASINN_TYPE_I32;
    case kLiteRtElementTypeInt64: return WASINN_TYPE_I64;
    default: return WASINN_TYPE_UNKNOWN;
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

std::string type_name(int32_t t) {
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

std::string litert_type_name(LiteRtElementType t) {
  switch (t) {
    case kLiteRtElementTypeNone: return "no type";
    case kLiteRtElementTypeTfString: return "string";
    case kLiteRtElementTypeBool: return "bool";
    case kLiteRtElementTypeInt16: return "int16";
    case kLiteRtElementTypeComplex64: return "complex64";
    case kLiteRtElementTypeComplex128: return "complex128";
    case kLiteRtElementTypeUInt64: return "uint64";
    case kLiteRtElementTypeTfResource: return "resource";
    case kLiteRtElementTypeTfVariant: return "variant";
    case kLiteRtElementTypeUInt32: return "uint32";
    case kLiteRtElementTypeUInt16: return "uint16";
    case kLiteRtElementTypeInt4: return "int4";
    case kLiteRtElementTypeInt2: return "int2";
    default: return type_name(to_wasinn_type(t));
  }
}

namespace {
template <typename T>
std::string join_dims(std::span<const T> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}
}  // namespace

std::string format_dims(std::span<const int64_t> dims) { return join_dims(dims); }
std::string format_dims(std::span<const uint32_t> dims) { return join_dims(dims); }

bool byte_size(std::span<const uint32_t> dims, size_t elem, size_t &out) {
  size_t n = elem;
  for (uint32_t d : dims) {
    if (d != 0 && n > std::numeric_limits<size_t>::max() / d) return false;
    n *= d;
  }
  out = n;
  return true;
}

}  // namespace wasinn_tfl
