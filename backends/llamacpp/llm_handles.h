// Owning handles for llama.cpp objects, so every early return frees what was made.
#pragma once

#include <llama.h>

#include <memory>

namespace wasinn_llama {

struct ModelDeleter {
  void operator()(llama_model *m) const noexcept { llama_model_free(m); }
};
struct ContextDeleter {
  void operator()(llama_context *c) const noexcept { llama_free(c); }
};
struct SamplerDeleter {
  void operator()(llama_sampler *s) const noexcept { llama_sampler_free(s); }
};

using ModelPtr = std::unique_ptr<llama_model, ModelDeleter>;
using ContextPtr = std::unique_ptr<llama_context, ContextDeleter>;
using SamplerPtr = std::unique_ptr<llama_sampler, SamplerDeleter>;

}  // namespace wasinn_llama
