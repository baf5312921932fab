// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning handles of llama.cpp's model and context, for the graph, its contexts and the vocoder,
// and the abort callback those contexts take.
#pragma once

#include <llama.h>

#include <atomic>
#include <memory>

#include "plugin_common/c_handles.hpp"

namespace wasinn::llamacpp {

using ModelPtr = plugin_common::FunctionHandle<llama_model, llama_model_free>;
using ContextPtr = plugin_common::FunctionHandle<llama_context, llama_free>;

// llama_context_params.abort_callback on a std::atomic<bool> cancel flag (its data), which
// llama.cpp polls between graph nodes.
inline bool abort_requested(void* data) {
  return static_cast<const std::atomic<bool>*>(data)->load(std::memory_order_relaxed);
}

}  // namespace wasinn::llamacpp
