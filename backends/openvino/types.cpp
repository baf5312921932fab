// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "types.h"

namespace wasinn::openvino {

wasinn_tensor_type to_wasinn_type(const ov::element::Type& t) {
  switch (ov::element::Type_t(t)) {
    case ov::element::Type_t::f16: return WASINN_TYPE_F16;
    case ov::element::Type_t::f32: return WASINN_TYPE_F32;
    case ov::element::Type_t::f64: return WASINN_TYPE_F64;
    case ov::element::Type_t::bf16: return WASINN_TYPE_BF16;
    case ov::element::Type_t::u8: return WASINN_TYPE_U8;
    case ov::element::Type_t::i32: return WASINN_TYPE_I32;
    case ov::element::Type_t::i64: return WASINN_TYPE_I64;
    case ov::element::Type_t::i8: return WASINN_TYPE_I8;
    default: return WASINN_TYPE_UNKNOWN;
  }
}

std::string ov_declaration(const ov::element::Type& t, const ov::PartialShape& shape) {
  if (shape.rank().is_dynamic()) return t.get_type_name() + " of any shape";
  std::string dims;
  for (const ov::Dimension& d : shape) {
    if (!dims.empty()) dims += ", ";
    if (d.is_static())
      dims += std::to_string(d.get_length());
    else if (d.get_max_length() < 0)
      dims += d.get_min_length() > 0 ? std::to_string(d.get_min_length()) + "..?" : "?";
    else
      dims += std::to_string(d.get_min_length()) + ".." + std::to_string(d.get_max_length());
  }
  return t.get_type_name() + " [" + dims + "]";
}

}  // namespace wasinn::openvino
