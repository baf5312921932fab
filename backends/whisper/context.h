// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One execution context of a graph: its own whisper_state (the decoder's caches) on the graph's
// shared weights, its options (the graph's, reset and overridden by JSON on input 1, as WasmEdge
// does), the decoded audio and the segments of the last transcription. Used by one thread at a
// time, except cancel().
//
// Streaming (compute_single / get_output_single / fini_single) hands out the transcript one
// segment at a time while whisper.cpp is still decoding the rest: the first compute_single
// starts the transcription on a thread of the context's own, each call waits for the next
// segment, and WASINN_END_OF_SEQUENCE follows the last. WIT guests, whose wasi:nn has no
// compute_single, get the same stream from compute() with the option "stream" on: each
// compute is one compute_single and its outputs are that segment's (compute_step).
#pragma once

#include <whisper.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "options.h"
#include "plugin_common/c_handles.hpp"
#include "transcript.h"
#include "wasinn/plugin_sdk.hpp"
#include "audio.h"

namespace wasinn::whisper {

class WhisperGraph;

using StatePtr = plugin_common::FunctionHandle<whisper_state, whisper_free_state>;

class WhisperContext {
 public:
  explicit WhisperContext(WhisperGraph& graph);
  ~WhisperContext();
  WhisperContext(const WhisperContext&) = delete;
  WhisperContext& operator=(const WhisperContext&) = delete;

  WASINN_SDK_CONTEXT()
  WASINN_SDK_STREAMING()
  // whisper.cpp polls the flag between graph computations (its abort callback).
  void cancel() noexcept { cancel_requested_.store(true); }
  // An option as a property (wasinn:nn-ext), for the next transcription.
  Error set_property(std::string_view name, std::string_view value);

 private:
  // What one transcription runs with; a streaming one owns a copy on its thread.
  struct Run {
    WhisperOptions options;
    std::vector<Segment> segments;
    int lang_id = -1;
  };
  Error prepare_state();
  Error transcribe(Run& run, bool stream);  // whisper_full on this context's state
  Error next_segment();                     // compute_single: starts the stream, waits for a segment
  Error compute_step();                     // compute() with "stream" on
  void stop_stream();                       // cancels and joins a streaming transcription
  void on_segments(whisper_state* state, int n_new);
  static void segment_callback(whisper_context*, whisper_state* state, int n_new, void* self);

  WhisperGraph* graph_;  // outlives the context (the host releases contexts first)
  WhisperOptions options_;
  StatePtr state_;  // made at the first transcription
  std::atomic<bool> cancel_requested_{false};

  Audio audio_;
  bool has_audio_ = false;
  Run last_;  // the last compute()'s result
  bool has_result_ = false;
  std::string text_, file_text_;  // output 0; output 1-3 as last asked for
  uint32_t out_dim_ = 0;          // the dims of the last output view

  // Streaming: the thread, and the segments it has decoded that compute_single has not handed out.
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Segment> queue_;
  bool worker_done_ = false;
  Error worker_result_;
  Run stream_run_;
  bool streaming_ = false;
  std::string piece_;   // the segment of the last compute_single
  Segment segment_;     // ... as whisper.cpp gave it
  int64_t handed_ = 0;  // segments the stream has handed out

  // compute_step's outputs: the last step's segment, or (step_end_) the stream's end.
  bool stepping_ = false, step_end_ = false;
};

}  // namespace wasinn::whisper
