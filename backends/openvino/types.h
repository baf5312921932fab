// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenVINO element types <-> wasinn tensor types, and OpenVINO's own wording of a declaration
// for details about what wasinn cannot express (bounds, types it lacks). Sizes, wasinn type names
// and dims come from the plugin SDK.
#pragma once

#include <openvino/core/partial_shape.hpp>
#include <openvino/core/type/element_type.hpp>

#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn::openvino {

// The wasinn type an OpenVINO element type passes through as, or WASINN_TYPE_UNKNOWN when no
// wasinn type has the same bit layout (boolean, u16, i4, f8, string, ...).
wasinn_tensor_type to_wasinn_type(const ov::element::Type& t);

// "f32 [1..8, ?, 64]": OpenVINO's type names, which include types wasinn lacks, and its
// dimension bounds, in the SDK's dims notation (", " between dims, "?" for an unbounded one).
std::string ov_declaration(const ov::element::Type& t, const ov::PartialShape& shape);

}  // namespace wasinn::openvino
