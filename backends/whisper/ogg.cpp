// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "ogg.h"

#include <sndfile.h>

#include <algorithm>
#include <string>

#include "miniaudio_decoders.h"  // declarations only: audio.cpp compiles miniaudio

namespace wasinn::whisper {
namespace {

constexpr uint32_t kRate = 16000;

// libsndfile's virtual I/O over the request's bytes.
struct Memory {
  std::span<const uint8_t> bytes;
  sf_count_t at = 0;
};
sf_count_t mem_length(void* m) { return static_cast<sf_count_t>(static_cast<Memory*>(m)->bytes.size()); }
sf_count_t mem_seek(sf_count_t offset, int whence, void* p) {
  auto* m = static_cast<Memory*>(p);
  const sf_count_t base = whence == SEEK_CUR ? m->at : whence == SEEK_END ? mem_length(p) : 0;
  const sf_count_t to = base + offset;
  if (to < 0 || to > mem_length(p)) return -1;
  return m->at = to;
}
sf_count_t mem_read(void* out, sf_count_t count, void* p) {
  auto* m = static_cast<Memory*>(p);
  const sf_count_t n = std::clamp<sf_count_t>(count, 0, mem_length(p) - m->at);
  std::copy_n(m->bytes.data() + m->at, n, static_cast<uint8_t*>(out));
  m->at += n;
  return n;
}
sf_count_t mem_write(const void*, sf_count_t, void*) { return 0; }
sf_count_t mem_tell(void* m) { return static_cast<Memory*>(m)->at; }

struct File {
  SNDFILE* f = nullptr;
  ~File() {
    if (f) sf_close(f);
  }
};
struct Converter {
  ma_data_converter c{};
  bool open = false;
  ~Converter() {
    if (open) ma_data_converter_uninit(&c, nullptr);
  }
};

// The 16 kHz length miniaudio's decoder reports for `frames` at `rate` (whisper-cli reads that
// many): its ma_calculate_frame_count_after_resampling, which its header does not declare.
uint64_t frames_after_resampling(uint32_t rate, uint64_t frames) {
  if (rate == kRate || frames == 0) return frames;
  uint64_t out = frames * kRate / rate;
  if (out * (rate % kRate) + out * (rate / kRate) / kRate <= frames) out += 1;
  return out;
}

sdk::Error bad(const std::string& what) { return sdk::invalid("input 0: the Ogg file " + what); }

}  // namespace

sdk::Error decode_ogg(std::span<const uint8_t> bytes, uint32_t channels, uint64_t max_frames, std::vector<float>& out,
                      uint32_t* native_channels) {
  Memory memory{bytes, 0};
  SF_VIRTUAL_IO io{mem_length, mem_seek, mem_read, mem_write, mem_tell};
  SF_INFO info{};
  File file;
  file.f = sf_open_virtual(&io, SFM_READ, &info, &memory);
  if (!file.f)
    return bad(std::string("cannot be decoded: ") + sf_strerror(nullptr) +
               "; send a WAV, FLAC, MP3 or Ogg (Vorbis, Opus) file");
  if (info.channels <= 0 || info.channels > MA_MAX_CHANNELS || info.samplerate <= 0)
    return bad("says " + std::to_string(info.channels) + " channels at " + std::to_string(info.samplerate) + " Hz");
  const auto rate = static_cast<uint32_t>(info.samplerate), in_channels = static_cast<uint32_t>(info.channels);
  if (native_channels) *native_channels = in_channels;
  const uint64_t declared = info.frames > 0 ? static_cast<uint64_t>(info.frames) : 0;
  const uint64_t max_in = max_frames / kRate * rate + rate;  // the limit at the file's rate, a second over
  const auto too_long = [&] {
    return bad("is longer than " + std::to_string(max_frames / kRate) + " s; at most that is taken");
  };
  if (declared > max_in) return too_long();
  // Read in blocks: the declared length is the file's word, not a size to trust.
  std::vector<float> in, block(size_t{16384} * in_channels);
  uint64_t frames = 0;
  for (sf_count_t n; (n = sf_readf_float(file.f, block.data(), 16384)) > 0;) {
    in.insert(in.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(n * in_channels));
    if ((frames += static_cast<uint64_t>(n)) > max_in) return too_long();
  }
  if (frames == 0) return bad("holds no samples");
  if (declared > frames + rate / 10)
    return bad("is truncated or its header lies: it promises " + std::to_string(declared) + " frames at " +
               std::to_string(rate) + " Hz, only " + std::to_string(frames) + " were decoded");
  // miniaudio's converter with its decoder's defaults: the channels' mean, the linear resampler.
  Converter conv;
  const ma_data_converter_config config =
      ma_data_converter_config_init(ma_format_f32, ma_format_f32, in_channels, channels, rate, kRate);
  if (ma_data_converter_init(&config, nullptr, &conv.c) != MA_SUCCESS) return bad("cannot be resampled");
  conv.open = true;
  const uint64_t expected = frames_after_resampling(rate, frames);
  if (expected > max_frames) return too_long();
  out.assign(static_cast<size_t>(expected) * channels, 0.0f);  // what the resampler leaves short is silence
  uint64_t done_in = 0, done_out = 0;
  while (done_in < frames && done_out < expected) {
    ma_uint64 n_in = frames - done_in, n_out = expected - done_out;
    if (ma_data_converter_process_pcm_frames(&conv.c, in.data() + done_in * in_channels, &n_in,
                                             out.data() + done_out * channels, &n_out) != MA_SUCCESS ||
        (n_in == 0 && n_out == 0))
      break;
    done_in += n_in;
    done_out += n_out;
  }
  return {};
}

}  // namespace wasinn::whisper
