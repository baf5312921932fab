// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded Piper voice: its ONNX Runtime session, its JSON config and the run config it was
// loaded with (WasmEdge's: host paths, json_input, the default synthesis options). Immutable
// after load; ORT's Session::Run is thread-safe, so contexts on any thread share it.
//
// The slots guests address are WasmEdge's: input 0 "text" (the text, or with json_input a JSON
// object), output 0 "audio" (a WAV file, or with output_type "raw" its int16 samples alone, or
// with the property "audio-format" FLAC, MP3 or Ogg Opus).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "options.h"
#include "voice.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::piper {

class PiperBackend;
class PiperContext;

// The numbers the model is called with for one sentence.
struct Scales {
  float noise_scale, length_scale, noise_w;
  int64_t speaker_id;
};

class PiperGraph {
 public:
  static Error load(PiperBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<PiperGraph>& out);

  std::span<const sdk::IoDesc> io(sdk::Side side) const;
  Error create_context(std::unique_ptr<PiperContext>& out);
  std::span<const sdk::Property> properties() const { return properties_; }
  // The knobs of options.h's parse_property; a speaker_id must be one of the voice's.
  Error check_property(std::string_view name, std::string_view value) const;

  const Voice& voice() const { return voice_; }
  const RunConfig& run_config() const { return run_; }
  // Text to phonemes, one string per sentence, with this voice's espeak-ng data and voice.
  Error phonemize(const std::string& text, std::vector<std::string>& sentences) const;
  // The options of one synthesis: the voice's, then the run config's, then `over`'s.
  Error settle(const SynthesisOptions& over, Scales& scales, OutputType& type) const;
  // One sentence's phoneme ids through the model; appends its float samples to `audio`.
  // `run` carries the context's terminate flag (cancel).
  Error synthesize(std::vector<int64_t> ids, const Scales& scales, const Ort::RunOptions& run,
                   std::vector<float>& audio) const;

 private:
  RunConfig run_;
  Voice voice_;
  std::unique_ptr<Ort::Session> session_;
  bool takes_speaker_ = false;  // the model has the "sid" input
  std::vector<std::string> output_names_;
  std::vector<sdk::Property> properties_;
};

}  // namespace wasinn::piper
