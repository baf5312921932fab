// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The options a guest sets as JSON: at load (load_by_name_with_config, or builder 1) and per
// context on input 1 ("metadata"). Key names, meanings and defaults follow WasmEdge's whisper
// plugin (its Config), so its guests run unchanged; where wasinn departs it says so here.
// And the operator's backend config.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

using sdk::Error;

struct WhisperOptions {
  bool enable_log = false;        // whisper.cpp's lines raised to a level the host shows
  bool enable_debug_log = false;  // the plugin's step-by-step lines, likewise
  uint32_t threads = 0;           // 0: min(4, available_cpus()), WasmEdge's default
  int64_t offset_t_ms = 0;        // start offset into the audio
  int64_t duration_ms = 0;        // 0: to the end
  int64_t max_context = 16384;    // most tokens of past text the decoder is prompted with
  int64_t max_len = 0;            // most characters per segment; 0: no limit
  bool split_on_word = false;
  bool translate = false;
  std::string language = "en";  // "auto" detects it (as detect-language does)
  bool detect_language = false;
  double temperature = 0.0;
  double temperature_inc = 0.2;  // wasinn's key (whisper-cli's --temperature-inc); 0: no fallback
  std::string prompt;            // the initial prompt
  int64_t best_of = 5;
  int64_t beam_size = 5;  // 1 or less: greedy
  bool no_timestamps = false;
  int64_t audio_ctx = 0;  // 0: the model's
  bool diarize = false;   // stereo input: a speaker per segment by channel energy
  int64_t offset_n = 0;   // added to the segment numbers of the SRT output
  bool stream = false;    // wasinn's key: each compute hands out the next segment (context.h)

  uint32_t effective_threads() const;
};

// Applies the keys of one JSON object to `options`. `source` names the config in details ("load
// config", "metadata (input 1)"). Malformed JSON, a non-object, an unknown key, a wrongly typed
// or out-of-range value is INVALID_ARGUMENT naming the key, and leaves `options` unchanged.
// WasmEdge's output-file keys (output-file, output-srt, output-lrc, output-json,
// output-json-full) are refused: a sandboxed guest does not make the host write files; the
// same texts are outputs 1-3 for the guest to read.
Error apply_config(std::string_view json, std::string_view source, WhisperOptions& options);

// Every key as a property with its value as JSON text, for describing a graph (wasinn:nn-ext).
std::vector<std::pair<std::string, std::string>> option_values(const WhisperOptions& options);
// Sets one key from a property's text (read as JSON when it parses, else as a string).
Error set_option(std::string_view key, std::string_view value, WhisperOptions& options);

// The backend config (--backend-config whisper=...). Keys:
//   "allow-preload-paths": bool, false: may a guest's load() name a host file ("preload:<path>")?
struct BackendConfig {
  bool allow_preload_paths = false;
};
Error parse_backend_config(std::string_view text, BackendConfig& out);

}  // namespace wasinn::whisper
