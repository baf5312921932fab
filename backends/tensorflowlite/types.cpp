// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "types.h"

#include "wasinn/plugin_sdk/tensor.hpp"

namespace wasinn::tensorflowlite {

wasinn_tensor_type to_wasinn_type(LiteRtElementType t) {
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
    default: return sdk::type_name(to_wasinn_type(t));
  }
}

}  // namespace wasinn::tensorflowlite
