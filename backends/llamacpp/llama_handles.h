// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning handles of llama.cpp's model and context, for the graph, its contexts and the vocoder.
#pragma once

#include <llama.h>

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

}  // namespace wasinn::llamacpp
