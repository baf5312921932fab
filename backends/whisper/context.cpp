// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output, the streaming trio and cancel for one context.
#include "context.h"

#include "graph.h"
#include "ggml_common/log_router.h"

namespace wasinn::whisper {
namespace {

using ggml_common::LogScope;

constexpr size_t kAudio = 0, kMetadata = 1;                 // inputs
constexpr size_t kText = 0, kSrt = 1, kLrc = 2, kJson = 3;  // outputs

bool abort_requested(void* flag) { return static_cast<std::atomic<bool>*>(flag)->load(std::memory_order_relaxed); }

}  // namespace

Error WhisperGraph::create_context(std::unique_ptr<WhisperContext>& out) {
  out = std::make_unique<WhisperContext>(*this);  // the whisper_state is made at first compute
  return {};
}

WhisperContext::WhisperContext(WhisperGraph& graph) : graph_(&graph), options_(graph.options()) {}

WhisperContext::~WhisperContext() { stop_stream(); }

Error WhisperContext::prepare_state() {
  if (state_) return {};
  LogScope scope(options_.enable_log);
  whisper_state* state = whisper_init_state(graph_->model());
  if (!state) {
    return sdk::runtime_error("whisper.cpp could not allocate a decoder state" +
                              (scope.errors().empty() ? "" : ": " + scope.errors()));
  }
  state_.reset(state);
  return {};
}

Error WhisperContext::set_property(std::string_view name, std::string_view value) {
  WhisperOptions updated = options_;
  if (Error e = set_option(name, value, updated)) return e;
  if (Error e = graph_->settle_language(updated)) return e;
  options_ = std::move(updated);
  return {};
}

Error WhisperContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::input), sdk::Side::input, id, slot)) return e;
  stop_stream();  // new input ends a transcription in progress
  stepping_ = false;
  const std::span<const uint8_t> bytes(static_cast<const uint8_t*>(tensor.data), tensor.data ? tensor.data_length : 0);
  if (slot == kMetadata) {
    // WasmEdge's rule: the context starts again from the graph's options, then takes these.
    WhisperOptions updated = graph_->options();
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (text.empty()) return sdk::invalid("metadata (input 1): empty; send a JSON object");
    if (Error e = apply_config(text, "metadata (input 1)", updated)) return e;
    if (Error e = graph_->settle_language(updated)) return e;
    options_ = std::move(updated);
    return {};
  }
  // WasmEdge's guests send [1, bytes] (one file); [bytes] is the plain form.
  if (!(tensor.rank == 1 || (tensor.rank == 2 && tensor.dims[0] == 1))) {
    return sdk::invalid("input 0 (\"audio\"): expected dims [1, bytes] or [bytes] holding one audio file, got rank " +
                        std::to_string(tensor.rank) +
                        (tensor.rank >= 1 ? " with dims[0] " + std::to_string(tensor.dims[0]) : ""));
  }
  Audio audio;
  if (Error e = decode_audio(bytes, audio)) return e;
  audio_ = std::move(audio);
  has_audio_ = true;
  has_result_ = false;
  ggml_common::debug_note(options_.enable_debug_log, [&] {
    return "set_input: " + std::to_string(audio_.seconds()) + " s of audio, " + std::to_string(audio_.channels) +
           " channel(s)";
  });
  return {};
}

void WhisperContext::segment_callback(whisper_context*, whisper_state* state, int n_new, void* self) {
  static_cast<WhisperContext*>(self)->on_segments(state, n_new);
}

void WhisperContext::on_segments(whisper_state* state, int n_new) {
  const int n = whisper_full_n_segments_from_state(state);
  std::vector<Segment> fresh = read_segments(state, n - n_new, stream_run_.options, audio_);
  std::lock_guard lock(mu_);
  for (auto& s : fresh) queue_.push_back(std::move(s));
  ready_.notify_one();
}

Error WhisperContext::transcribe(Run& run, bool stream) {
  if (!has_audio_) return sdk::invalid("no audio: set input 0 (\"audio\") to an audio file first");
  if (Error e = prepare_state()) return e;
  const WhisperOptions& o = run.options;
  LogScope scope(o.enable_log);
  // WasmEdge's parameters (its setWhisperParams), from whisper.cpp's defaults.
  whisper_full_params p =
      whisper_full_default_params(o.beam_size > 1 ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY);
  p.n_threads = static_cast<int>(o.effective_threads());
  p.n_max_text_ctx = static_cast<int>(o.max_context);
  p.offset_ms = static_cast<int>(o.offset_t_ms);
  p.duration_ms = static_cast<int>(o.duration_ms);
  p.print_progress = false;
  p.print_realtime = false;
  p.print_timestamps = false;
  p.max_len = static_cast<int>(o.max_len);
  p.token_timestamps = o.max_len > 0;
  p.split_on_word = o.split_on_word;
  p.translate = o.translate;
  p.language = o.language.c_str();
  p.detect_language = o.detect_language;
  p.initial_prompt = o.prompt.empty() ? nullptr : o.prompt.c_str();
  p.temperature = static_cast<float>(o.temperature);
  p.temperature_inc = static_cast<float>(o.temperature_inc);
  p.greedy.best_of = static_cast<int>(o.best_of);
  p.beam_search.beam_size = static_cast<int>(o.beam_size);
  p.no_timestamps = o.no_timestamps;
  p.audio_ctx = static_cast<int>(o.audio_ctx);
  p.abort_callback = abort_requested;
  p.abort_callback_user_data = &cancel_requested_;
  if (stream) {
    p.new_segment_callback = segment_callback;
    p.new_segment_callback_user_data = this;
  }
  const int rc = whisper_full_with_state(graph_->model(), state_.get(), p, audio_.mono.data(),
                                         static_cast<int>(audio_.mono.size()));
  if (rc != 0) {
    if (cancel_requested_.load()) return {WASINN_TIMEOUT, "the transcription was cancelled"};
    return sdk::runtime_error("whisper.cpp failed to transcribe the audio (code " + std::to_string(rc) + ")" +
                              (scope.errors().empty() ? "" : ": " + scope.errors()));
  }
  if (!stream) run.segments = read_segments(state_.get(), 0, o, audio_);
  run.lang_id = whisper_full_lang_id_from_state(state_.get());
  if (o.enable_log) whisper_print_timings(graph_->model());
  return {};
}

Error WhisperContext::compute() {
  if (options_.stream) return compute_step();
  stepping_ = false;
  stop_stream();
  cancel_requested_.store(false);
  has_result_ = false;
  Run run{options_, {}, -1};
  if (Error e = transcribe(run, /*stream=*/false)) return e;
  last_ = std::move(run);
  text_.clear();
  for (const Segment& s : last_.segments) text_ += transcript_piece(s, last_.options);
  has_result_ = true;
  ggml_common::debug_note(last_.options.enable_debug_log, [&] {
    return "compute: " + std::to_string(last_.segments.size()) + " segment(s), " + std::to_string(text_.size()) +
           " bytes of text";
  });
  return {};
}

// One segment per compute, the stream's end an empty one (its JSON without segments, with the
// language and duration), after which a compute starts the transcription again.
Error WhisperContext::compute_step() {
  has_result_ = false;
  stepping_ = false;
  Error e = next_segment();
  if (e.status == WASINN_END_OF_SEQUENCE) {
    stop_stream();  // the worker has finished: joined at once, and the next compute starts anew
    stepping_ = step_end_ = true;
    return {};
  }
  if (e) {
    stop_stream();
    return e;
  }
  stepping_ = true;
  step_end_ = false;
  return {};
}

Error WhisperContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::output), sdk::Side::output, id, slot)) return e;
  if (stepping_) {
    const Run& run = stream_run_;
    std::vector<Segment> one;
    if (!step_end_) one.push_back(segment_);
    WhisperOptions numbered = run.options;  // SRT numbers count on across the stream
    numbered.offset_n += handed_ - static_cast<int64_t>(one.size());
    switch (slot) {
      case kText: file_text_ = step_end_ ? std::string() : piece_; break;
      case kSrt: file_text_ = to_srt(one, numbered); break;
      case kLrc: file_text_ = to_lrc(one); break;
      case kJson: file_text_ = to_json(graph_->model(), run.lang_id, one, run.options, audio_.seconds()); break;
      default: return sdk::invalid("output " + std::to_string(slot) + " does not exist");
    }
    sdk::bytes_output(file_text_, out_dim_, out);
    return {};
  }
  if (!has_result_) return sdk::invalid("no transcription yet: set input 0 and compute first");
  switch (slot) {
    case kText: sdk::bytes_output(text_, out_dim_, out); return {};
    case kSrt: file_text_ = to_srt(last_.segments, last_.options); break;
    case kLrc: file_text_ = to_lrc(last_.segments); break;
    case kJson:
      file_text_ = to_json(graph_->model(), last_.lang_id, last_.segments, last_.options, audio_.seconds());
      break;
    default: return sdk::invalid("output " + std::to_string(slot) + " does not exist");
  }
  sdk::bytes_output(file_text_, out_dim_, out);
  return {};
}

Error WhisperContext::compute_single() {
  stepping_ = false;
  return next_segment();
}

Error WhisperContext::next_segment() {
  if (!streaming_) {
    if (!has_audio_) return sdk::invalid("no audio: set input 0 (\"audio\") to an audio file first");
    cancel_requested_.store(false);  // before the state's set-up, so a cancel during it lands
    if (Error e = prepare_state()) return e;
    stream_run_ = Run{options_, {}, -1};
    queue_.clear();
    worker_done_ = false;
    worker_result_ = {};
    handed_ = 0;
    streaming_ = true;
    worker_ = std::thread([this] {
      Error result = transcribe(stream_run_, /*stream=*/true);
      std::lock_guard lock(mu_);
      worker_result_ = std::move(result);
      worker_done_ = true;
      ready_.notify_one();
    });
  }
  std::unique_lock lock(mu_);
  ready_.wait(lock, [this] { return !queue_.empty() || worker_done_; });
  if (!queue_.empty()) {
    segment_ = std::move(queue_.front());
    queue_.pop_front();
    piece_ = transcript_piece(segment_, stream_run_.options);
    ++handed_;
    return {};
  }
  if (worker_result_) return worker_result_;
  return {WASINN_END_OF_SEQUENCE, "the transcription is complete"};
}

Error WhisperContext::get_output_single(const wasinn_tensor_id& id, wasinn_tensor& out) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::output), sdk::Side::output, id, slot)) return e;
  if (slot != kText)
    return sdk::invalid("streaming hands out output 0 (\"text\") a segment at a time; compute() makes outputs 1-3");
  if (!streaming_) return sdk::invalid("no segment yet: call compute_single first");
  sdk::bytes_output(piece_, out_dim_, out);
  return {};
}

void WhisperContext::stop_stream() {
  if (worker_.joinable()) {
    cancel_requested_.store(true);  // whisper.cpp stops at its next abort check
    worker_.join();
    cancel_requested_.store(false);
  }
  std::lock_guard lock(mu_);
  queue_.clear();
  streaming_ = false;
  piece_.clear();
}

Error WhisperContext::fini_single() {
  stop_stream();
  return {};
}

}  // namespace wasinn::whisper
