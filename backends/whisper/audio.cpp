// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's one translation unit that compiles miniaudio.
#define MINIAUDIO_IMPLEMENTATION
#include "miniaudio_decoders.h"

#include "audio.h"
#include "audio_common/wav_chunks.h"
#include "ogg.h"

#include <cstring>
#include <string>

namespace wasinn::whisper {
namespace {

constexpr uint32_t kRate = 16000;
constexpr uint64_t kMaxFrames = kMaxAudioSeconds * kRate;
// A decoded length this far short of what the file's header promised is a cut file, not the
// resampler's few frames of latency (which whisper-cli pads with silence, and so does this).
constexpr uint64_t kShortfall = kRate / 10;
constexpr char kSend[] = "; send a WAV, FLAC, MP3 or Ogg (Vorbis, Opus) file";

enum class Container { wav, flac, mp3, ogg };

bool starts(std::span<const uint8_t> b, size_t at, const char* magic) {
  const size_t n = std::strlen(magic);
  return b.size() >= at + n && std::memcmp(b.data() + at, magic, n) == 0;
}
// An MPEG audio frame header's first 11 sync bits and a layer (I-III: not AAC's ADTS, layer 0).
bool mpeg_sync(std::span<const uint8_t> b, size_t at) {
  return b.size() >= at + 2 && b[at] == 0xFF && (b[at + 1] & 0xE0) == 0xE0 && (b[at + 1] & 0x06) != 0;
}

// What the file's first bytes say it is; a refusal names the formats that are not taken.
sdk::Error detect(std::span<const uint8_t> b, Container& out) {
  if (b.empty()) return sdk::invalid("input 0 is empty: no audio file" + std::string(kSend));
  if (starts(b, 0, "RIFF") && starts(b, 8, "WAVE")) return out = Container::wav, sdk::Error{};
  if (starts(b, 0, "fLaC")) return out = Container::flac, sdk::Error{};
  if (starts(b, 0, "OggS")) return out = Container::ogg, sdk::Error{};  // Vorbis or Opus: ogg.h
  // An ID3v2 tag (10 bytes and a syncsafe size, a footer of 10 more) starts most MP3 files.
  size_t at = 0;
  if (starts(b, 0, "ID3") && b.size() >= 10) {
    at = 10 + (size_t{b[6] & 0x7Fu} << 21 | size_t{b[7] & 0x7Fu} << 14 | size_t{b[8] & 0x7Fu} << 7 | (b[9] & 0x7Fu)) +
         ((b[5] & 0x10) ? 10 : 0);
    if (starts(b, at, "fLaC")) return out = Container::flac, sdk::Error{};
    if (at >= b.size()) return sdk::invalid("input 0: the MP3 file's ID3 tag runs past its end: it is truncated");
    return out = Container::mp3, sdk::Error{};  // miniaudio skips the tag and finds the first frame
  }
  if (mpeg_sync(b, 0)) return out = Container::mp3, sdk::Error{};
  const char* named = starts(b, 0, "FORM")                                     ? "AIFF"
                      : starts(b, 0, "RF64") || starts(b, 0, "RIFX")           ? "RF64/RIFX (a WAV variant)"
                      : starts(b, 0, "RIFF")                                   ? "a RIFF file but not WAVE"
                      : starts(b, 4, "ftyp")                                   ? "MP4/M4A"
                      : starts(b, 0, "\x1a\x45\xdf\xa3")                       ? "WebM/Matroska"
                      : b.size() >= 2 && b[0] == 0xFF && (b[1] & 0xF6) == 0xF0 ? "AAC (ADTS)"
                                                                               : nullptr;
  if (named) return sdk::invalid("input 0 is " + std::string(named) + ", which this backend does not decode" + kSend);
  return sdk::invalid("input 0 is not a WAV, FLAC, MP3 or Ogg file (its first bytes are no header of one)" +
                      std::string(kSend));
}

const char* name_of(Container c, OggCodec codec) {
  if (c == Container::ogg) return codec == OggCodec::vorbis ? "Ogg Vorbis" : "Ogg Opus";
  return c == Container::wav ? "WAV" : c == Container::flac ? "FLAC" : "MP3";
}

struct Decoder {
  ma_decoder d{};
  bool open = false;
  ~Decoder() {
    if (open) ma_decoder_uninit(&d);
  }
};

// `file` decoded to f32 at 16 kHz in `channels` channels, as whisper-cli reads it: its length
// asked first, then that many frames read, any shortfall left as silence. Read in blocks, so a
// length that lies costs no memory before the samples are there.
// An Ogg file's codec is a decoding backend of ogg.h: the encoding format named is one miniaudio
// has no decoder for here (no stb_vorbis), so only that backend is tried, never a stock decoder.
sdk::Error decode(std::span<const uint8_t> file, Container c, OggCodec codec, uint32_t channels,
                  std::vector<float>& out, uint32_t* native_channels, const std::string& format = "") {
  Decoder dec;
  ma_decoder_config config = ma_decoder_config_init(ma_format_f32, channels, kRate);
  config.encodingFormat = c == Container::wav    ? ma_encoding_format_wav
                          : c == Container::flac ? ma_encoding_format_flac
                          : c == Container::mp3  ? ma_encoding_format_mp3
                                                 : ma_encoding_format_vorbis;
  OggFailure failure;
  ma_decoding_backend_vtable* backends[1] = {ogg_backend(codec)};
  if (c == Container::ogg) {
    config.ppCustomBackendVTables = backends;
    config.customBackendCount = 1;
    config.pCustomBackendUserData = &failure;
  }
  const std::string what = std::string("input 0: the ") + name_of(c, codec) + " file";
  if (ma_decoder_init_memory(file.data(), file.size(), &config, &dec.d) != MA_SUCCESS) {
    if (!failure.what.empty()) return sdk::invalid(what + " " + failure.what + kSend);
    return sdk::invalid(what + " cannot be decoded: its header or first frame is malformed" + format + kSend);
  }
  dec.open = true;
  ma_uint32 file_channels = 0, file_rate = 0;
  if (ma_data_source_get_data_format(dec.d.pBackend, nullptr, &file_channels, &file_rate, nullptr, 0) != MA_SUCCESS ||
      file_channels == 0 || file_rate == 0)
    return sdk::invalid(what + " says no channels or no sample rate" + kSend);
  if (native_channels) *native_channels = file_channels;
  ma_uint64 declared = 0;
  if (ma_decoder_get_length_in_pcm_frames(&dec.d, &declared) != MA_SUCCESS) declared = 0;  // unknown: read to the end
  if (declared > kMaxFrames)
    return sdk::invalid(what + " is " + std::to_string(declared / kRate) + " s long; at most " +
                        std::to_string(kMaxAudioSeconds) + " s of audio is taken");
  const uint64_t limit = declared ? declared : kMaxFrames + 1;
  constexpr ma_uint64 kBlock = 16384;
  std::vector<float> block(kBlock * channels);
  out.clear();
  uint64_t frames = 0;
  while (frames < limit) {
    ma_uint64 read = 0;
    const ma_result r =
        ma_decoder_read_pcm_frames(&dec.d, block.data(), std::min<uint64_t>(kBlock, limit - frames), &read);
    out.insert(out.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(read * channels));
    frames += read;
    if (r != MA_SUCCESS || read == 0) break;
  }
  if (!failure.what.empty()) return sdk::invalid(what + " " + failure.what + kSend);  // a codec's error midway
  if (frames > kMaxFrames)
    return sdk::invalid(what + " is longer than " + std::to_string(kMaxAudioSeconds) + " s; at most that is taken");
  if (frames == 0) return sdk::invalid(what + " holds no samples");
  if (declared > frames + kShortfall)
    return sdk::invalid(what + " is truncated or its header lies: it promises " + std::to_string(declared) +
                        " frames at 16 kHz, only " + std::to_string(frames) + " were decoded");
  out.resize(static_cast<size_t>(declared ? declared : frames) * channels, 0.0f);
  return {};
}

}  // namespace

sdk::Error decode_audio(std::span<const uint8_t> bytes, Audio& out) {
  Container c = Container::wav;
  if (sdk::Error e = detect(bytes, c)) return e;
  OggCodec codec = OggCodec::vorbis;
  if (c == Container::ogg) {
    if (sdk::Error e = check_ogg(bytes, codec)) return e;
  }
  std::span<const uint8_t> file = bytes;
  std::vector<uint8_t> canonical;
  if (c == Container::wav) {
    // Bytes after the RIFF extent are not the file's. miniaudio sees only the file rebuilt from
    // the checked "fmt " and "data" chunks: its own chunk reader can loop on a guest's sizes.
    audio_common::WavChunks chunks;
    if (sdk::Error e = audio_common::find_wav_chunks(bytes, "input 0", kSend, chunks)) return e;
    audio_common::canonical_wav(chunks, canonical);
    file = canonical;
    // miniaudio says only that it failed: the format fields say what the file asked for.
    const audio_common::WavFormat f = audio_common::wav_format(chunks);
    const std::string format = " (format tag " + std::to_string(f.tag) + ", " + std::to_string(f.channels) +
                               " channels, " + std::to_string(f.bits) + " bits a sample, " + std::to_string(f.rate) +
                               " Hz)";
    out = {};
    if (sdk::Error e = decode(file, c, codec, 1, out.mono, &out.channels, format)) return e;
  } else {
    out = {};
    if (sdk::Error e = decode(file, c, codec, 1, out.mono, &out.channels)) return e;
  }
  if (out.channels == 2) {
    // Each channel too, for diarize's speaker of a segment (whisper-cli decodes them so with -di).
    std::vector<float> both;
    if (sdk::Error e = decode(file, c, codec, 2, both, nullptr)) return e;
    const size_t n = out.mono.size();
    out.left.assign(n, 0.0f);
    out.right.assign(n, 0.0f);
    for (size_t i = 0; i < n && 2 * i + 1 < both.size(); ++i) {
      out.left[i] = both[2 * i];
      out.right[i] = both[2 * i + 1];
    }
  }
  return {};
}

}  // namespace wasinn::whisper
