// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A guest's audio: a whole WAV, FLAC, MP3 or Ogg (Vorbis, Opus) file, decoded and resampled to
// 16 kHz mono as whisper-cli does (whisper.cpp's read_audio_data: miniaudio's decoder with f32
// samples, one channel, 16000 Hz). A WAV file is checked chunk by chunk first and miniaudio
// decodes a copy of its "fmt " and "data" chunks (audio_common/wav_chunks.h); an Ogg file's pages are checked
// by libogg and its codec decoded by libvorbisfile or libopusfile inside miniaudio's decoder
// (ogg.h). Every other file is refused with what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

// The longest audio taken, decoded: an hour at 16 kHz (230 MB of f32 samples, three times that
// for a stereo file kept for diarize). Longer audio is refused, not cut.
constexpr uint64_t kMaxAudioSeconds = 3600;

struct Audio {
  std::vector<float> mono;         // what whisper.cpp hears: the channels' mean, at 16 kHz
  std::vector<float> left, right;  // stereo input only, for diarize
  uint32_t channels = 0;           // the file's own
  double seconds() const { return static_cast<double>(mono.size()) / 16000.0; }
};

// INVALID_ARGUMENT, saying what is wrong, for: an empty file; a file that is not WAV
// (RIFF/WAVE), FLAC, MP3 or Ogg (AIFF, MP4 and the like are named and refused); a WAV whose
// RIFF size runs past the bytes given (truncated) or whose chunks are malformed (audio_common/wav_chunks.h);
// an Ogg file that is damaged, cut or of another codec (ogg.h); a format or file miniaudio (or
// the Ogg codec's library) cannot decode; a FLAC or Ogg file whose header (an Ogg file's last
// granule position) promises more samples than it holds; no samples at all; more than
// kMaxAudioSeconds.
sdk::Error decode_audio(std::span<const uint8_t> bytes, Audio& out);

}  // namespace wasinn::whisper
