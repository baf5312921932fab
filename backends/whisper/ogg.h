// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ogg Vorbis and Ogg Opus, which miniaudio does not decode: Debian's libvorbisfile and libopusfile
// as miniaudio decoding backends, so ma_decoder mixes and resamples their samples to 16 kHz
// exactly as it does a WAV, FLAC or MP3 file's (audio.cpp). libogg reads the pages first: a
// damaged, cut or unfinished file is refused before a codec sees it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "miniaudio_decoders.h"  // declarations only: audio.cpp compiles miniaudio
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

enum class OggCodec { vorbis, opus };

// The codec of `file` (which starts with "OggS") from its first page, after libogg has read
// every page: INVALID_ARGUMENT, saying what, for a page whose checksum or framing is wrong, a
// file cut inside a page, a logical stream without its end-of-stream page (a cut file), or a
// codec other than Vorbis and Opus (named: Ogg FLAC, Speex, Theora...).
sdk::Error check_ogg(std::span<const uint8_t> file, OggCodec& codec);

// Where a backend below says why it failed (miniaudio's results say only that it did): the
// decoder's pCustomBackendUserData. Empty while nothing failed.
struct OggFailure {
  std::string what;
};

// miniaudio's decoding backend for `codec`: it opens the file from memory (onInitMemory), refuses
// chained links whose channel count or rate change, and reads f32 samples at the file's rate
// (48 kHz for Opus) with the Vorbis channel order.
ma_decoding_backend_vtable* ogg_backend(OggCodec codec);

}  // namespace wasinn::whisper
