// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_whisper: the wasm guest on wasinn's whisper plugin versus whisper.cpp called directly,
// on the benchmark model (whisper/bench-en.bin: the dimensions of OpenAI's tiny.en, random
// weights) and 35 s of speech (whisper/long.wav), greedy, no temperature fallback, no
// timestamps, the same threads on both sides.
//
//   bench_whisper [--fixtures DIR] [--threads N...] [--seconds S] [--json FILE]
// First a correctness check (the guest's transcript must equal native whisper.cpp's, byte for
// byte), then interleaved samples (bench/common/interleaved_timing.h): native is one
// whisper_full on the decoded audio; the guest is one bench_infer call of bench_guest.wasm:
// set_input (the WAV file, decoded by the plugin), compute, get_output. The difference is the
// host's whole per-call overhead; the real-time factor is a call's time over the audio's length.
#include <algorithm>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#define MINIAUDIO_IMPLEMENTATION
#include "miniaudio_decoders.h"  // the whisper plugin's cut of miniaudio: the same decoders
#include <whisper.h>

#include "bench_report.h"
#include "fixtures_dir.h"
#include "guest_bench.h"
#include "interleaved_timing.h"
#include "output_check.h"
#include "scratch_dir.h"
#include "wasinn/version.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct Options {
  std::string fixtures;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::vector<int> threads = {2};
  double seconds = 20.0;
  std::string json;
};

// whisper.cpp as an application calls it: the model, one state, the audio decoded once.
class NativeWhisper {
 public:
  ~NativeWhisper() {
    if (state_) whisper_free_state(state_);
    if (model_) whisper_free(model_);
  }
  bool open(const std::string& model, const std::string& wav, int threads, std::string* error) {
    whisper_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
    whisper_context_params cp = whisper_context_default_params();
    cp.use_gpu = false;
    model_ = whisper_init_from_file_with_params_no_state(model.c_str(), cp);
    state_ = model_ ? whisper_init_state(model_) : nullptr;
    if (!state_) return *error = "native: whisper.cpp cannot load " + model, false;
    ma_decoder_config dc = ma_decoder_config_init(ma_format_f32, 1, 16000);
    ma_decoder dec;
    if (ma_decoder_init_file(wav.c_str(), &dc, &dec) != MA_SUCCESS)
      return *error = "native: cannot decode " + wav, false;
    ma_uint64 frames = 0;
    ma_decoder_get_length_in_pcm_frames(&dec, &frames);
    pcm_.resize(frames);
    ma_decoder_read_pcm_frames(&dec, pcm_.data(), frames, &frames);
    ma_decoder_uninit(&dec);
    pcm_.resize(frames);
    params_ = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
    params_.n_threads = threads;
    params_.print_progress = params_.print_realtime = params_.print_timestamps = false;
    params_.greedy.best_of = 1;
    params_.beam_search.beam_size = 1;
    params_.temperature_inc = 0.0f;
    params_.no_timestamps = true;
    params_.language = "en";
    return true;
  }
  bool run(std::string* error) {
    if (whisper_full_with_state(model_, state_, params_, pcm_.data(), static_cast<int>(pcm_.size())) != 0)
      return *error = "native: whisper_full failed", false;
    return true;
  }
  std::string text() const {
    std::string t;
    for (int i = 0; i < whisper_full_n_segments_from_state(state_); ++i)
      t += whisper_full_get_segment_text_from_state(state_, i);
    return t;
  }
  double seconds() const { return static_cast<double>(pcm_.size()) / 16000.0; }

 private:
  whisper_context* model_ = nullptr;
  whisper_state* state_ = nullptr;
  std::vector<float> pcm_;
  whisper_full_params params_{};
};

struct Result {
  BenchRow row;
  double audio_seconds = 0;
};

bool run_threads(const Options& o, int threads, const ScratchDir& scratch, Result* out, std::string* error) {
  const std::string model = o.fixtures + "/whisper/bench-en.bin", wav = o.fixtures + "/whisper/long.wav";
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  h.preloads = {"bench:Whisper:AUTO:" + model};
  auto host = Host::create(std::move(h), error);
  if (!host) return false;
  GuestArgs args;
  args.name = "bench";
  args.config = fmt::format(
      R"({{"threads": {}, "beam-size": 1, "best-of": 1, "temperature-inc": 0, "no-timestamps": true}})", threads);
  const auto wav_bytes = static_cast<uint32_t>(fs::file_size(wav));
  args.inputs = {{0, "u8", {1, wav_bytes}, "/fixtures/whisper/long.wav"}};
  const fs::path guest_out = scratch.path() / fmt::format("guest-{}.txt", threads);
  args.outputs = {{0, "/scratch/" + guest_out.filename().string()}};
  Program program;
  program.wasm_path = o.guest;
  program.dirs = {{o.fixtures, "/fixtures"}, {scratch.path().string(), "/scratch"}};
  auto guest = GuestBench::start(*host, program, args, error);
  if (!guest) return false;
  NativeWhisper native;
  if (!native.open(model, wav, threads, error)) return false;
  // The same transcript, byte for byte, before any timing.
  if (!guest->infer(error) || !guest->save_outputs(error) || !native.run(error)) return false;
  auto got = read_bytes(guest_out.string(), error);
  if (!got) return false;
  const std::string want = native.text();
  if (std::string(got->begin(), got->end()) != want) {
    *error = "the guest's transcript differs from native whisper.cpp's:\n  guest:  " +
             std::string(got->begin(), got->end()).substr(0, 200) + "\n  native: " + want.substr(0, 200);
    return false;
  }
  TimingPlan plan;
  plan.seconds_per_side = o.seconds;
  plan.block_seconds = 0.5;
  plan.min_samples = 6;
  plan.warmup_samples = 1;
  out->audio_seconds = native.seconds();
  out->row.backend = "whisper";
  out->row.model = "bench-en (tiny.en's size), 35 s";
  out->row.threads = threads;
  return compare_interleaved(
      plan, [&](std::string* e) { return native.run(e); }, [&](std::string* e) { return guest->infer(e); },
      &out->row.result, error);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fixtures = default_fixtures();
  CLI::App app{"Guest-versus-native benchmark of wasinn's whisper (whisper.cpp) backend"};
  app.add_option("--fixtures", o.fixtures, "fixtures directory (scripts/make_fixtures.py)");
  app.add_option("--guest", o.guest, "bench_guest.wasm");
  app.add_option("--backend-dir", o.backend_dir, "directory of backend manifests");
  app.add_option("--threads", o.threads, "whisper.cpp threads, the same on both sides; one row each");
  app.add_option("--seconds", o.seconds, "timed seconds per side and row")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  ScratchDir scratch;
  if (!scratch.ok()) return std::cerr << "bench_whisper: cannot create a temporary directory\n", 1;
  std::vector<Result> results;
  for (int threads : o.threads) {
    std::cerr << "bench_whisper: " << threads << " thread(s)...\n";
    Result r;
    std::string error;
    if (!run_threads(o, threads, scratch, &r, &error)) return std::cerr << "bench_whisper: " << error << "\n", 1;
    std::cerr << "  " << markdown_row(r.row);
    results.push_back(std::move(r));
  }
  std::cout << fmt::format(
      "whisper.cpp {} (PyPI pywhispercpp 1.5.1's source, CPU, OpenMP), wasinn {}; run {}; "
      "{} s of timed samples per side and row. A sample is one transcription of the "
      "35 s file: native whisper_full on the decoded audio; the guest's set_input of the "
      "WAV file, compute and get_output.\n\n",
      WASINN_WHISPER_VERSION, WASINN_VERSION_STRING, now_utc(), o.seconds);
  std::vector<BenchRow> rows;
  for (const auto& r : results) rows.push_back(r.row);
  std::cout << markdown_header();
  for (const auto& r : rows) std::cout << markdown_row(r);
  std::cout << "\n";
  for (const auto& r : results) {
    const Comparison& c = r.row.result;
    std::cout << fmt::format(
        "- {} thread(s): real-time factor {:.4f} native, {:.4f} guest (a call's time over 35 s of audio); "
        "per-call host overhead {} (95% CI {} to {}); ratio {:.4f}, 95% CI {:.4f}–{:.4f} (target at most 1.01: {}).\n",
        r.row.threads, c.native.median_us * 1e-6 / r.audio_seconds, c.guest.median_us * 1e-6 / r.audio_seconds,
        format_duration(c.overhead_us()), format_duration(c.overhead_95.low), format_duration(c.overhead_95.high),
        c.ratio(), c.ratio_95.low, c.ratio_95.high, c.ratio() <= 1.01 ? "met" : "NOT met");
  }
  if (!o.json.empty()) std::ofstream(o.json) << to_json(rows);
  return 0;
}
