// The OrtApi table, status translation and the type-name helpers of ort_types.h.
#include "ort_api.h"

#include "ort_types.h"

namespace wasinn_ort {

const OrtApi *ort_api() {
  // A function-local static: initialised once, thread-safely, and never written again. This is
  // ORT's own immutable table, not plugin state.
  static const OrtApi *const api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  return api;
}

wasinn_status status_from_ort_code(OrtErrorCode code) {
  switch (code) {
    case ORT_OK: return WASINN_OK;
    case ORT_INVALID_ARGUMENT:
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH:
    case ORT_NO_SUCHFILE:
      return WASINN_INVALID_ARGUMENT;
    case ORT_NOT_IMPLEMENTED:
    case ORT_MODEL_REQUIRES_COMPILATION:
      return WASINN_UNSUPPORTED_OPERATION;
    case ORT_NOT_FOUND:
      return WASINN_NOT_FOUND;
    default:
      // FAIL, ENGINE_ERROR, RUNTIME_EXCEPTION, EP_FAIL, DEVICE_RESET, ...
      return WASINN_RUNTIME_ERROR;
  }
}

Error take_status(OrtStatus *status, std::string_view what) {
  if (!status) return {};
  const OrtApi *api = ort_api();
  Error err;
  err.status = status_from_ort_code(api->GetErrorCode(status));
  err.detail.assign(what);
  err.detail += ": ";
  err.detail += api->GetErrorMessage(status);
  api->ReleaseStatus(status);
  // Details are one line; ORT messages sometimes carry a stack or a trailing newline.
  for (char &c : err.detail)
    if (c == '\n' || c == '\r') c = ' ';
  while (!err.detail.empty() && err.detail.back() == ' ') err.detail.pop_back();
  return err;
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

const char *onnx_type_name(ONNXTensorElementDataType t) {
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

template <typename T>
static std::string format_dims_impl(std::span<const T> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string format_dims(std::span<const int64_t> dims) { return format_dims_impl(dims); }
std::string format_dims(std::span<const uint32_t> dims) { return format_dims_impl(dims); }

}  // namespace wasinn_ort
