// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checks an audio file passes before libmtmd's decoder sees it (backends/llamacpp/audio_input.cpp),
// compiled from the plugin's source: each lie a header can tell is refused saying what, and what is
// left is the file libmtmd decodes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "audio_input.h"

using wasinn::llamacpp::AudioContainer;
using wasinn::llamacpp::check_audio;
using wasinn::llamacpp::sniff_audio;

namespace {

std::string le32(uint32_t v) {
  return {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
}
std::string le16(uint16_t v) { return {static_cast<char>(v), static_cast<char>(v >> 8)}; }

std::string fmt_chunk(uint16_t tag, uint16_t channels, uint32_t rate, uint16_t bits, std::string extra = "") {
  const uint16_t align = static_cast<uint16_t>(channels * bits / 8);
  const std::string body =
      le16(tag) + le16(channels) + le32(rate) + le32(rate * align) + le16(align) + le16(bits) + extra;
  return "fmt " + le32(static_cast<uint32_t>(body.size())) + body;
}

// RIFF/WAVE around `chunks`, its size theirs.
std::string riff(const std::string& chunks) {
  return "RIFF" + le32(static_cast<uint32_t>(4 + chunks.size())) + "WAVE" + chunks;
}

std::string data_chunk(const std::string& samples) {
  return "data" + le32(static_cast<uint32_t>(samples.size())) + samples;
}

std::string refusal(const std::string& bytes) {
  std::string file;
  const auto e = check_audio(bytes, "the clip", file);
  return e ? e.detail : "";
}

}  // namespace

TEST(AudioInput, APlainWavIsDecodedAsItIs) {
  const std::string wav = riff(fmt_chunk(1, 1, 16000, 16) + data_chunk(std::string(320, '\x01')));
  std::string file;
  ASSERT_FALSE(check_audio(wav, "the clip", file)) << refusal(wav);
  EXPECT_EQ(file, wav);
  EXPECT_EQ(sniff_audio(wav), AudioContainer::wav);
}

TEST(AudioInput, AWavIsRebuiltFromItsFmtAndDataChunks) {
  // A LIST chunk of odd size (padded), an 18-byte fmt, bytes past the RIFF extent: all left out.
  const std::string list = "LIST" + le32(3) + "abc" + std::string(1, '\0');
  const std::string samples(64, '\x02');
  const std::string wav = riff(list + fmt_chunk(3, 2, 8000, 32, le16(0)) + data_chunk(samples)) + "trailing";
  std::string file;
  ASSERT_FALSE(check_audio(wav, "the clip", file)) << refusal(wav);
  EXPECT_EQ(file, riff(fmt_chunk(3, 2, 8000, 32) + data_chunk(samples)));
  // WAVE_FORMAT_EXTENSIBLE: the sub-format's tag becomes the file's (miniaudio decodes by it).
  const std::string ext = le16(22) + le16(32) + le32(3) + le16(3) + std::string(14, '\0');
  const std::string wav2 = riff(fmt_chunk(0xFFFE, 1, 16000, 32, ext) + data_chunk(samples));
  ASSERT_FALSE(check_audio(wav2, "the clip", file)) << refusal(wav2);
  EXPECT_EQ(file, riff(fmt_chunk(3, 1, 16000, 32) + data_chunk(samples)));
}

TEST(AudioInput, WavLiesAreRefusedSayingWhat) {
  const std::string fmt = fmt_chunk(1, 1, 16000, 16), samples(320, '\0');
  const std::string good = riff(fmt + data_chunk(samples));
  struct Case {
    std::string bytes, says;
  } cases[] = {
      {good.substr(0, good.size() / 2), "truncated WAV file: its header says 364 bytes, 182 were given"},
      {riff(fmt + "data" + le32(1u << 30) + samples), "'data' chunk claims 1073741824 bytes, past the file's end"},
      {riff(fmt + "dat"), "ends inside a chunk header"},
      {riff("fmt " + le32(8) + std::string(8, '\0') + data_chunk(samples)), "'fmt ' chunk is 8 bytes"},
      {riff(fmt_chunk(0xFFFE, 1, 16000, 16) + data_chunk(samples)), "WAVE_FORMAT_EXTENSIBLE in 16 bytes"},
      {riff(data_chunk(samples) + fmt), "'data' chunk before any 'fmt ' chunk"},
      {riff(fmt), "no 'data' chunk"},
      {riff(""), "no 'fmt ' chunk"},
      {riff(fmt + data_chunk("")), "holds no samples"},
      {riff(fmt_chunk(2, 1, 16000, 4) + data_chunk(samples)), "format tag 2 (ADPCM)"},
      {riff(fmt_chunk(1, 0, 16000, 16) + data_chunk(samples)), "says 0 channels"},
      // 4000 frames at 1 Hz: libmtmd would make 64 million samples of them at 16 kHz.
      {riff(fmt_chunk(1, 1, 1, 16) + data_chunk(std::string(8000, '\0'))), "4000 s long (4000 frames at 1 Hz)"},
  };
  for (const Case& c : cases) {
    const std::string why = refusal(c.bytes);
    EXPECT_NE(why.find(c.says), std::string::npos) << "'" << why << "' does not say '" << c.says << "'";
    EXPECT_EQ(why.rfind("the clip ", 0), 0u) << why;
  }
}

TEST(AudioInput, FlacIsBoundedByItsStreamInfo) {
  // STREAMINFO: block sizes, frame sizes, then 20 bits of rate, 3 of channels, 5 of bits, 36 of samples.
  auto flac = [](uint32_t rate, uint64_t total) {
    std::string info(34, '\0');
    info[10] = static_cast<char>(rate >> 12);
    info[11] = static_cast<char>(rate >> 4);
    info[12] = static_cast<char>((rate & 0xF) << 4);
    info[13] = static_cast<char>((total >> 32) & 0xF);
    for (int i = 0; i < 4; ++i) info[14 + i] = static_cast<char>(total >> (24 - 8 * i));
    return std::string("fLaC") + '\x80' + '\0' + '\0' + '\x22' + info + "frames";
  };
  EXPECT_EQ(refusal(flac(16000, 16000)), "");
  EXPECT_NE(refusal(flac(16000, 0)).find("does not say how many samples"), std::string::npos);
  EXPECT_NE(refusal(flac(16000, uint64_t{1} << 35)).find("s long, as its STREAMINFO says"), std::string::npos);
  EXPECT_NE(refusal(flac(0, 100)).find("0 Hz"), std::string::npos);
  EXPECT_NE(refusal("fLaC" + std::string(10, '\0')).find("without its STREAMINFO"), std::string::npos);
  // An ID3 tag before "fLaC" is FLAC, as miniaudio reads it.
  const std::string tagged = std::string("ID3\x04\0\0\0\0\0\x02", 10) + "xx" + flac(16000, 0);
  EXPECT_EQ(sniff_audio(tagged), AudioContainer::flac);
  EXPECT_NE(refusal(tagged).find("does not say how many samples"), std::string::npos);
}

TEST(AudioInput, Mp3IsBoundedByEveryFrameHeaderItHolds) {
  // MPEG-1 layer III, 128 kbit/s, 44.1 kHz: 417 bytes and 1152 samples a frame.
  const std::string frame = std::string("\xFF\xFB\x90\x00", 4) + std::string(413, '\0');
  std::string mp3;
  for (int i = 0; i < 100; ++i) mp3 += frame;
  EXPECT_EQ(refusal(mp3), "");
  EXPECT_EQ(sniff_audio(mp3), AudioContainer::mp3);
  // Free-format MPEG-2.5 frame headers 4 bytes apart at 8 kHz: each could be a frame of 576
  // samples, so 2 MB of them are bounded at 36000 s.
  std::string bomb;
  for (int i = 0; i < 500000; ++i) bomb += std::string("\xFF\xE3\x08\x00", 4);
  EXPECT_NE(refusal(bomb).find("an MP3 file whose frames could decode to 36000 s"), std::string::npos) << refusal(bomb);
  EXPECT_NE(refusal(std::string("\xFF\xE0\0\0", 4) + std::string(20, '\0')).find("holds no MPEG audio frame header"),
            std::string::npos);
  EXPECT_NE(refusal(std::string("ID3\x04\0\0\0\0\x7F\x7F", 10) + "short").find("ID3 tag runs past its end"),
            std::string::npos);
}

TEST(AudioInput, OtherBytesAreNoAudio) {
  EXPECT_EQ(sniff_audio("\x89PNG\r\n\x1a\n0000"), AudioContainer::none);
  EXPECT_EQ(sniff_audio("OggS000000000"), AudioContainer::none);
  EXPECT_EQ(sniff_audio("RIFF"), AudioContainer::none);  // shorter than any header libmtmd tests
  EXPECT_NE(refusal("this is text, not a sound").find("is not a WAV, MP3 or FLAC file"), std::string::npos);
}
