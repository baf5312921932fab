// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "scalar_args.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstring>
#include <string>

namespace wasinn::pytorch {
namespace {

template <typename T>
T load(const wasinn_tensor& t) {
  T v;
  std::memcpy(&v, t.data, sizeof v);  // guest bytes need not be aligned
  return v;
}

// "f32 [2, 3] (6 elements)", or "f32 []" for one element.
std::string given(const wasinn_tensor& t) {
  std::string s = sdk::type_name(t.type) + " " + sdk::format_dims(t);
  size_t n = 0;
  if (!sdk::byte_size(std::span<const uint32_t>(t.dims, t.rank), 1, n)) return s + " (too many elements)";
  return n == 1 ? s : s + " (" + std::to_string(n) + " elements)";
}

// One element of a compatible type: no widening can lose a digit (i64 and double hold
// every value of the types each accepts).
bool read_int(const wasinn_tensor& t, int64_t& v) {
  switch (t.type) {
    case WASINN_TYPE_I64: v = load<int64_t>(t); return true;
    case WASINN_TYPE_I32: v = load<int32_t>(t); return true;
    case WASINN_TYPE_I8: v = load<int8_t>(t); return true;
    case WASINN_TYPE_U8: v = load<uint8_t>(t); return true;
    default: return false;
  }
}

bool read_float(const wasinn_tensor& t, double& v) {
  switch (t.type) {
    case WASINN_TYPE_F64: v = load<double>(t); return true;
    case WASINN_TYPE_F32: v = load<float>(t); return true;
    case WASINN_TYPE_F16: v = static_cast<float>(c10::Half(load<uint16_t>(t), c10::Half::from_bits())); return true;
    case WASINN_TYPE_BF16:
      v = static_cast<float>(c10::BFloat16(load<uint16_t>(t), c10::BFloat16::from_bits()));
      return true;
    default: return false;
  }
}

}  // namespace

int32_t declared_type(ArgKind kind) {
  switch (kind) {
    case ArgKind::int_scalar: return WASINN_TYPE_I64;
    case ArgKind::float_scalar: return WASINN_TYPE_F64;
    case ArgKind::bool_scalar: return WASINN_TYPE_U8;
    default: return WASINN_TYPE_UNKNOWN;
  }
}

const char* accepted(ArgKind kind) {
  switch (kind) {
    case ArgKind::int_scalar: return "one i64, i32, i8 or u8 element";
    case ArgKind::float_scalar: return "one f64, f32, f16 or bf16 element";
    case ArgKind::bool_scalar: return "one u8 element, 0 or 1";
    default: return "no scalar";
  }
}

sdk::Error read_scalar(ArgKind kind, std::string_view torch_type, std::span<const sdk::IoDesc> declared, size_t index,
                       const wasinn_tensor& t, ScalarValue& out) {
  auto refuse = [&](const std::string& got) {
    return sdk::invalid(sdk::io_label(declared, sdk::Side::input, index) + " is a TorchScript " +
                        std::string(torch_type) + ", which takes " + accepted(kind) + ", got " + got);
  };
  // Exactly one element: every dim is 1 (rank 0 included).
  for (uint32_t i = 0; i < t.rank; ++i)
    if (t.dims[i] != 1) return refuse(given(t));
  bool ok = false;
  switch (kind) {
    case ArgKind::int_scalar: ok = read_int(t, out.i); break;
    case ArgKind::float_scalar: ok = read_float(t, out.f); break;
    case ArgKind::bool_scalar:
      if (t.type != WASINN_TYPE_U8) break;
      // Any other byte is more likely a mixed-up argument than a truth value.
      if (const uint8_t v = load<uint8_t>(t); v > 1) return refuse("u8 " + std::to_string(v));
      out.b = load<uint8_t>(t) == 1;
      ok = true;
      break;
    default: break;
  }
  return ok ? sdk::Error{} : refuse(given(t));
}

}  // namespace wasinn::pytorch
