// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text to speech, part 2: OuteTTS's audio codes to a WAV, as WasmEdge's GGML plugin (and llama.cpp's
// former OuteTTS llama-tts) make it. A WavTokenizer decoder ("model-vocoder", llama.cpp's
// wavtokenizer-dec architecture) turns each code into a 1280-point spectrum (641 log-magnitudes,
// then 641 phases); an inverse transform of each, Hann-windowed and overlap-added 320 samples
// apart, is the 24 kHz waveform; its first quarter second is silenced; 16-bit PCM in a WAV.
// A Vocoder is shared by the contexts of one graph, which take turns in speak().
#pragma once

#include <llama.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "llama_handles.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::ggml_common {
class LogScope;
}  // namespace wasinn::ggml_common
namespace wasinn::llamacpp {

using sdk::Error;

inline constexpr int32_t kTtsSampleRate = 24000;

class Vocoder {
 public:
  // Loads the decoder at `path` with `params` (the text model's placement). A missing file is
  // NOT_FOUND; a GGUF that is not a wavtokenizer-dec model with 1282 outputs, INVALID_ARGUMENT.
  // `scope` is the plugin call's, whose error lines (llama.cpp's) end the detail.
  static Error load(const std::string& path, const llama_model_params& params, const ggml_common::LogScope& scope,
                    std::unique_ptr<Vocoder>& out);
  // NOT_FOUND unless `path` names a regular file: checked before the text model loads.
  static Error check_path(const std::string& path);

  // The waveform of `codes` (each below n_codes()), kTtsSampleRate samples a second, 320 per code.
  // No codes, or one out of range, is RUNTIME_ERROR naming it; a cancelled decode, TIMEOUT.
  Error speak(std::span<const llama_token> codes, uint32_t threads, const std::atomic<bool>& cancel,
              std::vector<float>& audio);

  int32_t n_codes() const { return n_codes_; }

 private:
  ModelPtr model_;
  std::mutex turn_;  // one speak() at a time: the llama_context below is one
  ContextPtr ctx_;
  uint32_t ctx_tokens_ = 0;
  int32_t n_codes_ = 0;
};

// The waveform of `n_frames` spectra of 1282 floats each (Vocoder's doc). Pure; exposed for tests.
std::vector<float> spectra_to_waveform(const float* spectra, size_t n_frames);

// A mono 16-bit WAV of `audio` at `sample_rate`, each sample as WasmEdge writes it: times 32767,
// clamped to int16's range, truncated.
std::vector<uint8_t> tts_wav(std::span<const float> audio, int32_t sample_rate);

}  // namespace wasinn::llamacpp
