// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning handles of llama.cpp's model and context, for the graph, its contexts and the vocoder,
// and the abort callback those contexts take.
#pragma once

#include <llama.h>

#include <atomic>
#include <memory>

namespace wasinn::llamacpp {

struct ModelDeleter {
  void operator()(llama_model* m) const noexcept { llama_model_free(m); }
};
using ModelPtr = std::unique_ptr<llama_model, ModelDeleter>;

struct ContextDeleter {
  void operator()(llama_context* c) const noexcept { llama_free(c); }
};
using ContextPtr = std::unique_ptr<llama_context, ContextDeleter>;

// llama_context_params.abort_callback on a std::atomic<bool> cancel flag (its data), which
// llama.cpp polls between graph nodes.
inline bool abort_requested(void* data) {
  return static_cast<const std::atomic<bool>*>(data)->load(std::memory_order_relaxed);
}

}  // namespace wasinn::llamacpp
