// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The embedding of a prompt: one vector of n_embd floats, pooled by the model's pooling type,
// or, for a model without one (a decoder such as llama), the last token's hidden state, as
// WasmEdge's GGML plugin returns it. L2-normalised, as llama.cpp's embedding tool does by default.
// And reranking ("reranking": true): documents scored against a query by a model whose GGUF pools
// by rank (a classification head: cls / cls.output), as llama-server's /v1/rerank scores them.
#pragma once

#include <llama.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// `ctx` must have been created with embeddings on and n_ubatch == n_batch. PROMPT_TOO_LONG
// when the prompt does not fit one batch (pooling needs every token in one pass).
// INVALID_ARGUMENT for a reranker (rank pooling), whose output is a score, not an embedding.
Error compute_embedding(llama_context* ctx, std::span<const llama_token> prompt, int32_t n_embd,
                        std::vector<float>& out);

// WasmEdge's GGML plugin's text for an embedding, byte for byte:
// {"n_embedding": N, "embedding": [v0,v1,...]}, each value with 10 significant digits.
std::string embedding_as_wasmedge_json(std::span<const float> embedding);

// The most documents one reranking input takes: each repeats the query's tokens.
inline constexpr size_t kMaxRerankDocuments = 10000;

// A reranking input, {"query": "...", "documents": ["...", ...]}, as one token sequence per
// document, made as llama-server's format_prompt_rerank makes it: the model's rerank template
// (tokenizer.chat_template.rerank) with {query} and {document} replaced, else [BOS] query
// [EOS][SEP] document [EOS], each special token where the vocabulary adds it. A pair over
// `max_bytes` is refused before it is tokenized; `n_tokens` is the pairs' total.
Error rerank_pairs(const llama_model* model, std::string_view input, size_t max_bytes,
                   std::vector<std::vector<llama_token>>& out, size_t& n_tokens);

// One score per pair: the classification head's first output, as llama-server's, each pair
// decoded alone; `ctx` must have been created with embeddings on and n_ubatch == n_batch.
// INVALID_ARGUMENT when the context does not pool by rank (the model is not a reranker),
// PROMPT_TOO_LONG for a pair over n_batch tokens.
Error compute_rank_scores(llama_context* ctx, std::span<const std::vector<llama_token>> pairs, std::vector<float>& out);

}  // namespace wasinn::llamacpp
