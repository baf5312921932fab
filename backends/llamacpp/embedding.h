// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The embedding of a prompt: one vector of n_embd floats, pooled by the model's pooling type,
// or, for a model without one (a decoder such as llama), the last token's hidden state, as
// WasmEdge's GGML plugin returns it. L2-normalised, as llama.cpp's embedding tool does by default.
#pragma once

#include <llama.h>

#include <span>
#include <string>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// `ctx` must have been created with embeddings on and n_ubatch == n_batch. PROMPT_TOO_LONG
// when the prompt does not fit one batch (pooling needs every token in one pass).
Error compute_embedding(llama_context* ctx, std::span<const llama_token> prompt, int32_t n_embd,
                        std::vector<float>& out);

// WasmEdge's GGML plugin's text for an embedding, byte for byte:
// {"n_embedding": N, "embedding": [v0,v1,...]}, each value with 10 significant digits.
std::string embedding_as_wasmedge_json(std::span<const float> embedding);

}  // namespace wasinn::llamacpp
