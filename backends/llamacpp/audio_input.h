// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An audio file for a projector with an audio encoder, checked before libmtmd's decoder sees it.
// libmtmd (mtmd_helper_bitmap_init_from_buf) takes as audio what starts as a WAV, an MP3 (an ID3
// tag or an MPEG sync word) or a FLAC file, asks miniaudio for its length and allocates that many
// samples at the projector's rate before reading them. So a header that lies costs memory, and
// miniaudio's WAV chunk reader trusts a chunk's size (a short "fmt " chunk makes it seek backwards
// for ever). Here each container's lengths are checked against the bytes and bounded in time, and
// a WAV is rebuilt from its checked "fmt " and "data" chunks, the file libmtmd then decodes. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

// The longest audio taken: an hour (230 MB of samples at 16 kHz), as the whisper plugin's.
inline constexpr uint64_t kMaxAudioSeconds = 3600;

enum class AudioContainer { none, wav, mp3, flac };

// What libmtmd's own test (mtmd-helper.cpp's is_audio_file) calls audio: RIFF/WAVE, "ID3" or an
// MPEG sync word, "fLaC" (an ID3 tag before "fLaC" is FLAC, as miniaudio reads it); none otherwise.
AudioContainer sniff_audio(std::string_view bytes);
const char* container_name(AudioContainer c);

// Checks the audio file `bytes` and sets `file` to what libmtmd should decode: for a WAV, a file
// rebuilt from its "fmt " and "data" chunks; otherwise `bytes` itself. INVALID_ARGUMENT, naming
// `what`, for: a WAV whose RIFF size runs past the bytes (truncated), a chunk header or body past
// the end, a "fmt " shorter than 16 bytes (40 for WAVE_FORMAT_EXTENSIBLE), no "fmt " before
// "data", no samples, a sample format other than PCM, IEEE float, A-law or mu-law, zero channels
// or rate; a FLAC without STREAMINFO, or one that does not say how many samples it holds; an MP3
// with no MPEG audio frame header; and audio longer than kMaxAudioSeconds (for an MP3, the most
// its frame headers could decode to).
sdk::Error check_audio(std::string_view bytes, std::string_view what, std::string& file);

}  // namespace wasinn::llamacpp
