// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C side of abi_layouts.def: every C struct the crate mirrors has the size and field offsets
// listed there (build.rs checks the Rust side against the same list). Compiled, never linked.
#include <cstddef>

#include "engine/wit_host.h"
#include "serve/http/serve_host.h"
#include "serve/pipeline/pipeline_host.h"
#include "wasinn/request_record.h"

#define WASINN_ABI_STRUCT(c_type, rust_type, size) \
  static_assert(sizeof(c_type) == (size), "abi_layouts.def: the size of " #c_type);
#define WASINN_ABI_FIELD(c_type, rust_type, c_field, rust_field, offset) \
  static_assert(offsetof(c_type, c_field) == (offset), "abi_layouts.def: the offset of " #c_type "." #c_field);
#include "abi_layouts.def"
