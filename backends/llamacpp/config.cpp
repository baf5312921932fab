// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON config -> LlamaOptions / BackendConfig, with nlohmann::json in its non-throwing parse
// mode, so a bad config is a status, never an exception.
#include "config.h"

#include <llama.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "audio_common/audio_encode.h"
#include "json_schema.h"
#include "ggml_common/option_setters.hpp"
#include "wasinn/available_cpus.h"
#include "wasinn/backend_plugin.h"
#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::llamacpp {
namespace {

using json = nlohmann::json;

constexpr int64_t kMaxTokens = 1 << 20;  // bounds ctx/batch sizes: a guest must not size a huge KV cache
constexpr int64_t kMaxParallel = 64;     // sequences of a shared context (llama.cpp allows 256)

// The shared wording and checks of the ggml plugins' options (ggml_common/option_setters.hpp).
using ggml_common::as_integer;
using ggml_common::boolean;
using ggml_common::integer;
using ggml_common::number;
using ggml_common::text;
using Setter = ggml_common::Setter<LlamaOptions>;

Error bad(std::string_view source, std::string_view key, std::string_view expected, const json& v) {
  return ggml_common::bad_value(source, key, expected, v);
}

// One of llama.cpp's enums (-1: the model's), as WasmEdge's integer or as the name llama.cpp's
// command line gives its value; names[i] is value i.
Setter named_or_integer(int64_t LlamaOptions::*field, std::string key, std::vector<std::string> names) {
  return [=](const json& v, std::string_view source, LlamaOptions& o) -> Error {
    for (size_t i = 0; i < names.size(); ++i) {
      if (v.is_string() && v.get_ref<const std::string&>() == names[i]) {
        o.*field = static_cast<int64_t>(i);
        return {};
      }
    }
    const auto n = as_integer(v);
    if (!n || *n < -1 || *n >= static_cast<int64_t>(names.size())) {
      std::string expected;
      for (const auto& name : names) expected += "\"" + name + "\", ";
      return bad(source, key, expected + "or an integer from -1 (the model's) to " + std::to_string(names.size() - 1),
                 v);
    }
    o.*field = *n;
    return {};
  };
}

const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table = [] {
    std::map<std::string, Setter, std::less<>> t;
    t["enable-log"] = boolean(&LlamaOptions::enable_log, "enable-log");
    t["enable-debug-log"] = boolean(&LlamaOptions::enable_debug_log, "enable-debug-log");
    t["stream-stdout"] = boolean(&LlamaOptions::stream_stdout, "stream-stdout");
    t["embedding"] = boolean(&LlamaOptions::embedding, "embedding");
    t["reranking"] = boolean(&LlamaOptions::reranking, "reranking");
    t["n-predict"] = integer(&LlamaOptions::n_predict, "n-predict", -1, std::numeric_limits<int32_t>::max());
    t["max-tokens"] = integer(&LlamaOptions::max_tokens, "max-tokens", -1, std::numeric_limits<int32_t>::max());
    t["reverse-prompt"] = text(&LlamaOptions::reverse_prompt, "reverse-prompt");
    t["n-probs"] = integer(&LlamaOptions::n_probs, "n-probs", 0, 100);
    t["n-gpu-layers"] = integer(&LlamaOptions::n_gpu_layers, "n-gpu-layers", -1, 100000);
    t["main-gpu"] = integer(&LlamaOptions::main_gpu, "main-gpu", -1, 1024);
    t["use-mmap"] = boolean(&LlamaOptions::use_mmap, "use-mmap");
    t["mmproj"] = text(&LlamaOptions::mmproj, "mmproj");
    t["image"] = text(&LlamaOptions::image, "image");
    t["chat-template"] = text(&LlamaOptions::chat_template, "chat-template");
    t["chat-template-file"] = text(&LlamaOptions::chat_template_file, "chat-template-file");
    t["tts"] = boolean(&LlamaOptions::tts, "tts");
    t["model-vocoder"] = text(&LlamaOptions::model_vocoder, "model-vocoder");
    t["tts-output-file"] = text(&LlamaOptions::tts_output_file, "tts-output-file");
    t["tts-speaker-file"] = text(&LlamaOptions::tts_speaker_file, "tts-speaker-file");
    t["audio-format"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      if (!v.is_string() || !audio_common::parse_audio_format(v.get<std::string>()))
        return sdk::invalid(std::string(source) + ": \"audio-format\" is one of " + audio_common::kAudioFormats);
      o.audio_format = v.get<std::string>();
      return {};
    };
    t["ctx-size"] = integer(&LlamaOptions::ctx_size, "ctx-size", 0, kMaxTokens);
    t["batch-size"] = integer(&LlamaOptions::batch_size, "batch-size", 1, kMaxTokens);
    t["ubatch-size"] = integer(&LlamaOptions::ubatch_size, "ubatch-size", 1, kMaxTokens);
    t["parallel"] = integer(&LlamaOptions::parallel, "parallel", 0, kMaxParallel);
    t["n-parallel"] = t["parallel"];  // llama-server's LLAMA_ARG_N_PARALLEL, LlamaEdge's --n-parallel
    t["cache-ram"] = integer(&LlamaOptions::cache_ram, "cache-ram", -1, 1 << 20);  // MiB, as llama-server's
    // The SDK's rule for every backend's thread counts: an integer from 0 to 4 per hardware thread.
    t["threads"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      std::optional<int> n;
      if (Error e = sdk::read_thread_count(json{{"threads", v}}, "threads", source, n)) return e;
      o.threads = static_cast<uint32_t>(*n);
      return {};
    };
    t["temp"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      if (!v.is_number() || !std::isfinite(v.get<double>())) return bad(source, "temp", "a number", v);
      o.temp = std::max(0.0, v.get<double>());  // WasmEdge clamps a negative temperature to greedy
      return {};
    };
    t["top-p"] = number(&LlamaOptions::top_p, "top-p", 0.0, 1.0);
    t["min-p"] = number(&LlamaOptions::min_p, "min-p", 0.0, 1.0);
    t["top-k"] = integer(&LlamaOptions::top_k, "top-k", 0, std::numeric_limits<int32_t>::max());
    t["repeat-penalty"] = number(&LlamaOptions::repeat_penalty, "repeat-penalty", 1e-6, 1e6);
    t["presence-penalty"] = number(&LlamaOptions::presence_penalty, "presence-penalty", -1e6, 1e6);
    t["frequency-penalty"] = number(&LlamaOptions::frequency_penalty, "frequency-penalty", -1e6, 1e6);
    t["repeat-last-n"] = integer(&LlamaOptions::repeat_last_n, "repeat-last-n", -1, kMaxTokens);
    t["last-n-penalty"] = t["repeat-last-n"];  // WasmEdge's name for it
    // WasmEdge reads its "dry-last-n-penalty" into the penalties' window, not DRY's: so does this.
    t["dry-last-n-penalty"] = t["repeat-last-n"];
    t["dry-multiplier"] = number(&LlamaOptions::dry_multiplier, "dry-multiplier", 0.0, 1e6);
    t["dry-multipier"] = t["dry-multiplier"];  // WasmEdge's spelling
    t["dry-base"] = number(&LlamaOptions::dry_base, "dry-base", 1.0, 1e6);
    t["dry-allowed-length"] = integer(&LlamaOptions::dry_allowed_length, "dry-allowed-length", 0, kMaxTokens);
    t["dry-penalty-last-n"] = integer(&LlamaOptions::dry_penalty_last_n, "dry-penalty-last-n", -1, kMaxTokens);
    t["typ-p"] = number(&LlamaOptions::typ_p, "typ-p", 0.0, 1.0);
    t["xtc-probability"] = number(&LlamaOptions::xtc_probability, "xtc-probability", 0.0, 1.0);
    t["xtc-threshold"] = number(&LlamaOptions::xtc_threshold, "xtc-threshold", 0.0, 1.0);
    t["dynatemp-range"] = number(&LlamaOptions::dynatemp_range, "dynatemp-range", 0.0, 1e6);
    t["dynatemp-exponent"] = number(&LlamaOptions::dynatemp_exponent, "dynatemp-exponent", 0.0, 1e6);
    t["mirostat"] = integer(&LlamaOptions::mirostat, "mirostat", 0, 2);
    t["mirostat-ent"] = number(&LlamaOptions::mirostat_tau, "mirostat-ent", 0.0, 1e6);  // its tau
    t["mirostat-eta"] = number(&LlamaOptions::mirostat_eta, "mirostat-eta", 0.0, 1.0);
    t["min-keep"] = integer(&LlamaOptions::min_keep, "min-keep", 0, kMaxTokens);
    t["ignore-eos"] = boolean(&LlamaOptions::ignore_eos, "ignore-eos");
    t["penalize-prompt"] = boolean(&LlamaOptions::penalize_prompt, "penalize-prompt");
    // WasmEdge's integers of llama.cpp's enums, or the names of llama.cpp's command-line options.
    t["rope-scaling-type"] =
        named_or_integer(&LlamaOptions::rope_scaling_type, "rope-scaling-type", {"none", "linear", "yarn", "longrope"});
    // Rank pooling needs a reranker's classifier tensors: a reranker pools so on its own ("reranking").
    t["pooling-type"] = named_or_integer(&LlamaOptions::pooling_type, "pooling-type", {"none", "mean", "cls", "last"});
    t["attention-type"] = named_or_integer(&LlamaOptions::attention_type, "attention-type", {"causal", "non-causal"});
    t["rope-freq-base"] = number(&LlamaOptions::rope_freq_base, "rope-freq-base", 0.0, 1e12);
    t["rope-freq-scale"] = number(&LlamaOptions::rope_freq_scale, "rope-freq-scale", 0.0, 1e6);
    t["yarn-ext-factor"] = number(&LlamaOptions::yarn_ext_factor, "yarn-ext-factor", -1.0, 1e6);
    t["yarn-attn-factor"] = number(&LlamaOptions::yarn_attn_factor, "yarn-attn-factor", -1.0, 1e6);
    t["yarn-beta-fast"] = number(&LlamaOptions::yarn_beta_fast, "yarn-beta-fast", -1.0, 1e6);
    t["yarn-beta-slow"] = number(&LlamaOptions::yarn_beta_slow, "yarn-beta-slow", -1.0, 1e6);
    t["yarn-orig-ctx"] = integer(&LlamaOptions::yarn_orig_ctx, "yarn-orig-ctx", 0, kMaxTokens);
    t["seed"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      auto n = as_integer(v);
      if (!n || *n < -1 || *n > 0xFFFFFFFFll)
        return bad(source, "seed", "an integer from -1 (random) to 4294967295", v);
      o.seed = *n == -1 ? 0xFFFFFFFFu : static_cast<uint32_t>(*n);
      return {};
    };
    t["grammar"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      if (!v.is_string()) return bad(source, "grammar", "a string", v);
      if (Error e = check_grammar_size(v.get_ref<const std::string&>(), "grammar", source)) return e;
      o.grammar = v.get<std::string>();
      o.json_schema.clear();  // one grammar constrains sampling: the later key wins
      return {};
    };
    t["json-schema"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      return grammar_from_json_schema(v, source, o.json_schema, o.grammar);
    };
    t["embedding-output"] = [](const json& v, std::string_view source, LlamaOptions& o) -> Error {
      static const std::pair<const char*, EmbeddingOutput> names[] = {
          {"auto", EmbeddingOutput::automatic}, {"json", EmbeddingOutput::json}, {"f32", EmbeddingOutput::f32}};
      for (const auto& [name, value] : names) {
        if (v.is_string() && v.get_ref<const std::string&>() == name) {
          o.embedding_output = value;
          return {};
        }
      }
      return bad(source, "embedding-output", "\"auto\", \"json\" or \"f32\"", v);
    };
    return t;
  }();
  return table;
}

// Keys of WasmEdge's GGML plugin this build does not implement. `refuse`: without the key
// the answer would differ (an image it would describe, speech it would write, a rope it would
// scale), so going on would be a silent wrong answer. Otherwise skipping it changes only where
// or how fast the same answer is computed, which a warning says.
struct WasmEdgeKey {
  const char* key;
  bool refuse;
  const char* why;
};

constexpr WasmEdgeKey kWasmEdgeKeys[] = {
    {"hf-repo-vocoder", true, "this backend downloads nothing: give the vocoder's path as \"model-vocoder\""},
    {"hf-file-vocoder", true, "this backend downloads nothing: give the vocoder's path as \"model-vocoder\""},
    {"model-url-vocoder", true, "this backend downloads nothing: give the vocoder's path as \"model-vocoder\""},
    {"grp-attn-n", true, "group attention (self-extend) is not implemented by this backend"},
    {"grp-attn-w", true, "group attention (self-extend) is not implemented by this backend"},
    {"tensor-split", false, "finer GPU placement: llama.cpp splits layers evenly, or main-gpu picks one GPU"},
    {"split-mode", false, "finer GPU placement: llama.cpp splits layers evenly, or main-gpu picks one GPU"},
    {"cpu-moe", false, "finer GPU placement: experts go where their layer goes"},
    {"n-cpu-moe", false, "finer GPU placement: experts go where their layer goes"},
    {"warmup", false, "a warm-up run changes no answer"},
    {"always-regenerate-image-embd", false, "an image's embedding is computed at every generation anyway"},
    // How fast, not what: thread placement and polling, and llama.cpp's own timing counters.
    {"threads-batch", false, "how fast only: \"threads\" sets both of llama.cpp's thread counts"},
    {"mask-valid", false, "how fast only: CPU affinity"},
    {"mask-valid-batch", false, "how fast only: CPU affinity"},
    {"strict-cpu", false, "how fast only: CPU affinity"},
    {"strict-cpu-batch", false, "how fast only: CPU affinity"},
    {"priority", false, "how fast only: thread priority"},
    {"priority-batch", false, "how fast only: thread priority"},
    {"poll", false, "how fast only: busy waiting"},
    {"poll-batch", false, "how fast only: busy waiting"},
    {"numa", false, "how fast only: NUMA placement"},
    {"no-perf-sampling", false, "llama.cpp's timing counters (\"enable-log\" shows them)"},
    {"timing-per-token", false, "llama.cpp's timing counters (\"enable-log\" shows them)"},
};

const WasmEdgeKey* wasmedge_key(std::string_view key) {
  for (const auto& k : kWasmEdgeKeys)
    if (key == k.key) return &k;
  return nullptr;
}

}  // namespace

uint32_t LlamaOptions::effective_threads() const { return threads > 0 ? threads : available_cpus_once(); }

std::vector<std::pair<std::string, std::string>> context_settings(const LlamaOptions& o) {
  const json values = {{"temp", o.temp},
                       {"top-p", o.top_p},
                       {"min-p", o.min_p},
                       {"top-k", o.top_k},
                       {"repeat-penalty", o.repeat_penalty},
                       {"presence-penalty", o.presence_penalty},
                       {"frequency-penalty", o.frequency_penalty},
                       {"repeat-last-n", o.repeat_last_n},
                       {"dry-multiplier", o.dry_multiplier},
                       {"dry-base", o.dry_base},
                       {"dry-allowed-length", o.dry_allowed_length},
                       {"dry-penalty-last-n", o.dry_penalty_last_n},
                       {"typ-p", o.typ_p},
                       {"xtc-probability", o.xtc_probability},
                       {"xtc-threshold", o.xtc_threshold},
                       {"dynatemp-range", o.dynatemp_range},
                       {"dynatemp-exponent", o.dynatemp_exponent},
                       {"mirostat", o.mirostat},
                       {"mirostat-ent", o.mirostat_tau},
                       {"mirostat-eta", o.mirostat_eta},
                       {"min-keep", o.min_keep},
                       {"ignore-eos", o.ignore_eos},
                       {"penalize-prompt", o.penalize_prompt},
                       {"rope-scaling-type", o.rope_scaling_type},
                       {"rope-freq-base", o.rope_freq_base},
                       {"rope-freq-scale", o.rope_freq_scale},
                       {"yarn-ext-factor", o.yarn_ext_factor},
                       {"yarn-attn-factor", o.yarn_attn_factor},
                       {"yarn-beta-fast", o.yarn_beta_fast},
                       {"yarn-beta-slow", o.yarn_beta_slow},
                       {"yarn-orig-ctx", o.yarn_orig_ctx},
                       {"pooling-type", o.pooling_type},
                       {"attention-type", o.attention_type},
                       {"seed", o.seed == 0xFFFFFFFFu ? json(-1) : json(o.seed)},
                       {"n-predict", o.n_predict},
                       {"max-tokens", o.max_tokens},
                       {"n-probs", o.n_probs},
                       {"reverse-prompt", o.reverse_prompt},
                       {"image", o.image},
                       {"grammar", o.grammar},
                       {"json-schema", o.json_schema},
                       {"embedding-output", o.embedding_output == EmbeddingOutput::json  ? "json"
                                            : o.embedding_output == EmbeddingOutput::f32 ? "f32"
                                                                                         : "auto"},
                       {WASINN_PROPERTY_TYPED_OUTPUTS, o.typed_outputs},
                       {"threads", o.threads},
                       {"ctx-size", o.ctx_size},
                       {"batch-size", o.batch_size},
                       {"ubatch-size", o.ubatch_size},
                       {"embedding", o.embedding},
                       {"reranking", o.reranking},
                       {"tts", o.tts},
                       {"audio-format", o.audio_format},
                       {"stream-stdout", o.stream_stdout},
                       {"enable-log", o.enable_log},
                       {"enable-debug-log", o.enable_debug_log}};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : values.items()) {
    out.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

Error set_context_option(std::string_view key, std::string_view value, LlamaOptions& options) {
  if (key == WASINN_PROPERTY_TYPED_OUTPUTS) {  // the host's, set on a WIT guest's contexts
    const json v = sdk::property_value_json(value);
    if (!v.is_boolean()) return bad("set property", key, "true or false", v);
    options.typed_outputs = v.get<bool>();
    return {};
  }
  if (key == WASINN_PROPERTY_CACHE_PARTITION) {  // the host's, set on a served request's contexts
    if (value.size() > 256) return sdk::invalid("property \"" WASINN_PROPERTY_CACHE_PARTITION "\": at most 256 bytes");
    options.cache_partition = std::string(value);
    return {};
  }
  // Every key the setters take, but those fixed when the model is loaded.
  const auto it = setters().find(key);
  if (it == setters().end() || is_load_only_key(key))
    return sdk::invalid("property \"" + std::string(key) +
                        "\" cannot be set: it is not one of llama.cpp's context options");
  LlamaOptions updated = options;
  if (Error e = it->second(sdk::property_value_json(value), "set property", updated)) return e;
  options = std::move(updated);
  return {};
}

bool is_load_only_key(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "n-gpu-layers",  "main-gpu",        "use-mmap",         "mmproj",        "tts",
      "model-vocoder", "tts-output-file", "tts-speaker-file", "chat-template", "chat-template-file",
      "parallel",      "n-parallel",      "cache-ram"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

bool looks_like_json_object(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

Error apply_config(std::string_view text, std::string_view source, LlamaOptions& options,
                   std::vector<IgnoredKey>& ignored) {
  // Unlike a load config, metadata is always given, so empty text is not "no config".
  if (text.empty()) return sdk::invalid(std::string(source) + ": malformed JSON");
  json doc;
  if (Error e = sdk::parse_config_object(text, source, doc)) return e;
  LlamaOptions updated = options;  // all or nothing: a bad key leaves the options as they were
  std::vector<IgnoredKey> skipped;
  const json* schema = nullptr;
  for (const auto& [key, value] : doc.items()) {
    const auto& table = setters();
    if (key == "json-schema") {
      schema = &value;  // after "grammar", whatever the order: the schema wins, as in WasmEdge
    } else if (auto it = table.find(key); it != table.end()) {
      if (Error e = it->second(value, source, updated)) return e;
    } else if (const WasmEdgeKey* k = wasmedge_key(key); k && k->refuse) {
      return sdk::unsupported(std::string(source) + ": \"" + key + "\" cannot be honoured: " + k->why);
    } else if (k) {
      skipped.push_back({key, k->why});
    } else {
      skipped.push_back({key, "unknown key"});
    }
  }
  if (schema) {
    if (Error e = setters().find("json-schema")->second(*schema, source, updated)) return e;
  }
  options = std::move(updated);
  ignored.insert(ignored.end(), skipped.begin(), skipped.end());
  return {};
}

Error parse_backend_config(std::string_view text, BackendConfig& out, std::vector<IgnoredKey>& ignored) {
  static constexpr std::string_view source = "llamacpp backend config";
  out = {};
  json doc;
  if (Error e = sdk::parse_config_object(text, source, doc)) return e;
  std::optional<bool> allow;
  if (Error e = sdk::read_bool(doc, "allow-preload-paths", source, allow)) return e;
  out.allow_preload_paths = allow.value_or(false);
  // The defaults of load keys, checked as a graph's load config checks them; unset, the graphs'
  // own defaults (BackendConfig's are LlamaOptions').
  static constexpr std::string_view kGraphDefaults[] = {"parallel", "cache-ram"};
  LlamaOptions scratch;
  for (const std::string_view key : kGraphDefaults) {
    auto given = doc.find(std::string(key));
    if (given == doc.end()) continue;
    if (Error e = setters().find(key)->second(*given, source, scratch)) return e;
  }
  out.parallel = scratch.parallel;
  out.cache_ram = scratch.cache_ram;
  for (const auto& [key, value] : doc.items()) {
    if (key != "allow-preload-paths" &&
        std::find(std::begin(kGraphDefaults), std::end(kGraphDefaults), key) == std::end(kGraphDefaults))
      ignored.push_back({key, "unknown key"});
  }
  return {};
}

}  // namespace wasinn::llamacpp
