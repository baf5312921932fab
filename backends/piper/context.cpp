// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// set_input / compute / get_output: text -> sentences of phonemes -> ids -> the model, sentence
// by sentence as piper does, and the audio written once at the end; or, with "stream" on, one
// sentence per compute (compute_step).
#include "context.h"

#include <bit>
#include <cstring>

#include "graph.h"
#include "wav.h"

namespace wasinn::piper {
namespace {
static_assert(std::endian::native == std::endian::little, "the int16 samples are read back in place");
constexpr size_t kMaxSamples = size_t{1} << 30;  // 2 GiB of int16: a WAV's sizes are 32-bit
}  // namespace

Error PiperContext::set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::input), sdk::Side::input, id, slot)) return e;
  // WasmEdge takes dims [bytes]; [1, bytes] is as plain, as the whisper guests send it.
  if (!(tensor.rank == 1 || (tensor.rank == 2 && tensor.dims && tensor.dims[0] == 1)))
    return sdk::invalid("input 0 (\"text\"): expected dims [bytes] holding the text, got rank " +
                        std::to_string(tensor.rank));
  const std::string_view bytes(static_cast<const char*>(tensor.data), tensor.data ? tensor.data_length : 0);
  Utterance u;
  if (Error e = parse_input(bytes, graph_->run_config().json_input, u)) return e;
  utterance_ = std::move(u);
  output_.reset();
  streaming_ = false;  // new text ends a stream in progress
  return {};
}

Error PiperContext::compute() {
  if (!utterance_) return sdk::invalid("no text: set input 0 (\"text\") first");
  // A cancel aimed at an earlier compute must not stop this one; one that comes while this one
  // phonemizes (a long text takes a while) must.
  cancel_requested_.store(false);
  run_options_.UnsetTerminate();
  Scales scales{};
  OutputType type{};
  SynthesisOptions over = properties_;
  over.merge(utterance_->options);
  if (over.stream.value_or(graph_->run_config().defaults.stream.value_or(false))) return compute_step(over);
  streaming_ = false;
  if (Error e = graph_->settle(over, scales, type)) return e;
  std::vector<std::string> sentences;
  if (Error e = graph_->phonemize(utterance_->text, sentences)) return e;
  std::vector<float> audio;
  for (const std::string& sentence : sentences) {
    Error e;
    if (!cancel_requested_.load())
      e = graph_->synthesize(graph_->voice().phoneme_ids(sentence), scales, run_options_, audio);
    if (cancel_requested_.load()) return {WASINN_TIMEOUT, "compute was cancelled"};
    if (e) return e;
    // Checked per sentence, so a long text at a huge length_scale stops growing at the cap.
    if (audio.size() > kMaxSamples)
      return {WASINN_TOO_LARGE,
              "the audio is over 2^30 samples: more than a WAV file holds (speak less text, or "
              "a smaller length_scale)"};
  }
  std::vector<uint8_t> out;
  if (type == OutputType::wav) out = wav_header(graph_->voice().sample_rate, static_cast<uint32_t>(audio.size()));
  append_pcm16(audio, out);
  if (type != OutputType::wav && type != OutputType::pcm) {
    // The same int16 samples the WAV holds, encoded: a lossless FLAC decodes back to them.
    std::vector<int16_t> samples(audio.size());
    if (!samples.empty()) std::memcpy(samples.data(), out.data(), out.size());  // little-endian int16
    out.clear();
    const std::string why = audio_common::encode_audio(type, samples, graph_->voice().sample_rate, out);
    if (!why.empty())
      return sdk::runtime_error(std::string("encoding the audio as ") + audio_common::audio_format_name(type) +
                                " failed: " + why);
  }
  output_ = std::move(out);
  return {};
}

// The stream's first compute phonemizes the whole text (its options are then fixed); each
// compute after synthesizes the next sentence. piper joins sentences with nothing between them,
// so the sentences' samples one after another are compute()'s exactly. A failure or cancel ends
// the stream; the compute after the end-of-stream (an empty output) starts it again.
Error PiperContext::compute_step(const SynthesisOptions& over) {
  if (!streaming_) {
    OutputType type{};
    if (Error e = graph_->settle(over, stream_scales_, type)) return e;
    if (type != OutputType::wav && type != OutputType::pcm)
      return sdk::invalid(std::string("\"stream\" hands out raw PCM sentence by sentence; audio-format ") +
                          audio_common::audio_format_name(type) +
                          " is made from the whole audio (use pcm, or stream off)");
    sentences_.clear();
    if (Error e = graph_->phonemize(utterance_->text, sentences_)) return e;
    next_ = 0;
    streamed_samples_ = 0;
    streaming_ = true;
  }
  std::vector<float> audio;
  // A sentence of no samples would read as the end: the next one's are handed out instead.
  while (audio.empty() && next_ < sentences_.size()) {
    Error e;
    if (!cancel_requested_.load())
      e = graph_->synthesize(graph_->voice().phoneme_ids(sentences_[next_++]), stream_scales_, run_options_, audio);
    if (cancel_requested_.load()) e = {WASINN_TIMEOUT, "compute was cancelled"};
    if (!e && streamed_samples_ + audio.size() > kMaxSamples)
      e = {WASINN_TOO_LARGE,
           "the audio is over 2^30 samples: more than a WAV file holds (speak less text, or a smaller "
           "length_scale)"};
    if (e) {
      streaming_ = false;
      output_.reset();
      return e;
    }
  }
  streamed_samples_ += audio.size();
  if (audio.empty()) streaming_ = false;  // the end: the next compute starts again
  std::vector<uint8_t> out;
  append_pcm16(audio, out);
  output_ = std::move(out);
  return {};
}

Error PiperContext::set_property(std::string_view name, std::string_view value) {
  return parse_property(name, value, properties_);
}

void PiperContext::cancel() noexcept {
  cancel_requested_.store(true);  // first: a Run failing on the terminate below must see it
  try {
    run_options_.SetTerminate();
  } catch (...) {  // the flag alone stops compute at the next sentence
  }
}

Error PiperContext::get_output(const wasinn_tensor_id& id, wasinn_tensor& out) {
  size_t slot = 0;
  if (Error e = sdk::resolve_id(graph_->io(sdk::Side::output), sdk::Side::output, id, slot)) return e;
  if (!output_) return sdk::invalid("no audio yet: call compute first");
  sdk::bytes_output(std::string_view(reinterpret_cast<const char*>(output_->data()), output_->size()), out_dim_, out);
  return {};
}

}  // namespace wasinn::piper
