// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded GGUF model: one llama_model per graph, shared read-only by all of its contexts, so
// two contexts cost one copy of the weights, and one shared llama_context whose sequences their
// generations are (shared_context.h); a context that cannot take a sequence (another shape, an
// image, all busy) makes a llama_context of its own. Immutable after load but for that shared one.
//
// The slots guests address are fixed, the same for every model (WasmEdge's GGML convention):
//   input 0 "prompt"      UTF-8 bytes, tokenized at set_input
//   input 1 "metadata"    a JSON object of config keys for the context
//   input 2 "messages"    a JSON chat, made the prompt by the model's template
//   input 3 "image"       an image file's bytes, for a graph loaded with "mmproj" (vision.h)
//   output 0 "text"       the generated text (u8), or with "embedding": true the embedding: f32
//                         to a caller of typed tensors (WIT), else WasmEdge's JSON text (u8);
//                         with "tts": true the speech, a WAV file's bytes (vocoder.h)
//                         with "reranking": true one f32 score per document of input 0's
//                         {"query", "documents"} object (embedding.h)
//   output 1 "metadata"   JSON: token counts and the llama.cpp build
// Any element type and dims are taken as raw bytes: WasmEdge's guests send u8 with dims [1].
#pragma once

#include <llama.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chat_template.h"
#include "config.h"
#include "llama_handles.h"
#include "rope_options.h"
#include "shared_context.h"
#include "tts_prompt.h"
#include "vision.h"
#include "vocoder.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::llamacpp {

class LlamaBackend;
class LlamaContext;

// The llama_context parameters that need a new llama_context when they change.
struct ContextShape {
  uint32_t n_ctx = 0;
  uint32_t n_batch = 0;
  uint32_t n_ubatch = 0;
  bool embedding = false;
  RopeOptions rope;  // the shared context's too: a context with other values makes its own
  int32_t pooling = LLAMA_POOLING_TYPE_UNSPECIFIED;      // an embedding context's
  int32_t attention = LLAMA_ATTENTION_TYPE_UNSPECIFIED;  // an embedding context's
  bool operator==(const ContextShape&) const = default;
};

class LlamaGraph {
 public:
  static Error load(const LlamaBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<LlamaGraph>& out);

  std::span<const sdk::IoDesc> io(sdk::Side side) const;
  Error create_context(std::unique_ptr<LlamaContext>& out);
  // The GGUF metadata (values over 4 KiB, the tokenizer's vocabulary, left out), then the
  // context options a guest may set, at this graph's values.
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const;

  llama_model* model() const { return model_.get(); }
  const llama_vocab* vocab() const { return vocab_; }
  // Defaults plus the load config: the starting options of every context of this graph.
  const LlamaOptions& options() const { return options_; }
  int32_t n_embd() const { return n_embd_; }
  uint32_t n_ctx_train() const { return n_ctx_train_; }
  // The most bytes of text one token of the vocabulary stands for (special tokens included): a
  // prompt longer than n_ctx times this cannot fit, and is refused before it is tokenized.
  size_t longest_piece() const { return longest_piece_; }
  // The multimodal projector loaded with the model ("mmproj"), or null for a text-only graph.
  Projector* projector() const { return projector_.get(); }
  // The operator's allow-preload-paths: may a guest name a host file (an "image" path)?
  bool allow_host_paths() const { return allow_host_paths_; }
  // Text to speech ("tts": true): the vocoder and the speaker profile, else null.
  Vocoder* vocoder() const { return vocoder_.get(); }
  const SpeakerProfile* speaker() const { return speaker_.get(); }
  // The chat templates input 2 is rendered with (null for a text-to-speech graph).
  const ChatTemplates* chat_templates() const { return chat_templates_.get(); }
  // The shared context for generations of `shape` (n_ctx per sequence), made by the first one
  // with "parallel" sequences; null for any other shape, or when it could not be made.
  SharedContext* shared_context(const ContextShape& shape, uint32_t threads);

 private:
  ModelPtr model_;
  const llama_vocab* vocab_ = nullptr;  // owned by model_
  LlamaOptions options_;
  int32_t n_embd_ = 0;
  uint32_t n_ctx_train_ = 0;
  size_t longest_piece_ = 1;
  std::vector<sdk::Property> properties_;
  std::unique_ptr<Projector> projector_;  // freed before model_, which it reads
  std::unique_ptr<Vocoder> vocoder_;
  std::unique_ptr<SpeakerProfile> speaker_;
  std::unique_ptr<ChatTemplates> chat_templates_;
  bool allow_host_paths_ = false;
  std::mutex shared_mu_;
  bool shared_tried_ = false;
  ContextShape shared_shape_;
  std::unique_ptr<SharedContext> shared_;  // freed first: it holds a llama_context of model_
};

}  // namespace wasinn::llamacpp
