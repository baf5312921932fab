// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LiteRT element types <-> wasinn tensor types, and LiteRT's names for the types wasinn cannot
// carry. Sizes, wasinn type names and dims come from the plugin SDK.
#pragma once

#include <string>

#include "litert_c_api.h"
#include "wasinn/backend_plugin.h"

namespace wasinn::tensorflowlite {

// The wasinn type whose bytes are the same as the LiteRT element's, or WASINN_TYPE_UNKNOWN
// (bool, int16, strings, int4, ...). Quantized tensors keep their integer type: no
// dequantizing happens anywhere in this plugin.
wasinn_tensor_type to_wasinn_type(LiteRtElementType t);

// LiteRT's element name for types wasinn cannot carry ("bool", "int16", "string", ...); the
// wasinn name for the others.
std::string litert_type_name(LiteRtElementType t);

}  // namespace wasinn::tensorflowlite
