// One execution context of a graph: its own llama_context (KV cache) and sampler on the
// graph's shared weights, its options (the graph's, plus metadata the guest sets on input 1),
// the tokenized prompt and the outputs of the last generation.
#pragma once

#include <llama.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llm_config.h"
#include "llm_error.h"
#include "llm_graph.h"
#include "llm_handles.h"
#include "llm_token_stream.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_llama {

// The llama_context parameters that need a new llama_context when they change.
struct ContextShape {
  uint32_t n_ctx = 0;
  uint32_t n_batch = 0;
  uint32_t n_ubatch = 0;
  bool embedding = false;
  bool operator==(const ContextShape &) const = default;
};

}  // namespace wasinn_llama

struct wasinn_context {
  explicit wasinn_context(wasinn_graph *g) : graph(g), options(g->options) {}

  wasinn_graph *graph;  // outlives the context (the host releases contexts first)
  wasinn_llama::LlamaOptions options;
  wasinn_llama::ContextPtr llama;  // made on first use, remade when the shape changes
  wasinn_llama::ContextShape shape;
  std::atomic<bool> cancel_requested{false};  // polled by llama_decode's abort callback

  std::vector<llama_token> prompt;
  bool has_prompt = false;
  wasinn_llama::TokenStream stream;
  bool streaming = false;            // compute_single owns the stream until fini_single
  bool output_is_embedding = false;  // output 0 of the last compute is the embedding
  std::vector<float> embedding;
  std::string metadata;  // output 1, rebuilt on each request
  uint32_t out_dims[1] = {0};
};

namespace wasinn_llama {

Error create_context(wasinn_graph &graph, std::unique_ptr<wasinn_context> &out);
Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor &tensor);
Error compute(wasinn_context &ctx);
Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out);
Error compute_single(wasinn_context &ctx);
Error get_output_single(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out);
Error fini_single(wasinn_context &ctx);

}  // namespace wasinn_llama
