// Loading: the model source, the load config, the GGUF checks around llama.cpp's load, and the
// slots every graph declares.
#include "graph.h"

#include <vector>

#include "backend.h"
#include "context.h"
#include "log_router.h"
#include "model_checks.h"
#include "model_source.h"

namespace wasinn::llamacpp {
namespace {

// words: the framework type guests see; "optional" tells a named compute it may be left out.
sdk::IoDesc bytes_slot(const char *name, const char *words) {
  return {.name = name, .type = WASINN_TYPE_U8, .rank = 1, .dims = {-1}, .not_a_tensor = {}, .framework_type = words};
}

// Function statics: built once, thread-safely, and alive for the process, so every graph's
// io() (and the names and dims graph_io_info hands out) points into them.
const std::vector<sdk::IoDesc> &slots(sdk::Side side) {
  static const std::vector<sdk::IoDesc> inputs = {bytes_slot("prompt", "UTF-8 text"),
                                                  bytes_slot("metadata", "optional JSON object")};
  static const std::vector<sdk::IoDesc> outputs = {bytes_slot("text", "UTF-8 text"), bytes_slot("metadata", "JSON object")};
  return side == sdk::Side::input ? inputs : outputs;
}

}  // namespace

std::span<const sdk::IoDesc> LlamaGraph::io(sdk::Side side) const { return slots(side); }

Error LlamaGraph::load(const LlamaBackend &backend, const sdk::LoadRequest &request,
                       std::unique_ptr<LlamaGraph> &out) {
  ModelSource source;
  if (Error e = resolve_model_source(request, backend.config().allow_preload_paths, source)) return e;
  auto graph = std::make_unique<LlamaGraph>();
  std::vector<IgnoredKey> ignored;
  for (const auto &config : source.configs())
    if (Error e = apply_config(config, "load config", graph->options_, ignored)) return e;
  log_ignored(ignored, "load");

  const LlamaOptions &o = graph->options_;
  LogScope scope(o.enable_log);
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;  // CPU-only build: n-gpu-layers is accepted but has nothing to offload to
  params.load_mode = o.use_mmap ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;
  std::vector<const char *> paths;
  for (const auto &p : source.paths()) paths.push_back(p.c_str());
  if (!paths.empty()) {  // metadata lives in the first split
    if (Error e = check_gguf_header(paths[0])) return e;
  }
  llama_model *model = paths.size() == 1 ? llama_model_load_from_file(paths[0], params)
                                         : llama_model_load_from_splits(paths.data(), paths.size(), params);
  if (!model) {
    const std::string why = scope.errors().empty() ? "" : ": " + scope.errors();
    return sdk::invalid("load: llama.cpp could not load " + source.description() + why);
  }
  graph->model_.reset(model);
  if (Error e = check_loaded_model(model)) return e;
  graph->vocab_ = llama_model_get_vocab(model);
  graph->n_embd_ = llama_model_n_embd(model);
  const int32_t n_ctx_train = llama_model_n_ctx_train(model);
  graph->n_ctx_train_ = n_ctx_train > 0 ? static_cast<uint32_t>(n_ctx_train) : 0;
  debug_note(o.enable_debug_log, [&] {
    char desc[128] = {};
    llama_model_desc(model, desc, sizeof desc);
    return "load: " + source.description() + ": " + desc + ", " +
           std::to_string(llama_model_size(model)) + " bytes";
  });
  out = std::move(graph);
  return {};
}

}  // namespace wasinn::llamacpp
