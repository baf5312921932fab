// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's one translation unit that compiles miniaudio.
#define MINIAUDIO_IMPLEMENTATION
#include "miniaudio_wav.h"

#include "wav.h"
#include "wav_layout.h"

#include <cstring>
#include <string>

namespace wasinn::whisper {
namespace {

constexpr uint32_t kRate = 16000;
constexpr char kSend[] = "; send a 16 kHz, 16-bit PCM WAV file (e.g. sox in.wav -r 16000 -b 16 out.wav)";

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

struct Decoder {
  ma_decoder d{};
  bool open = false;
  ~Decoder() {
    if (open) ma_decoder_uninit(&d);
  }
};

}  // namespace

sdk::Error decode_wav(std::span<const uint8_t> bytes, Audio& out) {
  if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 || std::memcmp(bytes.data() + 8, "WAVE", 4) != 0)
    return sdk::invalid("input 0 is not a WAV file: it does not start with a RIFF/WAVE header" + std::string(kSend));
  const uint64_t riff_end = uint64_t{le32(bytes.data() + 4)} + 8;
  if (riff_end > bytes.size())
    return sdk::invalid("input 0: the WAV file is truncated: its header says " + std::to_string(riff_end) + " bytes, " +
                        std::to_string(bytes.size()) + " were given");
  // Bytes after the RIFF extent are not the file's. miniaudio sees only the file rebuilt from
  // the checked "fmt " and "data" chunks: its own chunk reader can loop on a guest's sizes.
  WavChunks chunks;
  if (sdk::Error e = find_wav_chunks(bytes.first(static_cast<size_t>(riff_end)), chunks)) return e;
  const std::vector<uint8_t> file = canonical_wav(chunks);
  Decoder dec;
  ma_decoder_config config = ma_decoder_config_init(ma_format_unknown, 0, 0);  // the file's own format
  config.encodingFormat = ma_encoding_format_wav;
  if (ma_decoder_init_memory(file.data(), file.size(), &config, &dec.d) != MA_SUCCESS)
    return sdk::invalid("input 0: the WAV file's format cannot be decoded (format tag " +
                        std::to_string(le16(chunks.fmt.data())) + ", " + std::to_string(le16(chunks.fmt.data() + 2)) +
                        " channels, " + std::to_string(le16(chunks.fmt.data() + 14)) + " bits a sample)" +
                        std::string(kSend));
  dec.open = true;
  ma_format format = ma_format_unknown;
  ma_uint32 channels = 0, rate = 0;
  if (ma_decoder_get_data_format(&dec.d, &format, &channels, &rate, nullptr, 0) != MA_SUCCESS)
    return sdk::invalid("input 0: the WAV file's format cannot be read" + std::string(kSend));
  if (rate != kRate)
    return sdk::invalid("input 0: the WAV file is " + std::to_string(rate) + " Hz; whisper.cpp takes 16000 Hz" +
                        std::string(kSend));
  if (format != ma_format_s16)
    return sdk::invalid("input 0: the WAV file's samples are " + std::string(ma_get_format_name(format)) +
                        ", not 16-bit PCM" + std::string(kSend));
  if (channels != 1 && channels != 2)
    return sdk::invalid("input 0: the WAV file has " + std::to_string(channels) +
                        " channels; whisper.cpp takes mono or stereo");
  // Decoded in blocks: the header's frame count is the file's word, not a size to trust.
  std::vector<int16_t> pcm;
  std::vector<int16_t> block(size_t{16384} * channels);
  for (;;) {
    ma_uint64 read = 0;
    const ma_result r = ma_decoder_read_pcm_frames(&dec.d, block.data(), 16384, &read);
    pcm.insert(pcm.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(read * channels));
    if (r != MA_SUCCESS || read < 16384) break;
  }
  const size_t frames = pcm.size() / channels;
  if (frames == 0) return sdk::invalid("input 0: the WAV file holds no samples");
  out = {};
  out.channels = channels;
  out.mono.resize(frames);
  if (channels == 1) {
    for (size_t i = 0; i < frames; ++i) out.mono[i] = static_cast<float>(pcm[i]) / 32768.0f;
  } else {
    out.left.resize(frames);
    out.right.resize(frames);
    for (size_t i = 0; i < frames; ++i) {
      out.left[i] = static_cast<float>(pcm[2 * i]) / 32768.0f;
      out.right[i] = static_cast<float>(pcm[2 * i + 1]) / 32768.0f;
      // As WasmEdge and whisper-cli mix stereo: the sum over 65536, in int arithmetic first.
      out.mono[i] = static_cast<float>(pcm[2 * i] + pcm[2 * i + 1]) / 65536.0f;
    }
  }
  return {};
}

}  // namespace wasinn::whisper
