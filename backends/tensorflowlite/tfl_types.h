// LiteRT element types <-> wasinn tensor types, element sizes, and the short names used in
// error details ("i8 [-1, 64]").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "litert_c_api.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_tfl {

// The wasinn type whose bytes are the same as the LiteRT element's, or WASINN_TYPE_UNKNOWN
// (bool, int16, strings, int4, ...). Quantized tensors keep their integer type: no
// dequantizing happens anywhere in this plugin.
int32_t to_wasinn_type(LiteRtElementType t);

// Bytes per element of a wasinn type; 0 for unknown.
size_t element_size(int32_t wasinn_type);

// "f32", "i8", ...; "type 42" outside the enum.
std::string type_name(int32_t wasinn_type);
// LiteRT's element name for types wasinn cannot carry ("bool", "int16", "string", ...).
std::string litert_type_name(LiteRtElementType t);

std::string format_dims(std::span<const int64_t> dims);
std::string format_dims(std::span<const uint32_t> dims);

// product(dims) * elem; false on overflow.
bool byte_size(std::span<const uint32_t> dims, size_t elem, size_t &out);

}  // namespace wasinn_tfl
