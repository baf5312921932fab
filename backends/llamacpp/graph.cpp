// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: the model source, the load config, the GGUF checks around llama.cpp's load, and the
// slots every graph declares.
#include "graph.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "backend.h"
#include "context.h"
#include "host_file.h"
#include "ggml_common/log_router.h"
#include "model_checks.h"
#include "model_source.h"
#include "placement.h"

namespace wasinn::llamacpp {

using ggml_common::debug_note;
using ggml_common::LogScope;
using ggml_common::note;
namespace {

// words: the framework type guests see; "optional" tells a named compute it may be left out.
sdk::IoDesc bytes_slot(const char* name, const char* words) {
  return {.name = name, .type = WASINN_TYPE_U8, .rank = 1, .dims = {-1}, .not_a_tensor = {}, .framework_type = words};
}

// Function statics: built once, thread-safely, and alive for the process, so every graph's
// io() (and the names and dims graph_io_info hands out) points into them.
const std::vector<sdk::IoDesc>& slots(sdk::Side side) {
  static const std::vector<sdk::IoDesc> inputs = {bytes_slot("prompt", "UTF-8 text (optional when messages is given)"),
                                                  bytes_slot("metadata", "optional JSON object"),
                                                  bytes_slot("messages", "optional JSON chat messages"),
                                                  bytes_slot("image", "optional image file (PNG, JPEG, ...)")};
  static const std::vector<sdk::IoDesc> outputs = {bytes_slot("text", "UTF-8 text"),
                                                   bytes_slot("metadata", "JSON object")};
  return side == sdk::Side::input ? inputs : outputs;
}

// The model's GGUF key/values as llama.cpp reads them; a value longer than kMaxValue (the
// tokenizer's arrays) is left out rather than cut.
std::vector<sdk::Property> gguf_properties(const llama_model* model) {
  constexpr int32_t kMaxValue = 4096;
  std::vector<sdk::Property> out;
  std::vector<char> key(256), value(kMaxValue + 1);
  const int32_t n = llama_model_meta_count(model);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t klen = llama_model_meta_key_by_index(model, i, key.data(), key.size());
    const int32_t vlen = llama_model_meta_val_str_by_index(model, i, value.data(), value.size());
    if (klen <= 0 || klen >= static_cast<int32_t>(key.size()) || vlen < 0 || vlen > kMaxValue) continue;
    out.push_back({std::string(key.data(), klen), std::string(value.data(), vlen), false});
  }
  return out;
}

Error host_file_refused(std::string_view key, const std::string& path) {
  return {WASINN_SECURITY, "load config: \"" + std::string(key) + "\": a guest may not name a host file ('" + path +
                               "'); allow it with --backend-config llamacpp={\"allow-preload-paths\":true}"};
}

// Text to speech's keys, checked before anything loads: they go together, and name host files
// (`preloaded_vocoder`: the vocoder is the operator's preload, no guest's choice).
Error check_tts_options(const LlamaOptions& o, bool allow_host_paths, bool preloaded_vocoder) {
  if (!o.tts) {
    if (!o.model_vocoder.empty() || !o.tts_output_file.empty() || !o.tts_speaker_file.empty()) {
      return sdk::invalid(
          "load config: \"model-vocoder\", \"tts-speaker-file\" and \"tts-output-file\" are for text to speech: "
          "set \"tts\": true");
    }
    return {};
  }
  if (o.model_vocoder.empty()) {
    return sdk::invalid(
        "load config: \"tts\": true needs \"model-vocoder\", the path of a WavTokenizer decoder (GGUF)");
  }
  if (o.embedding) return sdk::invalid("load config: \"tts\" and \"embedding\" exclude each other");
  if (!o.mmproj.empty())
    return sdk::unsupported("load config: \"tts\" with \"mmproj\": a speech model takes no images");
  const std::pair<const char*, const std::string*> files[] = {{"model-vocoder", &o.model_vocoder},
                                                              {"tts-speaker-file", &o.tts_speaker_file},
                                                              {"tts-output-file", &o.tts_output_file}};
  for (const auto& [key, path] : files) {
    const bool operators = preloaded_vocoder && path == &o.model_vocoder;
    if (!path->empty() && !allow_host_paths && !operators) return host_file_refused(key, *path);
  }
  if (Error e = Vocoder::check_path(o.model_vocoder)) return e;
  if (!o.tts_output_file.empty()) {
    const std::filesystem::path parent = std::filesystem::path(o.tts_output_file).parent_path();
    std::error_code ec;
    if (o.tts_output_file.find('\0') != std::string::npos ||
        (!parent.empty() && !std::filesystem::is_directory(parent, ec))) {
      return {WASINN_NOT_FOUND, "load config: \"tts-output-file\": no directory " + parent.string() + " to write '" +
                                    o.tts_output_file + "' in"};
    }
  }
  return {};
}

// The speaker profile: the file the guest names (at most 1 MiB), else OuteTTS's en_female_1.
Error read_speaker(const std::string& path, std::unique_ptr<SpeakerProfile>& out) {
  out = std::make_unique<SpeakerProfile>();
  if (path.empty()) {
    *out = default_speaker_profile();
    return {};
  }
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  const std::string what = "load config: \"tts-speaker-file\": " + path;
  if (Error e = check_host_file(path, what)) return e;
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) > kMaxBytes) return sdk::invalid(what + " is over 1 MiB");
  std::string text;
  if (!read_host_file(path, text)) return sdk::runtime_error(what + " could not be read");
  return parse_speaker_profile(text, what, *out);
}

// The operator's template: "chat-template", or the file "chat-template-file" names (a host file:
// the operator's consent, at most 1 MiB), not both.
Error chat_template_source(const LlamaOptions& o, bool allow_host_paths, std::string& out) {
  out = o.chat_template;
  if (o.chat_template_file.empty()) return {};
  if (!o.chat_template.empty())
    return sdk::invalid("load config: give \"chat-template\" or \"chat-template-file\", not both");
  if (!allow_host_paths) return host_file_refused("chat-template-file", o.chat_template_file);
  const std::string what = "load config: \"chat-template-file\": " + o.chat_template_file;
  if (Error e = check_host_file(o.chat_template_file, what)) return e;
  std::error_code ec;
  if (std::filesystem::file_size(o.chat_template_file, ec) > (1u << 20)) return sdk::invalid(what + " is over 1 MiB");
  if (!read_host_file(o.chat_template_file, out)) return sdk::runtime_error(what + " could not be read");
  if (out.empty()) return sdk::invalid(what + " is empty");
  return {};
}

// OuteTTS's audio codes sit at fixed token ids, which WasmEdge's code (and so this) assumes.
Error check_outetts_vocab(const llama_vocab* vocab, const std::string& description) {
  const int32_t last = kFirstCodeToken + kMaxSpeakerCode;
  if (llama_vocab_n_tokens(vocab) <= last) {
    return sdk::invalid("load config: \"tts\": " + description + " is not an OuteTTS model: it has " +
                        std::to_string(llama_vocab_n_tokens(vocab)) + " tokens, and OuteTTS's audio codes are tokens " +
                        std::to_string(kFirstCodeToken) + " to " + std::to_string(last));
  }
  for (int32_t code : {0, kMaxSpeakerCode}) {
    const char* text = llama_vocab_get_text(vocab, kFirstCodeToken + code);
    const std::string want = "<|" + std::to_string(code) + "|>";
    if (!text || want != text) {
      return sdk::invalid("load config: \"tts\": " + description + " is not an OuteTTS model: its token " +
                          std::to_string(kFirstCodeToken + code) + " is '" + (text ? text : "") + "', not " + want);
    }
  }
  return {};
}

// The most bytes one token's text takes (a pass over the vocabulary at load, milliseconds).
size_t longest_piece_of(const llama_vocab* vocab) {
  size_t longest = 1;
  char buf[256];
  for (llama_token t = 0, n = llama_vocab_n_tokens(vocab); t < n; ++t) {
    const int32_t len = llama_token_to_piece(vocab, t, buf, sizeof buf, 0, /*special=*/true);
    // Negative: longer than the buffer, by its size.
    longest = std::max(longest, static_cast<size_t>(len < 0 ? -static_cast<int64_t>(len) : len));
  }
  return longest;
}

}  // namespace

std::span<const sdk::IoDesc> LlamaGraph::io(sdk::Side side) const { return slots(side); }

Error LlamaGraph::load(const LlamaBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<LlamaGraph>& out) {
  ModelSource source;
  if (Error e = resolve_model_source(request, backend.config().allow_preload_paths, source)) return e;
  auto graph = std::make_unique<LlamaGraph>();
  graph->options_.parallel = backend.config().parallel;
  graph->options_.cache_ram = backend.config().cache_ram;
  std::vector<IgnoredKey> ignored;
  for (const auto& config : source.configs())
    if (Error e = apply_config(config, "load config", graph->options_, ignored)) return e;
  log_ignored(ignored, "load");

  if (!source.projector().empty()) {
    if (!graph->options_.mmproj.empty()) {
      return sdk::invalid("load: two projectors: the preload's " + source.projector() +
                          " and the load config's \"mmproj\" " + graph->options_.mmproj + "; give one");
    }
    graph->options_.mmproj = source.projector();
  }
  if (!source.vocoder().empty()) {
    if (!graph->options_.model_vocoder.empty() && graph->options_.model_vocoder != source.vocoder()) {
      return sdk::invalid("load: two vocoders: the preload's " + source.vocoder() +
                          " and the load config's \"model-vocoder\" " + graph->options_.model_vocoder + "; give one");
    }
    graph->options_.model_vocoder = source.vocoder();
    graph->options_.tts = true;  // a preloaded vocoder makes the graph a speech model
  }
  const LlamaOptions& o = graph->options_;
  // A projector is a host path the guest names: the operator's consent, as for "preload:". One the
  // preload names is the operator's own.
  if (!o.mmproj.empty() && source.projector().empty() && !backend.config().allow_preload_paths)
    return host_file_refused("mmproj", o.mmproj);
  if (Error e = check_tts_options(o, backend.config().allow_preload_paths, !source.vocoder().empty())) return e;
  if (o.tts) {
    if (Error e = read_speaker(o.tts_speaker_file, graph->speaker_)) return e;
  }
  Placement placement;
  if (Error e = place(backend.device_set(), request.target(), o, placement)) return e;
  LogScope scope(o.enable_log);
  llama_model_params params = llama_model_default_params();
  params.devices = placement.devices.data();  // never null: llama.cpp would take every device
  params.n_gpu_layers = placement.n_gpu_layers;
  params.main_gpu = 0;  // an index into params.devices, which holds only the chosen GPUs
  params.load_mode = o.use_mmap ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;
  std::vector<const char*> paths;
  for (const auto& p : source.paths()) paths.push_back(p.c_str());
  if (!paths.empty()) {  // metadata lives in the first split
    if (Error e = check_gguf_header(paths[0])) return e;
  }
  llama_model* model = nullptr;
  {
    const auto reading = backend.device_set().registry_reader();
    model = paths.size() == 1 ? llama_model_load_from_file(paths[0], params)
                              : llama_model_load_from_splits(paths.data(), paths.size(), params);
  }
  if (!model) {
    const std::string why = scope.errors().empty() ? "" : ": " + scope.errors();
    return sdk::invalid("load: llama.cpp could not load " + source.description() + why);
  }
  graph->model_.reset(model);
  if (Error e = check_loaded_model(model)) return e;
  if (!o.mmproj.empty()) {
    // On the model's first GPU when its layers are there, else the CPU.
    ggml_backend_dev_t device = placement.n_gpu_layers != 0 ? placement.devices.front() : nullptr;
    const auto reading = backend.device_set().registry_reader();
    if (Error e = Projector::load(o.mmproj, model, o.effective_threads(), device, scope, graph->projector_)) return e;
  }
  if (o.tts) {
    if (Error e = check_outetts_vocab(llama_model_get_vocab(model), source.description())) return e;
    const auto reading = backend.device_set().registry_reader();
    if (Error e = Vocoder::load(o.model_vocoder, params, scope, graph->vocoder_)) return e;
  }
  if (!o.tts) {
    std::string chat_template;
    if (Error e = chat_template_source(o, backend.config().allow_preload_paths, chat_template)) return e;
    const std::string origin = o.chat_template_file.empty() ? std::string("\"chat-template\"")
                                                            : "\"chat-template-file\" (" + o.chat_template_file + ")";
    if (Error e = ChatTemplates::init(model, chat_template, origin, graph->chat_templates_)) return e;
  } else if (!o.chat_template.empty() || !o.chat_template_file.empty()) {
    return sdk::invalid("load config: \"chat-template\" is for chats; a text-to-speech graph speaks input 0");
  }
  graph->allow_host_paths_ = backend.config().allow_preload_paths;
  graph->vocab_ = llama_model_get_vocab(model);
  graph->n_embd_ = llama_model_n_embd(model);
  graph->longest_piece_ = longest_piece_of(graph->vocab_);
  const int32_t n_ctx_train = llama_model_n_ctx_train(model);
  graph->n_ctx_train_ = n_ctx_train > 0 ? static_cast<uint32_t>(n_ctx_train) : 0;
  graph->properties_ = gguf_properties(model);
  graph->properties_.push_back({"device", placement.label, false});
  for (auto& [key, value] : context_settings(o)) graph->properties_.push_back({key, value, true});
  debug_note(o.enable_debug_log, [&] {
    char desc[128] = {};
    llama_model_desc(model, desc, sizeof desc);
    return "load: " + source.description() + ": " + desc + ", " + std::to_string(llama_model_size(model)) + " bytes";
  });
  // Info, not debug: the host passes plugins its threshold for framework lines, which are shown one
  // level lower, so a plugin's own debug line would need --log-level trace.
  note(WASINN_LOG_INFO, "load: " + source.description() + " runs on " + placement.label, o.enable_debug_log);
  out = std::move(graph);
  return {};
}

SharedContext* LlamaGraph::shared_context(const ContextShape& shape, uint32_t threads) {
  if (shape.embedding) return nullptr;
  std::lock_guard lock(shared_mu_);
  if (!shared_tried_) {
    shared_tried_ = true;
    SharedContext::Params p;
    p.n_ctx_seq = shape.n_ctx;
    p.n_seq = options_.parallel > 0 ? options_.parallel : SharedContext::sequences_for_memory(model(), shape.n_ctx);
    p.n_batch = shape.n_batch;
    p.n_ubatch = shape.n_ubatch;
    p.threads = threads;
    p.rope = shape.rope;
    p.perf = options_.enable_log;
    p.cache_ram = options_.cache_ram < 0 ? SharedContext::cache_ram_for_memory()
                                         : static_cast<uint64_t>(options_.cache_ram) << 20;
    LogScope scope(options_.enable_log);
    if (Error e = SharedContext::create(model(), p, shared_)) {
      // Each context makes its own then, as before there was a shared one.
      note(WASINN_LOG_WARN, "no shared context: " + e.detail + (scope.errors().empty() ? "" : ": " + scope.errors()));
      return nullptr;
    }
    shared_shape_ = shape;
    debug_note(options_.enable_debug_log, [&] {
      return "shared context: " + std::to_string(p.n_seq) + " sequences of " + std::to_string(shared_->n_ctx_seq()) +
             " tokens, " + std::to_string(p.cache_ram >> 20) + " MiB of host memory for their saved prompts";
    });
  }
  return shared_ && shared_shape_ == shape ? shared_.get() : nullptr;
}

Error LlamaGraph::check_property(std::string_view name, std::string_view value) const {
  LlamaOptions scratch = options_;
  return set_context_option(name, value, scratch);
}

}  // namespace wasinn::llamacpp
