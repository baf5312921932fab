// A loaded GGUF model: one llama_model per graph, shared read-only by all of its contexts, so
// two contexts cost one copy of the weights (plus a KV cache each).
#pragma once

#include <llama.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "llm_config.h"
#include "llm_error.h"
#include "llm_handles.h"
#include "wasinn/backend_plugin.h"

struct wasinn_backend {
  bool allow_preload_paths = false;  // may a guest's load() name a host file ("preload:<path>")?
};

struct wasinn_graph {
  wasinn_llama::ModelPtr model;
  const llama_vocab *vocab = nullptr;  // owned by model
  // Defaults plus the load config: the starting options of every context of this graph.
  wasinn_llama::LlamaOptions options;
  int32_t n_embd = 0;
  uint32_t n_ctx_train = 0;
  std::string source;  // for messages
};

namespace wasinn_llama {

Error create_backend(const char *config, size_t config_length, std::unique_ptr<wasinn_backend> &out);

Error load_graph(const wasinn_backend &backend, const wasinn_load_request &request,
                 std::unique_ptr<wasinn_graph> &out);

// What guests address: inputs 0 prompt, 1 metadata; outputs 0 text (or embedding), 1 metadata.
size_t io_count(bool is_output);
Error io_info(bool is_output, size_t index, wasinn_io_info &out);

// Logs config keys that were skipped, one line each.
void log_ignored(const std::vector<IgnoredKey> &ignored, const char *where);

}  // namespace wasinn_llama
