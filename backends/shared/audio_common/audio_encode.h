// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Mono 16-bit samples as the files the speech plugins give (piper, llamacpp's text to speech):
// WAV and raw PCM written here (wav_header.h, byte for byte as before), FLAC, MP3 and Ogg Opus
// by libsndfile (LAME and libopus inside it). Opus takes 8/12/16/24/48 kHz and LAME its nine
// MPEG rates only, so other rates are resampled (soxr, high quality) to the next rate up first.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wasinn::audio_common {

enum class AudioFormat { wav, pcm, flac, mp3, opus };

// "wav", "pcm" (also "raw", WasmEdge's output_type), "flac", "mp3", "opus"; none otherwise.
std::optional<AudioFormat> parse_audio_format(std::string_view name);
const char* audio_format_name(AudioFormat f);
inline constexpr const char* kAudioFormats = "wav, pcm, flac, mp3, opus";

// The rate the file of format `f` holds for audio at `sample_rate` (the same, or the one it is
// resampled to).
int32_t encoded_rate(AudioFormat f, int32_t sample_rate);

// `samples` at `sample_rate` as a file of format `f`, appended to `out`; "" on success, else
// why not (the encoder's own words).
std::string encode_audio(AudioFormat f, std::span<const int16_t> samples, int32_t sample_rate,
                         std::vector<uint8_t>& out);

}  // namespace wasinn::audio_common
