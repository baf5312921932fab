// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whisper plugin's Ogg decoding (backends/whisper/ogg.cpp: libvorbisfile and libopusfile inside
// miniaudio's decoder), natively: what it hears of the Vorbis and Opus fixtures equals what it
// hears of the same files decoded by another library (PyPI soundfile's libsndfile, written as
// float WAVs by scripts/fixtures/export_whisper.py), sample for sample within float rounding, so a
// transcript of the Ogg file is whisper-cli's of that WAV. And a damaged file is refused saying how.
#include <ogg/ogg.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "audio.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "detail: " << (haystack)

using Bytes = std::vector<uint8_t>;
using wasinn::whisper::Audio;
using wasinn::whisper::decode_audio;

Audio decoded(const std::string& fixture) {
  Audio a;
  const Bytes file = read_fixture(fixture);
  const auto e = decode_audio(file, a);
  EXPECT_FALSE(e) << fixture << ": " << e.detail;
  return a;
}

// The most any sample differs, 16 kHz mono as whisper hears them.
void expect_same_samples(const std::string& ogg, const std::string& wav) {
  const Audio a = decoded(ogg), b = decoded(wav);
  ASSERT_EQ(a.mono.size(), b.mono.size()) << ogg << " vs " << wav;
  ASSERT_GT(a.mono.size(), 16000u);
  float worst = 0, peak = 0;
  for (size_t i = 0; i < a.mono.size(); ++i) {
    worst = std::max(worst, std::fabs(a.mono[i] - b.mono[i]));
    peak = std::max(peak, std::fabs(b.mono[i]));
  }
  std::printf("%s: %zu samples, the most one differs from %s's is %g (peak %g)\n", ogg.c_str(), a.mono.size(),
              wav.c_str(), worst, peak);
  EXPECT_GT(peak, 0.1f) << "the speech is there";
  EXPECT_LE(worst, 1e-5f) << ogg << " vs " << wav;
}

TEST(WhisperOgg, VorbisSamplesEqualAnotherDecoders) {
  expect_same_samples("whisper/speech.ogg", "whisper/speech-ogg.wav");
}

// Opus is 48 kHz: both go through the same resampler to 16 kHz.
TEST(WhisperOgg, OpusSamplesEqualAnotherDecoders) {
  expect_same_samples("whisper/speech.opus", "whisper/speech-opus.wav");
}

// The pages of `file`, each [offset, size).
std::vector<std::pair<size_t, size_t>> pages(const Bytes& file) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t at = 0; at + 27 <= file.size() && std::memcmp(&file[at], "OggS", 4) == 0;) {
    size_t size = 27 + file[at + 26];
    for (size_t i = 0; i < file[at + 26]; ++i) size += file[at + 27 + i];
    out.emplace_back(at, size);
    at += size;
  }
  return out;
}

// The page at `at` with its checksum made right again (libogg's), after an edit.
void reseal(Bytes& file, size_t at, size_t size) {
  ogg_page page{};
  page.header = &file[at];
  page.header_len = 27 + file[at + 26];
  page.body = &file[at + page.header_len];
  page.body_len = static_cast<long>(size) - page.header_len;
  ogg_page_checksum_set(&page);
}

std::string refusal(const Bytes& file) {
  Audio a;
  const auto e = decode_audio(file, a);
  EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << e.detail;
  return e.detail;
}

TEST(WhisperOgg, DamagedCutOrLyingFilesAreRefusedSayingHow) {
  const Bytes ogg = read_fixture("whisper/speech.ogg"), opus = read_fixture("whisper/speech.opus");
  const auto ogg_pages = pages(ogg), opus_pages = pages(opus);
  ASSERT_GE(ogg_pages.size(), 3u);
  ASSERT_GE(opus_pages.size(), 3u);
  const auto [last, last_size] = ogg_pages.back();

  EXPECT_CONTAINS(refusal(Bytes(ogg.begin(), ogg.begin() + ogg.size() / 2)), "truncated");
  EXPECT_CONTAINS(refusal(Bytes(ogg.begin(), ogg.begin() + last)), "no end-of-stream flag");
  Bytes flipped = ogg;
  flipped[ogg.size() / 2] ^= 0xFF;
  EXPECT_CONTAINS(refusal(flipped), "checksum");

  // The last page's granule position (its end, in samples) ten seconds past the audio.
  Bytes lying = ogg;
  int64_t granule = 0;
  std::memcpy(&granule, &lying[last + 6], 8);
  granule += 16000 * 10;
  std::memcpy(&lying[last + 6], &granule, 8);
  reseal(lying, last, last_size);
  EXPECT_CONTAINS(refusal(lying), "truncated or its header lies");
  granule += 16000 * 7200;  // and two hours past
  std::memcpy(&lying[last + 6], &granule, 8);
  reseal(lying, last, last_size);
  EXPECT_CONTAINS(refusal(lying), "s of audio is taken");

  // OpusHead's channel count (byte 9 of its packet, the first page's body) says none.
  Bytes no_channels = opus;
  const size_t body = opus_pages[0].first + 27 + opus[opus_pages[0].first + 26];
  no_channels[body + 9] = 0;
  reseal(no_channels, opus_pages[0].first, opus_pages[0].second);
  EXPECT_CONTAINS(refusal(no_channels), "malformed Opus header");

  // Another codec in the first page.
  Bytes speex = opus;
  std::memcpy(&speex[body], "Speex   ", 8);
  reseal(speex, opus_pages[0].first, opus_pages[0].second);
  EXPECT_CONTAINS(refusal(speex), "Speex, which this backend does not decode");
}

}  // namespace
}  // namespace wasinn_test
