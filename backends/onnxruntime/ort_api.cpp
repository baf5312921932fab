// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The OrtApi table, status translation and ONNX type names.
#include "ort_api.h"

#include "types.h"

namespace wasinn::onnxruntime {

const OrtApi* ort_api() {
  // A function-local static: initialised once, thread-safely, and never written again. This is
  // ORT's own immutable table, not plugin state.
  static const OrtApi* const api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  return api;
}

wasinn_status status_from_ort_code(OrtErrorCode code) {
  switch (code) {
    case ORT_OK: return WASINN_OK;
    case ORT_INVALID_ARGUMENT:
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH:
    case ORT_NO_SUCHFILE: return WASINN_INVALID_ARGUMENT;
    case ORT_NOT_IMPLEMENTED:
    case ORT_MODEL_REQUIRES_COMPILATION: return WASINN_UNSUPPORTED_OPERATION;
    case ORT_NOT_FOUND: return WASINN_NOT_FOUND;
    default:
      // FAIL, ENGINE_ERROR, RUNTIME_EXCEPTION, EP_FAIL, DEVICE_RESET, ...
      return WASINN_RUNTIME_ERROR;
  }
}

Error take_status(OrtStatus* status, std::string_view what) {
  if (!status) return {};
  const OrtApi* api = ort_api();
  Error err;
  err.status = status_from_ort_code(api->GetErrorCode(status));
  err.detail.assign(what);
  err.detail += ": ";
  err.detail += api->GetErrorMessage(status);
  api->ReleaseStatus(status);
  err.detail = sdk::one_line(std::move(err.detail));
  return err;
}

const char* onnx_type_name(ONNXTensorElementDataType t) {
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return "float";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return "uint8";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return "int8";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: return "uint16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: return "int16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return "int32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return "int64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING: return "string";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return "bool";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return "float16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return "double";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return "uint32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return "uint64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64: return "complex64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128: return "complex128";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return "bfloat16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED: return "undefined";
    default: return "float8/int4/other packed type";
  }
}

}  // namespace wasinn::onnxruntime
