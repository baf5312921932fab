// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whisper backend (WasmEdge's encoding 9): models that are not whisper.cpp models, hostile
// headers, WAV files that are not 16 kHz 16-bit PCM or are cut short, and options a config or
// input 1 gets wrong. Each is an errno with a detail, never a crash, and the named tiny model
// keeps serving.
#include <cstring>
#include <string>
#include <vector>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr auto kWhisper = Backend::whisper;
const std::string kName = HostUnderTest::kTinyWhisper;

Status load_bytes(CaseRun& r, const Bytes& model) {
  const uint32_t out = r.guest.out_u32();
  const Status st = nn::load(r.call(), r.builders({model}), 1, witx_encoding(kWhisper), 0, out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

// The first 16 KiB of the tiny model (the fake guest's memory is 64 KiB) with one int32 of its
// header (after the magic, index 0 = n_vocab) replaced: the header check refuses it first.
Bytes with_hparam(CaseRun& r, size_t index, int32_t value) {
  const Bytes& model = r.host.fixture("whisper/tiny-en.bin");
  Bytes b(model.begin(), model.begin() + 16384);
  std::memcpy(b.data() + 4 + 4 * index, &value, 4);
  return b;
}

// load_by_name_with_config of the tiny model; `out` receives the graph handle's address.
Status load_config(CaseRun& r, const std::string& config, uint32_t* graph_out = nullptr) {
  const uint32_t out = r.guest.out_u32();
  if (graph_out) *graph_out = out;
  const Status st = nn::load_by_name_with_config(r.call(), r.guest.put(kName), static_cast<uint32_t>(kName.size()),
                                                 r.guest.put(config), static_cast<uint32_t>(config.size()), out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

// A context of the named tiny model, then set_input(index) of `data` as a [d0, bytes] tensor.
Status input(CaseRun& r, uint32_t index, const Bytes& data, uint32_t d0 = 1) {
  uint32_t g = 0;
  EXPECT_TRUE(load_config(r, R"({"threads": 1})", &g).ok()) << "setup: load " << kName;
  const uint32_t c = r.guest.out_u32();
  EXPECT_TRUE(r.tracked_context(nn::init_execution_context(r.call(), r.guest.u32_at(g), c), c).ok());
  const uint32_t tensor =
      r.guest.tensor({d0, static_cast<uint32_t>(data.size())}, 1, data);  // f32, as WasmEdge's guests say
  return nn::set_input(r.call(), r.guest.u32_at(c), index, tensor);
}

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

// A WAV fixture (sox writes the 44-byte canonical header) cut to its first `data_bytes` of
// samples, with its RIFF and data sizes made to match: a whole, valid file that fits the fake
// guest's 64 KiB memory.
Bytes cut_wav(const Bytes& wav, uint32_t data_bytes) {
  Bytes b(wav.begin(), wav.begin() + 44 + data_bytes);
  const uint32_t riff = 36 + data_bytes;
  std::memcpy(b.data() + 4, &riff, 4);
  std::memcpy(b.data() + 40, &data_bytes, 4);
  return b;
}

Bytes speech(CaseRun& r) { return cut_wav(r.host.fixture("whisper/speech.wav"), 16000); }

// speech.wav with the 16-bit field at `offset` of its (44-byte, sox-written) header replaced.
Bytes speech_with_u16(CaseRun& r, size_t offset, uint16_t value) {
  Bytes b = speech(r);
  std::memcpy(b.data() + offset, &value, 2);
  return b;
}

const CaseList whisper_cases{
    // Models
    {"model_whisper", "gguf_as_whisper", E, kWhisper, kInvalidEncoding, "llama/truncated.gguf loaded with encoding 9",
     [](CaseRun& r) { return load_bytes(r, r.host.fixture("llama/truncated.gguf")); }},
    {"model_whisper", "text", E, kWhisper, kInvalidEncoding, "14 bytes of text",
     [](CaseRun& r) { return load_bytes(r, text("hello, whisper")); }},
    {"model_whisper", "empty", E, kWhisper, kInvalidEncoding, "a 0-byte builder",
     [](CaseRun& r) { return load_bytes(r, {}); }},
    {"model_whisper", "magic_only", E, kWhisper, kInvalidArgument, "the 4-byte magic alone",
     [](CaseRun& r) {
       return load_bytes(r, {0x6c, 0x6d, 0x67, 0x67});
     }},
    {"model_whisper", "truncated_fixture", E, kWhisper, kInvalidArgument,
     "whisper/truncated.bin: the first 4 KiB of tiny-en.bin (whisper.cpp would load it as an empty model)",
     [](CaseRun& r) { return load_bytes(r, r.host.fixture("whisper/truncated.bin")); }},
    {"model_whisper", "n_vocab_2_pow_30", E, kWhisper, kInvalidArgument, "tiny-en.bin declaring 2^30 tokens",
     [](CaseRun& r) { return load_bytes(r, with_hparam(r, 0, 1 << 30)); }},
    {"model_whisper", "audio_layers_negative", E, kWhisper, kInvalidArgument, "tiny-en.bin declaring -1 audio layers",
     [](CaseRun& r) { return load_bytes(r, with_hparam(r, 4, -1)); }},
    {"model_whisper", "state_huge", E, kWhisper, kInvalidArgument, "tiny-en.bin declaring a text state of 2^24",
     [](CaseRun& r) { return load_bytes(r, with_hparam(r, 6, 1 << 24)); }},
    {"model_whisper", "mels_7", E, kWhisper, kInvalidArgument, "tiny-en.bin declaring 7 mel bins",
     [](CaseRun& r) { return load_bytes(r, with_hparam(r, 9, 7)); }},
    {"model_whisper", "guest_names_host_file", E, kWhisper, kUnsupportedOperation,
     "preload:/etc/passwd from a guest (security, which witx numbers 6)",
     [](CaseRun& r) { return load_bytes(r, text("preload:/etc/passwd")); }},

    // Options
    {"config_whisper", "unknown_key", E, kWhisper, kInvalidArgument, "load config {\"no-such-option\": 1}",
     [](CaseRun& r) { return load_config(r, R"({"no-such-option": 1})"); }},
    {"config_whisper", "threads_a_string", E, kWhisper, kInvalidArgument, "load config {\"threads\": \"two\"}",
     [](CaseRun& r) { return load_config(r, R"({"threads": "two"})"); }},
    {"config_whisper", "beam_size_1000", E, kWhisper, kInvalidArgument, "load config {\"beam-size\": 1000}",
     [](CaseRun& r) { return load_config(r, R"({"beam-size": 1000})"); }},
    {"config_whisper", "unknown_language", E, kWhisper, kInvalidArgument, "load config {\"language\": \"xx\"}",
     [](CaseRun& r) { return load_config(r, R"({"language": "xx"})"); }},
    {"config_whisper", "processors_2", E, kWhisper, kUnsupportedOperation, "load config {\"processors\": 2}",
     [](CaseRun& r) { return load_config(r, R"({"processors": 2})"); }},
    {"config_whisper", "output_file", E, kWhisper, kUnsupportedOperation,
     "load config {\"output-srt\": true} (WasmEdge would write a host file)",
     [](CaseRun& r) { return load_config(r, R"({"output-srt": true})"); }},
    {"config_whisper", "metadata_not_json", E, kWhisper, kInvalidArgument, "input 1: beam-size=2",
     [](CaseRun& r) { return input(r, 1, text("beam-size=2")); }},
    {"config_whisper", "metadata_wrong_type", E, kWhisper, kInvalidArgument, "input 1: {\"translate\": 1}",
     [](CaseRun& r) { return input(r, 1, text(R"({"translate": 1})")); }},

    // Audio
    {"audio_whisper", "valid_half_second", E, kWhisper, kSuccess,
     "input 0: half a second of speech.wav (valid: the control)", [](CaseRun& r) { return input(r, 0, speech(r)); }},
    {"audio_whisper", "not_riff", E, kWhisper, kInvalidArgument, "input 0: 22 bytes of text",
     [](CaseRun& r) { return input(r, 0, text("not a wave file at all")); }},
    {"audio_whisper", "empty", E, kWhisper, kInvalidArgument, "input 0: 0 bytes",
     [](CaseRun& r) { return input(r, 0, {}); }},
    {"audio_whisper", "truncated", E, kWhisper, kInvalidArgument, "input 0: half a second of speech.wav, cut to half",
     [](CaseRun& r) {
       Bytes b = speech(r);
       b.resize(b.size() / 2);
       return input(r, 0, b);
     }},
    {"audio_whisper", "riff_size_4g", E, kWhisper, kInvalidArgument, "input 0: speech.wav whose RIFF size says 4 GiB",
     [](CaseRun& r) {
       Bytes b = speech(r);
       std::memset(b.data() + 4, 0xff, 4);
       return input(r, 0, b);
     }},
    {"audio_whisper", "header_only", E, kWhisper, kInvalidArgument,
     "input 0: speech.wav's 44-byte header, sizes 36 and 0",
     [](CaseRun& r) {
       Bytes b = speech(r);
       b.resize(44);
       const uint32_t riff = 36, data = 0;
       std::memcpy(b.data() + 4, &riff, 4);
       std::memcpy(b.data() + 40, &data, 4);
       return input(r, 0, b);
     }},
    // Taken since the plugin resamples and converts as whisper-cli does (both once refused).
    {"audio_whisper", "rate_8k", E, kWhisper, kSuccess, "input 0: whisper/rate-8k.wav (its first second)",
     [](CaseRun& r) { return input(r, 0, cut_wav(r.host.fixture("whisper/rate-8k.wav"), 16000)); }},
    {"audio_whisper", "pcm_8bit", E, kWhisper, kSuccess, "input 0: whisper/pcm-8bit.wav (its first 2 seconds)",
     [](CaseRun& r) { return input(r, 0, cut_wav(r.host.fixture("whisper/pcm-8bit.wav"), 16000)); }},
    {"audio_whisper", "channels_0", E, kWhisper, kInvalidArgument, "input 0: speech.wav claiming 0 channels",
     [](CaseRun& r) { return input(r, 0, speech_with_u16(r, 22, 0)); }},
    {"audio_whisper", "channels_65535", E, kWhisper, kInvalidArgument, "input 0: speech.wav claiming 65535 channels",
     [](CaseRun& r) { return input(r, 0, speech_with_u16(r, 22, 0xffff)); }},
    {"audio_whisper", "bits_0", E, kWhisper, kInvalidArgument, "input 0: speech.wav claiming 0 bits a sample",
     [](CaseRun& r) { return input(r, 0, speech_with_u16(r, 34, 0)); }},
    {"audio_whisper", "format_tag_0x55", E, kWhisper, kInvalidArgument, "input 0: speech.wav claiming MP3 (tag 0x55)",
     [](CaseRun& r) { return input(r, 0, speech_with_u16(r, 20, 0x55)); }},
    {"audio_whisper", "two_files", E, kWhisper, kInvalidArgument, "input 0: speech.wav as dims [2, bytes]",
     [](CaseRun& r) { return input(r, 0, speech(r), 2); }},
};

}  // namespace
}  // namespace wasinn::bad_input
