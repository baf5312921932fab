// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The options a guest sets as JSON: at load (load_by_name_with_config, or a trailing JSON
// builder) and per context as metadata on input 1 ("metadata"). Key names and meanings follow
// WasmEdge's GGML plugin, so its guests run unchanged. And the operator's backend config.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// How get_output(0) returns an embedding ("embedding-output").
enum class EmbeddingOutput {
  automatic,  // f32 to a caller whose tensors carry their type (WIT), else WasmEdge's JSON text
  json,       // {"n_embedding": N, "embedding": [...]}, as WasmEdge's GGML plugin writes it
  f32,        // n_embd floats
};

struct LlamaOptions {
  // Plugin behaviour.
  bool enable_log = false;        // llama.cpp's lines raised to a level the host shows
  bool enable_debug_log = false;  // the plugin's step-by-step lines, likewise
  bool stream_stdout = false;     // compute() also prints each token to the host's stdout
  bool embedding = false;         // compute() returns the prompt's embedding instead of text
  // compute() scores input 0's documents against its query (embedding.h), as llama-server --reranking.
  bool reranking = false;
  EmbeddingOutput embedding_output = EmbeddingOutput::automatic;
  // Set by the host, never by a guest's JSON: this context's caller gets typed tensors (the
  // property WASINN_PROPERTY_TYPED_OUTPUTS, include/wasinn/backend_plugin.h).
  bool typed_outputs = false;
  // Set by the host, never by a guest's JSON: whose KV this context's prompts may reuse (the
  // property WASINN_PROPERTY_CACHE_PARTITION; one per API key). "": the host's default partition.
  std::string cache_partition;
  int64_t n_predict = -1;  // most tokens per generation; -1: until end or full context
  // OpenAI's max_tokens: n-predict's place when set, within the room the prompt leaves in the
  // context (-1: all of it), and refused at the generation's start when over the context; 0: unset.
  // One property where the OpenAI guest asked the context's size first and then set n-predict.
  int64_t max_tokens = 0;
  std::string reverse_prompt;  // compute() stops once the text contains it

  // Model: fixed when the graph is loaded; a context cannot change them.
  // Where it runs (placement.h): on a GPU load, layers offloaded (-1: all) and the GPU used
  // (an index into the backend's GPU devices; -1: llama.cpp splits the layers across all).
  int64_t n_gpu_layers = -1;
  int64_t main_gpu = -1;
  bool use_mmap = true;
  std::string mmproj;  // the multimodal projector's path (vision.h); "": a text-only graph
  // Text to speech (tts_prompt.h, vocoder.h), as WasmEdge's keys: the model is OuteTTS, the
  // vocoder a WavTokenizer decoder; output 0 is a WAV, also written to tts_output_file if set.
  bool tts = false;
  std::string model_vocoder;
  std::string tts_output_file;
  std::string tts_speaker_file;      // an OuteTTS speaker profile; "": OuteTTS's en_female_1
  std::string audio_format = "wav";  // output 0's file: wav, pcm, flac, mp3 or opus (audio_encode.h)

  // Images (vision.h): an image file's path for every prompt of the context, as WasmEdge's
  // "image"; "": none. The prompt marks where it goes with "<image>".
  std::string image;

  // Chat (chat_template.h): the Jinja template input 2 is rendered with instead of the model's
  // tokenizer.chat_template, as llama-server's --chat-template; "": the model's. Fixed at load.
  std::string chat_template;
  std::string chat_template_file;  // or a host file holding it (needs allow-preload-paths)

  // Context: changing one recreates only that context's llama_context, never the model.
  uint32_t ctx_size = 512;  // 0: the model's training context
  uint32_t batch_size = 512;
  uint32_t ubatch_size = 512;
  uint32_t threads = 0;  // 0: one per CPU this process may use (available_cpus.h)
  // Generations decoded together in the graph's shared context (shared_context.h), each with
  // ctx_size tokens: 0, sized from the memory available; fixed at load.
  uint32_t parallel = 0;
  // The KV of sequences whose slot another prompt took, kept in host memory for their next turn
  // (saved_prompts.h), in MiB, as llama-server's --cache-ram: -1, an eighth of the memory available
  // at the first generation, at most 8192; 0: none. Fixed at load.
  int64_t cache_ram = -1;
  // RoPE and YaRN, as llama_context_params takes them; unset, the model's own (a change recreates
  // this context's llama_context: rope_options.h).
  int64_t rope_scaling_type = -1;  // llama_rope_scaling_type: -1 the model's, 0 none, 1 linear, 2 yarn, 3 longrope
  double rope_freq_base = 0;       // 0: the model's
  double rope_freq_scale = 0;      // 0: the model's
  double yarn_ext_factor = -1;     // negative: the model's (these four)
  double yarn_attn_factor = -1;
  double yarn_beta_fast = -1;
  double yarn_beta_slow = -1;
  int64_t yarn_orig_ctx = 0;  // 0: the model's
  // Embeddings (llama.cpp's --pooling and --attention): -1, the model's. Part of an embedding
  // context's shape; a generation ignores them, as llama.cpp does.
  int64_t pooling_type = -1;    // llama_pooling_type: 0 none, 1 mean, 2 cls, 3 last (rank: a reranker's own)
  int64_t attention_type = -1;  // llama_attention_type: 0 causal, 1 non-causal

  // Sampling: the sampler is rebuilt from these at the start of every generation, in the order of
  // llama.cpp's common sampler (llama-server's and WasmEdge's): the penalties, DRY, top-k, typical,
  // top-p, min-p, XTC, temperature, then a random draw; or temperature then mirostat.
  double temp = 0.8;  // 0: greedy
  double top_p = 0.95;
  double min_p = 0.05;
  int64_t top_k = 40;
  double repeat_penalty = 1.0;
  double presence_penalty = 0.0;
  double frequency_penalty = 0.0;
  int64_t repeat_last_n = 64;
  double dry_multiplier = 0.0;  // DRY (repetition of sequences); 0: off
  double dry_base = 1.75;
  int64_t dry_allowed_length = 2;
  int64_t dry_penalty_last_n = -1;  // -1: the context's size
  double typ_p = 1.0;               // locally typical sampling; 1: off
  double xtc_probability = 0.0;     // XTC (exclude the top choices); 0: off
  double xtc_threshold = 0.1;
  double dynatemp_range = 0.0;  // dynamic temperature: temp +- range; 0: off
  double dynatemp_exponent = 1.0;
  int64_t mirostat = 0;  // 1 or 2: mirostat's version in place of the filters; 0: off
  double mirostat_tau = 5.0;
  double mirostat_eta = 0.1;
  int64_t min_keep = 0;     // the fewest candidates a filter leaves
  bool ignore_eos = false;  // end-of-generation tokens are never sampled (n-predict or the context ends it)
  // The penalties and DRY count the prompt's tokens before the answer's, as llama-server's do;
  // WasmEdge's plugin counts the answer's only (the default, for its guests).
  bool penalize_prompt = false;
  uint32_t seed = 0xFFFFFFFFu;  // LLAMA_DEFAULT_SEED: a random seed per generation
  std::string grammar;          // GBNF; empty: unconstrained. "json-schema" sets it too
  std::string json_schema;      // the schema "json-schema" was given (JSON text), "" if the grammar is not from one
  // Log-probabilities (log-softmax of the raw logits) of each token and of the n_probs likeliest
  // candidates, in the metadata's "logprobs" (OpenAI's logprobs); 0: not computed.
  uint32_t n_probs = 0;

  uint32_t effective_threads() const;
  bool embedding_as_json() const {
    return embedding_output == EmbeddingOutput::json ||
           (embedding_output == EmbeddingOutput::automatic && !typed_outputs);
  }
};

// Keys that were not applied, with why, for one log line each.
struct IgnoredKey {
  std::string key;
  std::string reason;
};

// Applies the keys of one JSON object to `options`. `source` names the config in details ("load
// config", "metadata (input 1)"). Malformed JSON, a non-object, or a wrongly typed or
// out-of-range value is INVALID_ARGUMENT naming the key, and leaves `options` unchanged; so is
// a "json-schema" that does not convert to a grammar. A key of WasmEdge's that this build cannot
// honour and whose absence would change the answer (a download, RoPE scaling) is
// UNSUPPORTED_OPERATION naming it. Keys whose absence changes nothing here (finer GPU placement),
// and unknown keys, are skipped and listed in `ignored`. Within one object
// "json-schema" wins over "grammar" (as in WasmEdge); across configs the later one wins.
Error apply_config(std::string_view json, std::string_view source, LlamaOptions& options,
                   std::vector<IgnoredKey>& ignored);

// The options a guest may set per context as properties (wasinn:nn-ext; everything but the
// model's own n-gpu-layers, main-gpu and use-mmap), with their values in `options` as JSON text.
std::vector<std::pair<std::string, std::string>> context_settings(const LlamaOptions& options);
// Sets one of those from a property's text (read as JSON when it parses, else as a string).
// Any other key, or a wrong value, is INVALID_ARGUMENT naming it; `options` is then unchanged.
Error set_context_option(std::string_view key, std::string_view value, LlamaOptions& options);

// True when the text, after leading whitespace, starts a JSON object: how a trailing config
// builder is told apart from model bytes (GGUF starts with "GGUF").
bool looks_like_json_object(std::string_view text);

// True for the keys that only the load config sets (the model's: where it runs, its projector,
// its speech); metadata on input 1 that changes one is refused.
bool is_load_only_key(std::string_view key);

// The backend config (--backend-config llamacpp=...). Keys:
//   "allow-preload-paths": bool, false: may a guest name a host file: a model ("preload:<path>"),
//   a projector ("mmproj"), an image ("image"), a vocoder or speaker profile to read or a WAV to
//   write ("model-vocoder", "tts-speaker-file", "tts-output-file")?
//   "parallel": int, 0: the default of every graph's "parallel" load key.
//   "cache-ram": int MiB, -1: the default of every graph's "cache-ram" load key.
struct BackendConfig {
  bool allow_preload_paths = false;
  uint32_t parallel = 0;
  int64_t cache_ram = -1;
};
// Parses text ("" means no config); unknown keys are listed in `ignored`.
Error parse_backend_config(std::string_view text, BackendConfig& out, std::vector<IgnoredKey>& ignored);

}  // namespace wasinn::llamacpp
