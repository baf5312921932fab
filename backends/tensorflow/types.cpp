// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "types.h"

#include "wasinn/plugin_sdk/tensor.hpp"

namespace wasinn::tensorflow {

wasinn_tensor_type to_wasinn_type(TF_DataType t) {
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
      const wasinn_tensor_type w = to_wasinn_type(t);
      return w == WASINN_TYPE_UNKNOWN ? "TF_DataType " + std::to_string(static_cast<int>(t)) : sdk::type_name(w);
    }
  }
}

}  // namespace wasinn::tensorflow
