#include "llm_graph.h"

#include <mutex>

#include <nlohmann/json.hpp>

#include "llm_log.h"
#include "llm_model_checks.h"
#include "llm_model_source.h"

namespace wasinn_llama {
namespace {

struct IoEntry {
  const char *name;
  int32_t type;
};
constexpr std::array<IoEntry, 2> kInputs = {{{"prompt", WASINN_TYPE_U8}, {"metadata", WASINN_TYPE_U8}}};
constexpr std::array<IoEntry, 2> kOutputs = {{{"text", WASINN_TYPE_U8}, {"metadata", WASINN_TYPE_U8}}};
const int64_t kDynamic[1] = {-1};

}  // namespace

void log_ignored(const std::vector<IgnoredKey> &ignored, const char *where) {
  for (const auto &k : ignored) log_line(std::string(where) + ": ignoring config key \"" + k.key + "\" (" + k.reason + ")");
}

Error create_backend(const char *config, size_t config_length, std::unique_ptr<wasinn_backend> &out) {
  auto backend = std::make_unique<wasinn_backend>();
  if (config && config_length > 0) {
    const auto doc = nlohmann::json::parse(config, config + config_length, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      return {WASINN_INVALID_ARGUMENT, "llamacpp backend config must be a JSON object"};
    }
    for (const auto &[key, value] : doc.items()) {
      if (key == "allow-preload-paths") {
        if (!value.is_boolean()) {
          return {WASINN_INVALID_ARGUMENT, "backend config key \"allow-preload-paths\" must be true or false"};
        }
        backend->allow_preload_paths = value.get<bool>();
      } else {
        log_line("backend config: ignoring unknown key \"" + key + "\"");
      }
    }
  }
  // Process-wide and idempotent; the CPU backend is linked in, so nothing is loaded at run time.
  static std::once_flag init_once;
  std::call_once(init_once, [] { llama_backend_init(); });
  install_log_router();
  out = std::move(backend);
  return {};
}

Error load_graph(const wasinn_backend &backend, const wasinn_load_request &request,
                 std::unique_ptr<wasinn_graph> &out) {
  ModelSource source;
  if (Error e = resolve_model_source(request, backend.allow_preload_paths, source)) return e;
  auto graph = std::make_unique<wasinn_graph>();
  std::vector<IgnoredKey> ignored;
  for (const auto &config : source.configs()) {
    if (Error e = apply_config(config, graph->options, ignored)) return {e.status, "load: " + e.message};
  }
  log_ignored(ignored, "load");

  LogScope scope(graph->options.enable_log);
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;  // CPU-only build: n-gpu-layers is accepted but has nothing to offload to
  params.load_mode = graph->options.use_mmap ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;
  std::vector<const char *> paths;
  for (const auto &p : source.paths()) paths.push_back(p.c_str());
  if (!paths.empty()) {  // metadata lives in the first split
    if (Error e = check_gguf_header(paths[0])) return e;
  }
  llama_model *model = paths.size() == 1 ? llama_model_load_from_file(paths[0], params)
                                         : llama_model_load_from_splits(paths.data(), paths.size(), params);
  if (!model) {
    const std::string why = scope.errors().empty() ? "" : ": " + scope.errors();
    return {WASINN_INVALID_ARGUMENT, "load: llama.cpp could not load " + source.description() + why};
  }
  graph->model.reset(model);
  if (Error e = check_loaded_model(model)) return e;
  graph->vocab = llama_model_get_vocab(model);
  graph->n_embd = llama_model_n_embd(model);
  const int32_t n_ctx_train = llama_model_n_ctx_train(model);
  graph->n_ctx_train = n_ctx_train > 0 ? static_cast<uint32_t>(n_ctx_train) : 0;
  graph->source = source.description();
  if (graph->options.enable_debug_log) {
    char desc[128] = {};
    llama_model_desc(model, desc, sizeof desc);
    log_line("load: " + graph->source + ": " + desc + ", " + std::to_string(llama_model_size(model)) + " bytes");
  }
  out = std::move(graph);
  return {};
}

size_t io_count(bool is_output) { return is_output ? kOutputs.size() : kInputs.size(); }

Error io_info(bool is_output, size_t index, wasinn_io_info &out) {
  const auto &table = is_output ? kOutputs : kInputs;
  if (index >= table.size()) return {WASINN_INVALID_ARGUMENT, "no such input or output"};
  out.name = table[index].name;
  out.type = table[index].type;
  out.rank = 1;
  out.dims = kDynamic;
  return {};
}

}  // namespace wasinn_llama
