// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "audio_encode.h"

#include <sndfile.h>
#include <soxr.h>

#include <algorithm>
#include <cstring>

#include "wav_header.h"

namespace wasinn::audio_common {
namespace {

// libsndfile's virtual I/O over a growing buffer: its encoders seek back to finish headers.
struct MemoryFile {
  std::vector<uint8_t>* data;
  size_t start;  // where this file begins in *data
  sf_count_t pos = 0;
};

sf_count_t mem_length(void* user) {
  auto* m = static_cast<MemoryFile*>(user);
  return static_cast<sf_count_t>(m->data->size() - m->start);
}
sf_count_t mem_seek(sf_count_t offset, int whence, void* user) {
  auto* m = static_cast<MemoryFile*>(user);
  const sf_count_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? mem_length(user) : 0;
  if (base + offset < 0) return -1;
  m->pos = base + offset;
  return m->pos;
}
sf_count_t mem_read(void* ptr, sf_count_t count, void* user) {
  auto* m = static_cast<MemoryFile*>(user);
  const sf_count_t n = std::max<sf_count_t>(0, std::min(count, mem_length(user) - m->pos));
  if (n > 0) std::memcpy(ptr, m->data->data() + m->start + m->pos, static_cast<size_t>(n));
  m->pos += n;
  return n;
}
sf_count_t mem_write(const void* ptr, sf_count_t count, void* user) {
  auto* m = static_cast<MemoryFile*>(user);
  const size_t end = m->start + static_cast<size_t>(m->pos + count);
  if (end > m->data->size()) m->data->resize(end);
  std::memcpy(m->data->data() + m->start + m->pos, ptr, static_cast<size_t>(count));
  m->pos += count;
  return count;
}
sf_count_t mem_tell(void* user) { return static_cast<MemoryFile*>(user)->pos; }

// The smallest of `rates` (ascending) at or above `rate`, else the largest.
int32_t next_rate(std::span<const int32_t> rates, int32_t rate) {
  for (int32_t r : rates)
    if (r >= rate) return r;
  return rates.back();
}

constexpr int32_t kOpusRates[] = {8000, 12000, 16000, 24000, 48000};
constexpr int32_t kMp3Rates[] = {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000};

}  // namespace

std::optional<AudioFormat> parse_audio_format(std::string_view name) {
  if (name == "wav") return AudioFormat::wav;
  if (name == "pcm" || name == "raw") return AudioFormat::pcm;
  if (name == "flac") return AudioFormat::flac;
  if (name == "mp3") return AudioFormat::mp3;
  if (name == "opus") return AudioFormat::opus;
  return std::nullopt;
}

const char* audio_format_name(AudioFormat f) {
  switch (f) {
    case AudioFormat::wav: return "wav";
    case AudioFormat::pcm: return "pcm";
    case AudioFormat::flac: return "flac";
    case AudioFormat::mp3: return "mp3";
    case AudioFormat::opus: return "opus";
  }
  return "wav";
}

int32_t encoded_rate(AudioFormat f, int32_t sample_rate) {
  if (f == AudioFormat::opus) return next_rate(kOpusRates, sample_rate);
  if (f == AudioFormat::mp3) return next_rate(kMp3Rates, sample_rate);
  return sample_rate;
}

std::string encode_audio(AudioFormat f, std::span<const int16_t> samples, int32_t sample_rate,
                         std::vector<uint8_t>& out) {
  if (f == AudioFormat::wav || f == AudioFormat::pcm) {
    if (f == AudioFormat::wav) {
      const std::vector<uint8_t> header = wav_header(sample_rate, static_cast<uint32_t>(samples.size()));
      out.insert(out.end(), header.begin(), header.end());
    }
    out.reserve(out.size() + samples.size() * 2);
    for (int16_t s : samples) put_pcm16(s, out);
    return {};
  }
  const int32_t rate = encoded_rate(f, sample_rate);
  std::vector<int16_t> resampled;
  if (rate != sample_rate) {
    resampled.resize(static_cast<size_t>(static_cast<double>(samples.size()) * rate / sample_rate + 1));
    size_t done = 0;
    const soxr_io_spec_t io = soxr_io_spec(SOXR_INT16_I, SOXR_INT16_I);
    const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
    if (soxr_error_t e = soxr_oneshot(sample_rate, rate, 1, samples.data(), samples.size(), nullptr, resampled.data(),
                                      resampled.size(), &done, &io, &quality, nullptr))
      return std::string("resampling to ") + std::to_string(rate) + " Hz failed: " + e;
    resampled.resize(done);
    samples = resampled;
  }
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = 1;
  info.format = f == AudioFormat::flac  ? SF_FORMAT_FLAC | SF_FORMAT_PCM_16
                : f == AudioFormat::mp3 ? SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III
                                        : SF_FORMAT_OGG | SF_FORMAT_OPUS;
  if (!sf_format_check(&info))
    return std::string("libsndfile cannot write ") + audio_format_name(f) + " at " + std::to_string(rate) + " Hz";
  SF_VIRTUAL_IO io{mem_length, mem_seek, mem_read, mem_write, mem_tell};
  MemoryFile file{&out, out.size()};
  SNDFILE* sf = sf_open_virtual(&io, SFM_WRITE, &info, &file);
  if (!sf) return std::string("libsndfile: ") + sf_strerror(nullptr);
  const sf_count_t wrote = sf_write_short(sf, samples.data(), static_cast<sf_count_t>(samples.size()));
  std::string why;
  if (wrote != static_cast<sf_count_t>(samples.size())) why = std::string("libsndfile: ") + sf_strerror(sf);
  if (sf_close(sf) != 0 && why.empty()) why = "libsndfile could not finish the file";
  if (!why.empty()) out.resize(file.start);
  return why;
}

}  // namespace wasinn::audio_common
