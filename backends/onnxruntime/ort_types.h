// ONNX element types <-> wasinn tensor types, element sizes and the short names used in
// error details ("f32 [-1, 64]").
#pragma once

#include <onnxruntime_c_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn_ort {

// The wasinn type an ONNX element type passes through as, or WASINN_TYPE_UNKNOWN when no
// wasinn type has the same bit layout (bool, strings, uint16, complex, float8, int4, ...).
constexpr wasinn_tensor_type to_wasinn_type(ONNXTensorElementDataType t) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return WASINN_TYPE_F16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return WASINN_TYPE_F32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return WASINN_TYPE_F64;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return WASINN_TYPE_BF16;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return WASINN_TYPE_U8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return WASINN_TYPE_I32;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return WASINN_TYPE_I64;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return WASINN_TYPE_I8;
    default: return WASINN_TYPE_UNKNOWN;
  }
}

// Inverse of to_wasinn_type; UNDEFINED for WASINN_TYPE_UNKNOWN or an out-of-range number.
constexpr ONNXTensorElementDataType to_onnx_type(int32_t t) {
  switch (t) {
    case WASINN_TYPE_F16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    case WASINN_TYPE_F32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    case WASINN_TYPE_F64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
    case WASINN_TYPE_BF16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16;
    case WASINN_TYPE_U8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
    case WASINN_TYPE_I32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    case WASINN_TYPE_I64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
    case WASINN_TYPE_I8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
    default: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  }
}

// Bytes per element of a wasinn type; 0 for unknown.
constexpr size_t element_size(int32_t t) {
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

// "f32", "bf16", ...; "type 42" for numbers outside the enum.
std::string wasinn_type_name(int32_t t);

// ONNX's own name for an element type ("bool", "string", "uint16", ...), for details about
// types wasinn cannot carry.
const char *onnx_type_name(ONNXTensorElementDataType t);

// "[-1, 64]" for declared dims; "[1, 64]" for actual ones.
std::string format_dims(std::span<const int64_t> dims);
std::string format_dims(std::span<const uint32_t> dims);

}  // namespace wasinn_ort
