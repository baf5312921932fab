// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning handles for LiteRT objects and for the 64-byte-aligned host memory that LiteRT tensor
// buffers wrap, so every object is released exactly once on every path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>

#include "litert_c_api.h"
#include "plugin_common/c_handles.hpp"

namespace wasinn::tensorflowlite {

// A LiteRT handle type is a pointer: Owned<LiteRtModel, LiteRtDestroyModel>.
template <typename Handle, void (*Destroy)(Handle)>
using Owned = plugin_common::FunctionHandle<std::remove_pointer_t<Handle>, Destroy>;

using EnvironmentPtr = Owned<LiteRtEnvironment, LiteRtDestroyEnvironment>;
using ModelPtr = Owned<LiteRtModel, LiteRtDestroyModel>;
using OptionsPtr = Owned<LiteRtOptions, LiteRtDestroyOptions>;
using CompiledModelPtr = Owned<LiteRtCompiledModel, LiteRtDestroyCompiledModel>;
using TensorBufferPtr = Owned<LiteRtTensorBuffer, LiteRtDestroyTensorBuffer>;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using HostMemory = std::unique_ptr<std::byte, FreeDeleter>;

// `bytes` (at least 1) rounded up to LiteRT's host alignment, or nullptr when out of memory.
inline HostMemory allocate_host(size_t bytes, size_t& capacity) {
  constexpr size_t a = LITERT_HOST_MEMORY_BUFFER_ALIGNMENT;
  if (bytes > SIZE_MAX - a) return nullptr;
  capacity = bytes == 0 ? a : (bytes + a - 1) / a * a;
  return HostMemory(static_cast<std::byte*>(std::aligned_alloc(a, capacity)));
}

}  // namespace wasinn::tensorflowlite
