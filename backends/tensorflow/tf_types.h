// TensorFlow data types <-> wasinn tensor types, element sizes and the short names used in
// error details ("f32 [-1, 3]").
#pragma once

#include <tensorflow/c/tf_datatype.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn_tf {

// The wasinn type with the same bytes, or WASINN_TYPE_UNKNOWN (bool, string, int16, complex...).
int32_t to_wasinn_type(TF_DataType t);
// Inverse of to_wasinn_type; 0 (no TF type) for WASINN_TYPE_UNKNOWN.
TF_DataType to_tf_type(int32_t wasinn_type);

size_t element_size(int32_t wasinn_type);
std::string type_name(int32_t wasinn_type);  // "f32", "i64", ...
std::string tf_type_name(TF_DataType t);     // TensorFlow's name for the others: "bool", "string"

std::string format_dims(std::span<const int64_t> dims);
std::string format_dims(std::span<const uint32_t> dims);

// product(dims) * elem; false on overflow.
bool byte_size(std::span<const uint32_t> dims, size_t elem, size_t &out);

}  // namespace wasinn_tf
