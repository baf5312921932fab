// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "embedding.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "token_stream.h"

namespace wasinn::llamacpp {

Error compute_embedding(llama_context* ctx, std::span<const llama_token> prompt, int32_t n_embd,
                        std::vector<float>& out) {
  if (prompt.empty()) return sdk::invalid("the prompt has no tokens");
  const uint32_t limit = std::min(llama_n_batch(ctx), llama_n_ctx(ctx));
  if (prompt.size() > limit) {
    return {WASINN_PROMPT_TOO_LONG, "the prompt has " + std::to_string(prompt.size()) +
                                        " tokens; an embedding takes at most batch-size (" + std::to_string(limit) +
                                        ")"};
  }
  llama_memory_clear(llama_get_memory(ctx), true);
  std::vector<llama_token> tokens(prompt.begin(), prompt.end());
  if (Error e = decode_tokens(ctx, tokens)) return e;
  const float* v = llama_get_embeddings_seq(ctx, 0);
  if (!v) v = llama_get_embeddings_ith(ctx, -1);  // pooling none: the last token's state
  if (!v) return sdk::runtime_error("llama.cpp returned no embedding for the prompt");
  double norm = 0.0;
  for (int32_t i = 0; i < n_embd; ++i) norm += static_cast<double>(v[i]) * v[i];
  norm = std::sqrt(norm);
  const double scale = norm > 0.0 ? 1.0 / norm : 0.0;
  out.resize(static_cast<size_t>(n_embd));
  for (int32_t i = 0; i < n_embd; ++i) out[i] = static_cast<float>(v[i] * scale);
  llama_memory_clear(llama_get_memory(ctx), true);  // stateless between calls, as WasmEdge is
  return {};
}

std::string embedding_as_wasmedge_json(std::span<const float> embedding) {
  std::string out = "{\"n_embedding\": " + std::to_string(embedding.size()) + ", \"embedding\": [";
  out.reserve(out.size() + embedding.size() * 16 + 2);
  char number[32];
  for (size_t i = 0; i < embedding.size(); ++i) {
    // fmt's "{:.10}" (WasmEdge's) is C's %.10g: the shortest of fixed and exponent form.
    const int n = std::snprintf(number, sizeof number, "%.10g", static_cast<double>(embedding[i]));
    if (i > 0) out += ',';
    out.append(number, static_cast<size_t>(n));
  }
  out += "]}";
  return out;
}

}  // namespace wasinn::llamacpp
