// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C side of abi_layouts.def: every C struct the crate mirrors has the size, field offsets and
// field types listed there, and every C enum it mirrors the values, all of them (build.rs checks
// the Rust side against the same list). Compiled, never linked.
#include <cstddef>
#include <type_traits>

#include "engine/wit_host.h"
#include "serve/http/serve_host.h"
#include "serve/pipeline/pipeline_host.h"
#include "wasinn/request_record.h"

#define WASINN_ABI_UNPAREN(...) __VA_ARGS__

// Each line's asserts.
#define WASINN_ABI_STRUCT(c_type, rust_type, size) \
  static_assert(sizeof(c_type) == (size), "abi_layouts.def: the size of " #c_type);
#define WASINN_ABI_FIELD(c_type, rust_type, c_field, rust_field, offset, c_field_type, rust_field_type)         \
  static_assert(offsetof(c_type, c_field) == (offset), "abi_layouts.def: the offset of " #c_type "." #c_field); \
  static_assert(std::is_same_v<decltype(c_type::c_field), WASINN_ABI_UNPAREN c_field_type>,                     \
                "abi_layouts.def: the type of " #c_type "." #c_field);
#define WASINN_ABI_ENUM(c_type, rust_type, size) WASINN_ABI_STRUCT(c_type, rust_type, size)
#define WASINN_ABI_CONSTS(c_type, rust_room, rust_type)
#define WASINN_ABI_VALUE(c_type, rust_side, c_name, rust_name, value)          \
  static_assert(std::is_same_v<decltype(c_name), c_type> && c_name == (value), \
                "abi_layouts.def: the value of " #c_name);
#include "abi_layouts.def"
#undef WASINN_ABI_STRUCT
#undef WASINN_ABI_FIELD
#undef WASINN_ABI_ENUM
#undef WASINN_ABI_CONSTS
#undef WASINN_ABI_VALUE

// Every enumerator of each enum is listed: a switch per enum over its listed values, with no
// default, where a value not handled is an error. Each enum's line ends the switch before it and
// opens its own (the first closes a placeholder's).
#pragma GCC diagnostic error "-Wswitch"
#define WASINN_ABI_LISTED(c_type)                    \
  return true;                                       \
  }                                                  \
  return false;                                      \
  }                                                  \
  [[maybe_unused]] constexpr bool listed(c_type v) { \
    switch (v) {
#define WASINN_ABI_STRUCT(c_type, rust_type, size)
#define WASINN_ABI_FIELD(c_type, rust_type, c_field, rust_field, offset, c_field_type, rust_field_type)
#define WASINN_ABI_ENUM(c_type, rust_type, size) WASINN_ABI_LISTED(c_type)
#define WASINN_ABI_CONSTS(c_type, rust_room, rust_type) WASINN_ABI_LISTED(c_type)
#define WASINN_ABI_VALUE(c_type, rust_side, c_name, rust_name, value) case c_name:
namespace {
[[maybe_unused]] constexpr bool listed(std::nullptr_t) {
  switch (0) {
    case 0:
#include "abi_layouts.def"
      return true;
  }
  return false;
}
}  // namespace
