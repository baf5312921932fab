// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A Piper voice's JSON config (<voice>.onnx.json, as piper's exporter writes it): what the plugin
// needs of it to phonemize, number the phonemes and call the model. Immutable after parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::piper {

using sdk::Error;

struct Voice {
  int32_t sample_rate = 22050;        // audio.sample_rate
  std::string espeak_voice;           // espeak.voice ("en-us")
  int64_t num_speakers = 1;           // num_speakers: above 1, the model takes a speaker id ("sid")
  std::vector<std::string> speakers;  // speaker_id_map's names by id ("" where it names none)
  std::string dataset;                // "dataset": the voice's name in piper's voice list ("lessac")
  float noise_scale = 0.667f;         // inference.noise_scale, piper's default
  float length_scale = 1.0f;          // inference.length_scale
  float noise_w = 0.8f;               // inference.noise_w
  std::unordered_map<char32_t, std::vector<int64_t>> ids;  // phoneme_id_map, one codepoint each
  std::vector<int64_t> bos, eos, pad;                      // the ids of "^", "$" and "_"

  // One sentence's phonemes (UTF-8, decomposed to NFD here) as the model's ids, as piper numbers
  // them: "^", "_", then each phoneme's ids and "_", then "$". Phonemes the map lacks are left
  // out, as piper leaves them.
  std::vector<int64_t> phoneme_ids(std::string_view phonemes) const;
};

// `source` names the file in details. Only espeak voices (phoneme_type "espeak", the default)
// are served: piper's "text" and its language-specific phonemizers are UNSUPPORTED_OPERATION.
Error parse_voice(std::string_view json, std::string_view source, Voice& out);

}  // namespace wasinn::piper
