// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One execution context of a graph: a sequence of the graph's shared llama_context for each
// generation, or a llama_context (KV cache) of its own, and its sampler, on the graph's weights, its options (the
// graph's, plus metadata the guest sets on input 1), the tokenized prompt and the outputs of the last generation. Used
// by one thread at a time, except cancel().
#pragma once

#include <llama.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat_message.h"
#include "chat_template.h"
#include "config.h"
#include "graph.h"
#include "llama_handles.h"
#include "token_stream.h"
#include "vision.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::llamacpp {

class LlamaGraph;
}  // namespace wasinn::llamacpp
namespace wasinn::ggml_common {
class LogScope;
}  // namespace wasinn::ggml_common
namespace wasinn::llamacpp {

class LlamaContext {
 public:
  explicit LlamaContext(LlamaGraph& graph);
  LlamaContext(const LlamaContext&) = delete;
  LlamaContext& operator=(const LlamaContext&) = delete;

  WASINN_SDK_CONTEXT()
  WASINN_SDK_STREAMING()
  // llama_decode polls the flag between graph nodes (its abort callback).
  // A generation waiting for the shared context's steps stops waiting at once.
  void cancel() noexcept {
    cancel_requested_.store(true);
    if (SharedContext* shared = shared_used_.load()) shared->wake();
  }
  // The token metrics since the last take (context_take_token_stats).
  void take_token_stats(wasinn_token_stats& out) noexcept { stream_.take_stats(out); }
  // A context option as a property (wasinn:nn-ext), for the next compute.
  Error set_property(std::string_view name, std::string_view value) {
    return set_context_option(name, value, options_);
  }

 private:
  ContextShape wanted_shape() const;
  Error prepare_llama_context(const ggml_common::LogScope& scope);
  Error start_generation(const ggml_common::LogScope& scope);
  // parse_special always; add_special (BOS, as the vocabulary says) only for a prompt's start.
  Error tokenize(std::string_view text, std::vector<llama_token>& out, bool add_special = true) const;
  // Text to speech: the OuteTTS prompt of the text to speak (tts_prompt.h), as WasmEdge builds it.
  Error tokenize_tts_prompt(std::string_view text, std::vector<llama_token>& out) const;
  // Text to speech: the generated codes as the WAV of output 0, and the "tts-output-file".
  Error speak();
  // A prompt's text with this context's images, made the prompt to generate from. `chat`: the
  // text is a chat template's (input 2), with the messages' images (ChatTurn::images): its text
  // holds no image, and its "<image>" is the user's text when the messages have images.
  Error prepare_prompt(const std::string& text, const ggml_common::LogScope& scope, const ChatTurn* chat = nullptr);
  Error collect_images(std::vector<std::string>& inline_images, const ggml_common::LogScope& scope,
                       std::vector<BitmapPtr>& owned, std::vector<const mtmd_bitmap*>& images) const;
  // "reranking" set or cleared after the prompt: the prompt read again as the mode now takes it.
  Error prompt_for_mode(const ggml_common::LogScope& scope);
  Error rerank(const ggml_common::LogScope& scope);  // "reranking": true's compute (embedding.h)
  void set_metadata(wasinn_tensor& out);
  void print_perf();  // "enable-log": llama.cpp's perf counters of the context the generation ran on

  LlamaGraph* graph_;  // outlives the context (the host releases contexts first)
  LlamaOptions options_;
  ContextPtr llama_;  // made on first use, remade when the shape changes
  ContextShape shape_;
  // The graph's, when the last generation ran on it (read by cancel(), on any thread).
  std::atomic<SharedContext*> shared_used_{nullptr};
  std::atomic<bool> cancel_requested_{false};

  std::string prompt_text_;           // the prompt as given (or as the chat template made it)
  std::optional<ChatTurn> chat_;      // the chat layer's turn when the prompt came from input 2
  std::unique_ptr<ChatReply> reply_;  // its answer's message, from the generation's start
  BitmapPtr image_;                   // input 3, until replaced or cleared with an empty tensor
  std::vector<llama_token> prompt_;   // a text prompt's tokens
  ChunksPtr chunks_;                  // or a prompt with images: its text and image chunks

  // Or, with "reranking", each document's pair with the query (embedding.h).
  std::vector<std::vector<llama_token>> rerank_pairs_;
  bool prompt_is_rerank_ = false;
  size_t n_prompt_tokens_ = 0;
  bool has_prompt_ = false;
  TokenStream stream_;
  bool streaming_ = false;            // compute_single owns the stream until fini_single
  bool output_is_embedding_ = false;  // output 0 of the last compute is the embedding
  std::vector<float> embedding_;
  std::string embedding_json_;  // output 0 as WasmEdge's JSON text, or "" for f32
  std::string metadata_;        // output 1, rebuilt on each request
  std::vector<uint8_t> wav_;    // output 0 of a text-to-speech graph's last compute
  uint32_t out_dims_[1] = {0};
};

}  // namespace wasinn::llamacpp
