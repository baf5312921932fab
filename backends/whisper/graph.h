// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded whisper.cpp model: one whisper_context (the weights) per graph, shared read-only by
// all of its contexts, each of which decodes with a whisper_state of its own. Immutable after
// load.
//
// The slots guests address are fixed, the same for every model (WasmEdge's convention):
//   input 0 "audio"      a whole WAV, FLAC, MP3 or Ogg file (audio.h; any tensor type; dims [1, bytes] as WasmEdge's
//                        guests send it, or [bytes]); declared optional, for a stream's later computes
//   input 1 "metadata"   a JSON object of options for the context
//   output 0 "text"      the transcript as WasmEdge writes it: "[hh:mm:ss.mmm --> hh:mm:ss.mmm] "
//                        before each segment's text and a newline after it, or with
//                        no-timestamps the texts alone
//   output 1 "srt", 2 "lrc", 3 "json"   the same segments in those formats (what WasmEdge's
//                        output-* keys write to host files)
// With the option "stream" on, each compute's outputs are the next segment's alone (context.h).
#pragma once

#include <whisper.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "options.h"
#include "plugin_common/c_handles.hpp"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::whisper {

class WhisperBackend;
class WhisperContext;

using ModelPtr = plugin_common::FunctionHandle<whisper_context, whisper_free>;

class WhisperGraph {
 public:
  static Error load(const WhisperBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<WhisperGraph>& out);

  std::span<const sdk::IoDesc> io(sdk::Side side) const;
  Error create_context(std::unique_ptr<WhisperContext>& out);
  // The model's hyper-parameters and languages, then the options a guest may set.
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const;

  whisper_context* model() const { return model_.get(); }
  // Defaults plus the load config: the starting options of every context of this graph.
  const WhisperOptions& options() const { return options_; }
  // Checks the language options against the model and settles them as WasmEdge does: an
  // English-only model transcribes English without translating; detect-language is "auto".
  Error settle_language(WhisperOptions& options) const;

 private:
  ModelPtr model_;
  WhisperOptions options_;
  std::vector<sdk::Property> properties_;
};

}  // namespace wasinn::whisper
