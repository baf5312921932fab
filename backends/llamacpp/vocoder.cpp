// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "vocoder.h"

#include <kissfft/kissfft.hh>

#include <algorithm>
#include <cmath>
#include <complex>

#include "audio_common/wav_header.h"
#include "ggml_common/log_router.h"
#include "host_file.h"
#include "model_checks.h"

namespace wasinn::llamacpp {
namespace {

constexpr size_t kFft = 1280;                     // points of each frame's spectrum
constexpr size_t kBins = kFft / 2 + 1;            // 641 magnitudes, then 641 phases
constexpr size_t kSpectrum = 2 * kBins;           // 1282: the decoder's output width
constexpr size_t kHop = 320;                      // samples between frames
constexpr size_t kPad = (kFft - kHop) / 2;        // 480: the centred frames' overhang, cut at the start
constexpr size_t kSilenced = kTtsSampleRate / 4;  // the first quarter second is zeroed

// The periodic Hann window.
const std::vector<double>& hann() {
  static const std::vector<double> w = [] {
    std::vector<double> v(kFft);
    for (size_t i = 0; i < kFft; ++i) v[i] = 0.5 * (1.0 - std::cos(2.0 * M_PI * static_cast<double>(i) / kFft));
    return v;
  }();
  return w;
}

}  // namespace

std::vector<float> spectra_to_waveform(const float* spectra, size_t n_frames) {
  // The transform WasmEdge and llama.cpp's OuteTTS code use (their "irfft"): a frame's sample j is
  // the real part of sum over the 641 bins k of X_k e^(2 pi i j k / 1280), divided by 641; the
  // inverse FFT of the bins with the upper half zero gives it in O(n log n).
  static const kissfft<double> inverse(kFft, /*inverse=*/true);
  const std::vector<double>& window = hann();
  const size_t n_out = n_frames * kHop;  // (n_frames - 1) * hop + fft, less the pad at both ends
  std::vector<double> sum(n_out, 0.0), envelope(n_out, 0.0);
  std::vector<std::complex<double>> bins(kFft), frame(kFft);
  for (size_t l = 0; l < n_frames; ++l) {
    const float* s = spectra + l * kSpectrum;
    std::fill(bins.begin(), bins.end(), std::complex<double>{});
    for (size_t k = 0; k < kBins; ++k) {
      const double magnitude = std::min(std::exp(static_cast<double>(s[k])), 100.0);
      const double phase = s[k + kBins];
      bins[k] = {magnitude * std::cos(phase), magnitude * std::sin(phase)};
    }
    inverse.transform(bins.data(), frame.data());
    for (size_t j = 0; j < kFft; ++j) {
      // Sample j of frame l lands at l * hop + j - pad; what falls before 0 or past the end is cut.
      const size_t at = l * kHop + j;
      if (at < kPad || at - kPad >= n_out) continue;
      sum[at - kPad] += frame[j].real() / kBins * window[j];
      envelope[at - kPad] += window[j] * window[j];
    }
  }
  std::vector<float> audio(n_out);
  for (size_t i = 0; i < n_out; ++i) audio[i] = static_cast<float>(sum[i] / envelope[i]);
  std::fill_n(audio.begin(), std::min(kSilenced, audio.size()), 0.0f);
  return audio;
}

std::vector<uint8_t> tts_wav(std::span<const float> audio, int32_t sample_rate) {
  std::vector<uint8_t> out = audio_common::wav_header(sample_rate, static_cast<uint32_t>(audio.size()));
  out.reserve(out.size() + 2 * audio.size());
  for (float s : audio) {
    // NaN would be undefined to convert: a model that makes one gets silence there.
    const double scaled = std::isnan(s) ? 0.0 : std::clamp(s * 32767.0, -32768.0, 32767.0);
    audio_common::put_pcm16(static_cast<int16_t>(scaled), out);
  }
  return out;
}

Error Vocoder::check_path(const std::string& path) {
  return check_host_file(path, "load config: \"model-vocoder\": vocoder file '" + path + "'");
}

Error Vocoder::load(const std::string& path, const llama_model_params& params, const ggml_common::LogScope& scope,
                    std::unique_ptr<Vocoder>& out) {
  if (Error e = check_path(path)) return e;
  if (Error e = check_gguf_header(path.c_str())) {
    return {e.status, "load config: \"model-vocoder\": " + e.detail};
  }
  auto vocoder = std::make_unique<Vocoder>();
  vocoder->model_.reset(llama_model_load_from_file(path.c_str(), params));
  if (!vocoder->model_) {
    return sdk::invalid("load config: \"model-vocoder\": llama.cpp could not load " + path +
                        (scope.errors().empty() ? "" : ": " + scope.errors()));
  }
  char arch[64] = {};
  llama_model_meta_val_str(vocoder->model_.get(), "general.architecture", arch, sizeof arch);
  if (std::string_view(arch) != "wavtokenizer-dec") {
    return sdk::invalid("load config: \"model-vocoder\": " + path + " is a " +
                        (arch[0] ? arch : "model of no architecture") +
                        " model, not a WavTokenizer decoder (wavtokenizer-dec)");
  }
  if (llama_model_n_embd_out(vocoder->model_.get()) != static_cast<int32_t>(kSpectrum)) {
    return sdk::invalid("load config: \"model-vocoder\": " + path + " makes spectra of " +
                        std::to_string(llama_model_n_embd_out(vocoder->model_.get())) + " values, not the " +
                        std::to_string(kSpectrum) + " of a 1280-point spectrum");
  }
  if (Error e = check_loaded_model(vocoder->model_.get())) return e;
  vocoder->n_codes_ = llama_vocab_n_tokens(llama_model_get_vocab(vocoder->model_.get()));
  out = std::move(vocoder);
  return {};
}

Error Vocoder::speak(std::span<const llama_token> codes, uint32_t threads, const std::atomic<bool>& cancel,
                     std::vector<float>& audio) {
  if (codes.empty()) return sdk::runtime_error("text to speech: the model generated no audio codes");
  for (llama_token code : codes) {
    if (code < 0 || code >= n_codes_) {
      return sdk::runtime_error("text to speech: the model generated audio code " + std::to_string(code) +
                                ", beyond the vocoder's " + std::to_string(n_codes_) + " codes");
    }
  }
  const auto n = static_cast<uint32_t>(codes.size());
  std::lock_guard<std::mutex> turn(turn_);
  if (!ctx_ || ctx_tokens_ < n) {
    ctx_.reset();
    llama_context_params p = llama_context_default_params();
    p.n_ctx = p.n_batch = p.n_ubatch = std::max<uint32_t>(n, 512);  // every code in one batch
    p.n_seq_max = 1;
    p.embeddings = true;
    p.n_threads = p.n_threads_batch = static_cast<int32_t>(threads);
    p.abort_callback = abort_requested;
    p.abort_callback_data = const_cast<std::atomic<bool>*>(&cancel);
    p.no_perf = true;
    ctx_.reset(llama_init_from_model(model_.get(), p));
    if (!ctx_) return sdk::runtime_error("text to speech: could not create the vocoder's context");
    ctx_tokens_ = p.n_ctx;
  } else {
    llama_set_n_threads(ctx_.get(), static_cast<int32_t>(threads), static_cast<int32_t>(threads));
    llama_set_abort_callback(ctx_.get(), abort_requested, const_cast<std::atomic<bool>*>(&cancel));
  }
  llama_batch batch = llama_batch_init(static_cast<int32_t>(n), 0, 1);
  for (uint32_t i = 0; i < n; ++i) {
    batch.token[i] = codes[i];
    batch.pos[i] = static_cast<llama_pos>(i);
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = 1;  // an output (spectrum) for every code
  }
  batch.n_tokens = static_cast<int32_t>(n);
  const int32_t rc = llama_encode(ctx_.get(), batch);
  llama_batch_free(batch);
  if (rc != 0) {
    if (cancel.load()) return {WASINN_TIMEOUT, "text to speech was cancelled"};
    return sdk::runtime_error("text to speech: the vocoder failed on " + std::to_string(n) + " codes (llama_encode " +
                              std::to_string(rc) + ")");
  }
  const float* spectra = llama_get_embeddings(ctx_.get());
  if (!spectra) return sdk::runtime_error("text to speech: the vocoder returned no spectra");
  audio = spectra_to_waveform(spectra, n);
  return {};
}

}  // namespace wasinn::llamacpp
