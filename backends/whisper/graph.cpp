// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading: where the model comes from, the load config, the model checks before whisper.cpp
// reads it (model_checks.h), and the slots and properties every graph declares.
#include "graph.h"

#include "backend.h"
#include "context.h"
#include "ggml_common/log_router.h"
#include "model_checks.h"
#include "ggml_common/preload_path.hpp"

namespace wasinn::whisper {
namespace {

using ggml_common::LogScope;

sdk::IoDesc bytes_slot(const char* name, const char* words) {
  return {.name = name, .type = WASINN_TYPE_U8, .rank = 1, .dims = {-1}, .not_a_tensor = {}, .framework_type = words};
}

// Function statics: alive for the process, so the names graph_io_info hands out stay valid.
const std::vector<sdk::IoDesc>& slots(sdk::Side side) {
  // The audio is optional to the host's check alone: a compute of a stream ("stream" on) after
  // its first takes no inputs; a compute without audio is the plugin's own error.
  static const std::vector<sdk::IoDesc> inputs = {bytes_slot("audio",
                                                             "WAV, FLAC, MP3 or Ogg file; optional after "
                                                             "a stream's first compute"),
                                                  bytes_slot("metadata", "optional JSON object")};
  static const std::vector<sdk::IoDesc> outputs = {bytes_slot("text", "UTF-8 transcript"),
                                                   bytes_slot("srt", "SubRip subtitles"),
                                                   bytes_slot("lrc", "LRC lyrics"), bytes_slot("json", "JSON")};
  return side == sdk::Side::input ? inputs : outputs;
}

// What load() reads the model from: a host file, or the guest's bytes.
struct Source {
  std::string path;                       // a host file, or "" for bytes
  std::span<const uint8_t> bytes;         // the guest's model bytes
  std::vector<std::string_view> configs;  // JSON texts, applied in order
  std::string description;
};

Error resolve_source(const sdk::LoadRequest& request, bool allow_host_paths, Source& out) {
  const auto builders = request.builders();
  if (builders.empty()) return sdk::invalid("load: no graph builders given");
  if (!request.config().empty()) out.configs.push_back(request.config());
  // WasmEdge's convention: builder 1, when given, is the JSON config.
  if (builders.size() > 2) {
    return sdk::invalid("load: expected the model (builder 0) and optionally a JSON config (builder 1), got " +
                        std::to_string(builders.size()) + " builders");
  }
  if (builders.size() == 2) out.configs.push_back(sdk::builder_text(builders[1]));
  if (const char* path = request.path(0)) {  // preloaded by the host: read from its file
    out.path = path;
    out.description = path;
    return {};
  }
  Error refused;
  if (auto path = ggml_common::preload_path(sdk::builder_text(builders[0]), allow_host_paths, "whisper", refused)) {
    if (refused) return refused;
    out.path = *path;
    out.description = *path;
    return {};
  }
  out.bytes = {builders[0].data, builders[0].length};
  out.description = "<" + std::to_string(builders[0].length) + " bytes from the guest>";
  return {};
}

std::vector<sdk::Property> model_properties(whisper_context* m) {
  std::vector<sdk::Property> out = {
      {"whisper.type", whisper_model_type_readable(m), false},
      {"whisper.multilingual", whisper_is_multilingual(m) ? "true" : "false", false},
      {"whisper.n_vocab", std::to_string(whisper_model_n_vocab(m)), false},
      {"whisper.audio.n_ctx", std::to_string(whisper_model_n_audio_ctx(m)), false},
      {"whisper.audio.n_state", std::to_string(whisper_model_n_audio_state(m)), false},
      {"whisper.audio.n_head", std::to_string(whisper_model_n_audio_head(m)), false},
      {"whisper.audio.n_layer", std::to_string(whisper_model_n_audio_layer(m)), false},
      {"whisper.text.n_ctx", std::to_string(whisper_model_n_text_ctx(m)), false},
      {"whisper.text.n_state", std::to_string(whisper_model_n_text_state(m)), false},
      {"whisper.text.n_head", std::to_string(whisper_model_n_text_head(m)), false},
      {"whisper.text.n_layer", std::to_string(whisper_model_n_text_layer(m)), false},
      {"whisper.n_mels", std::to_string(whisper_model_n_mels(m)), false},
      {"whisper.ftype", std::to_string(whisper_model_ftype(m)), false},
  };
  std::string languages = "en";
  if (whisper_is_multilingual(m)) {
    languages.clear();
    for (int id = 0; id <= whisper_lang_max_id(); ++id)
      languages += (id ? "," : "") + std::string(whisper_lang_str(id));
  }
  out.push_back({"whisper.languages", languages, false});
  out.push_back({"device", "cpu", false});
  return out;
}

}  // namespace

std::span<const sdk::IoDesc> WhisperGraph::io(sdk::Side side) const { return slots(side); }

Error WhisperGraph::settle_language(WhisperOptions& o) const {
  if (o.language != "auto" && whisper_lang_id(o.language.c_str()) == -1)
    return sdk::invalid("\"language\": \"" + o.language +
                        "\" is not a language whisper knows (e.g. \"en\", \"de\", \"auto\")");
  if (!whisper_is_multilingual(model_.get()) && (o.language != "en" || o.translate)) {
    o.language = "en";
    o.translate = false;
    ggml_common::note(WASINN_LOG_INFO, "the model is English-only: language and translate are ignored", o.enable_log);
  }
  if (o.detect_language) o.language = "auto";
  return {};
}

Error WhisperGraph::load(const WhisperBackend& backend, const sdk::LoadRequest& request,
                         std::unique_ptr<WhisperGraph>& out) {
  if (Error e = backend.check_target(request.target())) return e;
  Source source;
  if (Error e = resolve_source(request, backend.config().allow_preload_paths, source)) return e;
  auto graph = std::make_unique<WhisperGraph>();
  for (std::string_view config : source.configs)
    if (Error e = apply_config(config, "load config", graph->options_)) return e;

  if (Error e = source.path.empty() ? check_model_bytes(source.bytes, source.bytes.size(), source.description)
                                    : check_model_file(source.path, source.description))
    return e;

  LogScope scope(graph->options_.enable_log);
  whisper_context_params params = whisper_context_default_params();
  params.use_gpu = false;  // whisper-cli's other defaults (flash attention) stay
  whisper_context* model = source.path.empty()
                               ? whisper_init_from_buffer_with_params_no_state(
                                     const_cast<uint8_t*>(source.bytes.data()), source.bytes.size(), params)
                               : whisper_init_from_file_with_params_no_state(source.path.c_str(), params);
  if (!model) {
    const std::string why = scope.errors().empty() ? "" : ": " + scope.errors();
    return sdk::invalid("load: whisper.cpp could not load " + source.description + why);
  }
  graph->model_.reset(model);
  if (Error e = graph->settle_language(graph->options_)) return e;
  graph->properties_ = model_properties(model);
  for (auto& [key, value] : option_values(graph->options_)) graph->properties_.push_back({key, value, true});
  ggml_common::debug_note(graph->options_.enable_debug_log, [&] {
    return "load: " + source.description + ": whisper " + whisper_model_type_readable(model) +
           (whisper_is_multilingual(model) ? ", multilingual" : ", English-only");
  });
  out = std::move(graph);
  return {};
}

Error WhisperGraph::check_property(std::string_view name, std::string_view value) const {
  WhisperOptions scratch = options_;
  if (Error e = set_option(name, value, scratch)) return e;
  return settle_language(scratch);
}

}  // namespace wasinn::whisper
