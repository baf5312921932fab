#include "types.h"

namespace wasinn::openvino {

wasinn_tensor_type to_wasinn_type(const ov::element::Type &t) {
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

std::string ov_declaration(const ov::element::Type &t, const ov::PartialShape &shape) {
  return t.get_type_name() + " " + shape.to_string();
}

}  // namespace wasinn::openvino
