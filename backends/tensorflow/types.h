// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// TensorFlow data types <-> wasinn tensor types, and TensorFlow's own names for the types wasinn
// cannot carry. Sizes, wasinn type names and dims come from the plugin SDK.
#pragma once

#include <tensorflow/c/tf_datatype.h>

#include <cstdint>
#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn::tensorflow {

// The wasinn type with the same bytes, or WASINN_TYPE_UNKNOWN (bool, string, int16, complex...).
wasinn_tensor_type to_wasinn_type(TF_DataType t);

// TensorFlow's name for a type ("bool", "string", "resource", ...), for details about types
// wasinn cannot carry; the wasinn name for the others.
std::string tf_type_name(TF_DataType t);

}  // namespace wasinn::tensorflow
