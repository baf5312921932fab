// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// TorchScript's int, float and bool (and their Optional[...]) as wasinn tensors: an argument
// takes a one-element tensor of a compatible type, a result comes back as a rank-0 tensor.
// No libtorch header here: the .cpp needs only c10's half-precision types.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::pytorch {

// What a TorchScript type (Optional[...] unwrapped) is to wasinn.
enum class ArgKind : uint8_t {
  tensor,        // Tensor: any wasinn tensor, dtype and shape checked by forward itself
  int_scalar,    // int (a C++ int64_t)
  float_scalar,  // float (a C++ double)
  bool_scalar,   // bool
  unsupported,   // str, List[int], Tuple, a class...: no wasinn tensor stands for it
};

constexpr bool is_scalar(ArgKind k) {
  return k == ArgKind::int_scalar || k == ArgKind::float_scalar || k == ArgKind::bool_scalar;
}

// The type io info declares for a scalar (always with rank 0): int i64, float f64, bool u8.
// The exact wasinn counterpart of each, and what a scalar result comes back as.
int32_t declared_type(ArgKind kind);

// What a scalar argument accepts, for details: "one i64, i32, i8 or u8 element".
const char* accepted(ArgKind kind);

// A scalar argument's value; only the member of its kind is meaningful.
struct ScalarValue {
  int64_t i = 0;
  double f = 0;
  bool b = false;
};

// Reads the one element of t (already checked: a wasinn type, bytes matching dims) as the
// argument `index` of `kind`, whose TorchScript type is torch_type ("int", "Optional[float]").
// INVALID_ARGUMENT naming the argument, its type and what was given when t has another element
// count or an incompatible type, or a bool is neither 0 nor 1. Allocates only on failure.
sdk::Error read_scalar(ArgKind kind, std::string_view torch_type, std::span<const sdk::IoDesc> declared, size_t index,
                       const wasinn_tensor& t, ScalarValue& out);

}  // namespace wasinn::pytorch
