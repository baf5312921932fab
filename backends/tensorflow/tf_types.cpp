#include "tf_types.h"

#include <limits>

namespace wasinn_tf {

int32_t to_wasinn_type(TF_DataType t) {
  switch (t) {
    case TF_FLOAT: return WASINN_TYPE_F32;
    case TF_HALF: return WASINN_TYPE_F16;
    case TF_DOUBLE: return WASINN_TYPE_F64;
    case TF_BFLOAT16: return WASINN_TYPE_BF16;
    case TF_UINT8: return WASINN_TYPE_U8;
    case TF_INT8: return WASINN_TYPE_I8;
    case TF_INT32: return WASINN_TYPE_I32;
    case TF_INT64: return WASINN_TYPE_I64;
    default: return WASINN_TYPE_UNKNOWN;
  }
}

TF_DataType to_tf_type(int32_t t) {
  switch (t) {
    case WASINN_TYPE_F32: return TF_FLOAT;
    case WASINN_TYPE_F16: return TF_HALF;
    case WASINN_TYPE_F64: return TF_DOUBLE;
    case WASINN_TYPE_BF16: return TF_BFLOAT16;
    case WASINN_TYPE_U8: return TF_UINT8;
    case WASINN_TYPE_I8: return TF_INT8;
    case WASINN_TYPE_I32: return TF_INT32;
    case WASINN_TYPE_I64: return TF_INT64;
    default: return static_cast<TF_DataType>(0);
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

std::string tf_type_name(TF_DataType t) {
  switch (t) {
    case TF_BOOL: return "bool";
    case TF_STRING: return "string";
    case TF_INT16: return "int16";
    case TF_UINT16: return "uint16";
    case TF_UINT32: return "uint32";
    case TF_UINT64: return "uint64";
    case TF_COMPLEX64: return "complex64";
    case TF_COMPLEX128: return "complex128";
    case TF_RESOURCE: return "resource";
    case TF_VARIANT: return "variant";
    default: {
      const int32_t w = to_wasinn_type(t);
      return w == WASINN_TYPE_UNKNOWN ? "TF_DataType " + std::to_string(static_cast<int>(t))
                                      : type_name(w);
    }
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

}  // namespace wasinn_tf
