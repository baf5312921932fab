// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ONNX element types <-> wasinn tensor types, and ONNX's own type names for details about the
// types wasinn cannot carry. Sizes, wasinn type names and dims come from the plugin SDK.
#pragma once

#include <onnxruntime_c_api.h>

#include <cstddef>
#include <cstdint>

#include "wasinn/backend_plugin.h"

namespace wasinn::onnxruntime {

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

// ONNX's own name for an element type ("bool", "string", "uint16", ...), for details about
// types wasinn cannot carry.
const char* onnx_type_name(ONNXTensorElementDataType t);

}  // namespace wasinn::onnxruntime
