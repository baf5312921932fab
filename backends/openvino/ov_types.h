// OpenVINO element types <-> wasinn tensor types, element sizes and the short names used in
// error details ("f32 [?,64]").
#pragma once

#include <openvino/core/partial_shape.hpp>
#include <openvino/core/type/element_type.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn_ov {

// The wasinn type an OpenVINO element type passes through as, or WASINN_TYPE_UNKNOWN when no
// wasinn type has the same bit layout (boolean, u16, i4, f8, string, ...).
wasinn_tensor_type to_wasinn_type(const ov::element::Type &t);

// Inverse of to_wasinn_type; ov::element::dynamic for WASINN_TYPE_UNKNOWN or a bad number.
ov::element::Type to_ov_type(int32_t t);

// Bytes per element of a wasinn type; 0 for unknown.
size_t element_size(int32_t t);

// "f32", "bf16", ...; "type 42" for numbers outside the enum.
std::string wasinn_type_name(int32_t t);

// "f32 [?,64]" for a declaration (OpenVINO's own names, which include types wasinn lacks).
std::string describe(const ov::element::Type &t, const ov::PartialShape &shape);
// "f32 [1,64]" for a tensor a guest passed.
std::string describe(int32_t type, std::span<const uint32_t> dims);

}  // namespace wasinn_ov
