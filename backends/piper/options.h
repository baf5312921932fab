// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The JSON a guest sends, with WasmEdge's Piper plugin's keys and meanings (wasinn_piper.cpp), so
// its guests run unchanged: the run config at load (builder 0) and, with "json_input", the JSON
// object at set_input. Where wasinn departs it says so here. And the operator's backend config.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "audio_common/audio_encode.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::piper {

using sdk::Error;

// WasmEdge's output_type "wav" and "raw" (pcm), and the encoded formats of the property
// "audio-format" (audio_encode.h).
using OutputType = audio_common::AudioFormat;

// What a synthesis may override; unset keeps the level below (voice config, then piper's defaults).
struct SynthesisOptions {
  std::optional<OutputType> output_type;  // "output_type": "wav" (default) or "raw" (int16 samples);
                                          // the property "audio-format" also flac, mp3, opus
  std::optional<int64_t> speaker_id;      // "speaker_id": multi-speaker voices only
  std::optional<float> noise_scale;       // "noise_scale"
  std::optional<float> length_scale;      // "length_scale" (> 0)
  std::optional<float> noise_w;           // "noise_w"
  std::optional<bool> stream;             // wasinn's "stream": each compute hands out the next
                                          // sentence's PCM (context.h)
  // Each set field of `over` replaces this one's.
  void merge(const SynthesisOptions& over);
};

// Whether a noise_scale or noise_w (0 to 1000) or, `positive`, a length_scale (above 0, at most
// 1000) holds: the bounds of every level, the voice config's included.
bool scale_in_range(double v, bool positive);

// A context's (or, as its default, a graph's) property: "audio-format" (wav, pcm, flac, mp3,
// opus), or a synthesis key of the run config (speaker_id, noise_scale, length_scale, noise_w,
// stream) as JSON text ("0.5", "true"); INVALID_ARGUMENT naming the property otherwise. Read into `o`.
Error parse_property(std::string_view name, std::string_view value, SynthesisOptions& o);
inline constexpr const char* kAudioFormatProperty = "audio-format";

// WasmEdge's run config, builder 0 of load. Paths are host paths, as in WasmEdge.
struct RunConfig {
  std::string model;                       // "model": the .onnx voice (required)
  std::string config;                      // "config": its JSON config (default: model + ".json")
  std::optional<std::string> espeak_data;  // "espeak_data": espeak-ng's data directory
  bool json_input = false;                 // "json_input": input 0 is a JSON object, not text
  SynthesisOptions defaults;               // the synthesis keys, for every compute of the graph
};

// Malformed JSON, a non-object, a missing "model" (when required: not for a voice the operator
// registered), a wrongly typed or out-of-range value, or a key
// neither WasmEdge's plugin nor its published schema has is INVALID_ARGUMENT naming it. The
// schema's keys WasmEdge's plugin ignores (speaker, sentence_silence, phoneme_silence,
// tashkeel_model) are ignored here too, with a warning: WasmEdge ignores every unknown key.
Error parse_run_config(std::string_view json, RunConfig& out, bool model_required);

// The text to speak and its options, from input 0. With json_input the input is WasmEdge's
// {"text": ..., synthesis keys...}; else the bytes are the text. Either way the text must be
// UTF-8 of at most kMaxTextBytes (TOO_LARGE beyond: WasmEdge has no limit, a guest could make
// the host phonemize and synthesize without end).
inline constexpr size_t kMaxTextBytes = 64 * 1024;
struct Utterance {
  std::string text;
  SynthesisOptions options;
};
Error parse_input(std::string_view bytes, bool json_input, Utterance& out);

// The backend config (--backend-config piper=...). Keys:
//   "allow-host-paths": bool, false: may a guest's run config name host files (WasmEdge's model,
//   config and espeak_data)? Without it a guest loads only voices the operator registered
//   (--nn-preload NAME:piper:CPU:VOICE.onnx), with the plugin's own espeak-ng data.
struct BackendConfig {
  bool allow_host_paths = false;
};
Error parse_backend_config(std::string_view text, BackendConfig& out);

}  // namespace wasinn::piper
