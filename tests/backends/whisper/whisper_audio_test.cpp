// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whisper plugin's WAV input, driven in-process through its table: every file
// fuzz_whisper_audio once hung miniaudio on (tests/fuzz/regressions/whisper/) is refused within
// a second, malformed chunk layouts are refused naming the chunk, and the layouts real files
// have (chunks before "fmt ", odd sizes with their pad byte, WAVE_FORMAT_EXTENSIBLE) decode.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

using Bytes = std::vector<uint8_t>;

// The tiny model, one backend, graph and context for the whole binary: decoding needs no more.
wasinn_context* shared_context() {
  static TestBackend backend;
  static Graph graph = [] {
    Graph g;
    Diag d;
    EXPECT_EQ(load(backend, {read_fixture("whisper/tiny-en.bin")}, g, d, WASINN_TARGET_CPU, "", "whisper"), WASINN_OK)
        << d.detail;
    return g;
  }();
  static TestContext context(graph.ptr);
  return context.ptr;
}

struct Result {
  int status = -1;
  std::string detail;
};

// set_input(0) of `wav` as a guest sends it ([1, bytes], f32 as WasmEdge's guests say), on a
// thread of its own: a decoder that never returns fails the test after a second rather than
// holding the suite until ctest's timeout, and the process ends there (the thread cannot be
// taken back).
Result set_audio(const Bytes& wav, const std::string& what) {
  wasinn_context* ctx = shared_context();
  auto call = std::async(std::launch::async, [ctx, &wav] {
    Result r;
    Diag d;
    r.status = set_input(api(), ctx, by_index(0), WASINN_TYPE_F32, {1, static_cast<uint32_t>(wav.size())}, wav, d);
    r.detail = d.detail;
    return r;
  });
  if (call.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
    std::fprintf(stderr, "set_input of %s did not return within 1 s: the decoder hangs\n", what.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return call.get();
}

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
void put32(Bytes& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void set32(Bytes& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put16(Bytes& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}

// One chunk: id, size, body, and the pad byte an odd size takes.
Bytes chunk(const char* id, const Bytes& body) {
  Bytes out(id, id + 4);
  put32(out, static_cast<uint32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  if (body.size() & 1) out.push_back(0);
  return out;
}

// RIFF/WAVE around `chunks`, the RIFF size saying exactly their length.
Bytes riff(const std::vector<Bytes>& chunks) {
  Bytes body = {'W', 'A', 'V', 'E'};
  for (const Bytes& c : chunks) body.insert(body.end(), c.begin(), c.end());
  Bytes out = {'R', 'I', 'F', 'F'};
  put32(out, static_cast<uint32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// The body of speech.wav's chunk `id` (the fixture is 16 kHz, 16-bit mono PCM); its first
// quarter second for "data".
Bytes speech_chunk(const char* id) {
  static const Bytes wav = read_fixture("whisper/speech.wav");
  for (size_t at = 12; at + 8 <= wav.size();) {
    const uint32_t size = le32(wav.data() + at + 4);
    if (std::memcmp(wav.data() + at, id, 4) == 0) {
      const size_t take = std::strcmp(id, "data") == 0 ? std::min<size_t>(size, 8000) : size;
      return Bytes(wav.begin() + at + 8, wav.begin() + at + 8 + take);
    }
    at += 8 + size + (size & 1);
  }
  ADD_FAILURE() << "speech.wav has no '" << id << "' chunk";
  return {};
}

// speech.wav's PCM format as WAVE_FORMAT_EXTENSIBLE (40 bytes, KSDATAFORMAT_SUBTYPE_PCM), as
// ffmpeg and sox write files of more than two channels or 16 bits.
Bytes extensible_fmt() {
  Bytes fmt = speech_chunk("fmt ");
  fmt.resize(16);
  fmt[0] = 0xFE, fmt[1] = 0xFF;
  put16(fmt, 22);  // cbSize
  put16(fmt, 16);  // valid bits
  put32(fmt, 4);   // channel mask: front centre
  const uint8_t pcm_guid[16] = {1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71};
  fmt.insert(fmt.end(), pcm_guid, pcm_guid + 16);
  return fmt;
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "detail: " << (haystack)

TEST(WhisperAudio, EveryFuzzRegressionIsRefusedWithinASecond) {
  size_t seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(WASINN_WHISPER_REGRESSIONS)) {
    if (entry.path().extension() != ".fuzz_whisper_audio") continue;
    ++seeds;
    const auto start = std::chrono::steady_clock::now();
    const Result r = set_audio(read_file(entry.path()), entry.path().filename().string());
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT) << entry.path() << ": " << r.detail;
    EXPECT_FALSE(r.detail.empty()) << entry.path();
    EXPECT_LT(ms, 1000) << entry.path();
  }
  EXPECT_GE(seeds, 3u) << "the regression inputs are missing from " << WASINN_WHISPER_REGRESSIONS;
}

TEST(WhisperAudio, TheFmtChunkThatLoopedMiniaudioIsNamed) {
  // fuzz_whisper_audio's 110-byte file: a 0-byte "fmt " that miniaudio read 16 bytes of.
  const Result r =
      set_audio(read_file(std::filesystem::path(WASINN_WHISPER_REGRESSIONS) / "fmt_chunk_too_short.fuzz_whisper_audio"),
                "fmt_chunk_too_short");
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_CONTAINS(r.detail, "'fmt ' chunk is 0 bytes");
}

TEST(WhisperAudio, MalformedLayoutsNameWhatIsWrong) {
  const Bytes fmt = speech_chunk("fmt "), data = speech_chunk("data");
  struct Case {
    std::string name;
    Bytes wav;
    std::string detail;
  };
  const Bytes ext = extensible_fmt();
  Bytes past_end = riff({chunk("fmt ", fmt), chunk("data", data)});
  set32(past_end, past_end.size() - data.size() - 4, static_cast<uint32_t>(data.size() + 2));
  Bytes cut_header = riff({chunk("fmt ", fmt), chunk("data", data)});
  cut_header.insert(cut_header.end(), {'L', 'I', 'S'});                // three bytes of a header after data...
  set32(cut_header, 4, static_cast<uint32_t>(cut_header.size() - 8));  // ...inside the RIFF size
  const std::vector<Case> cases = {
      {"fmt of 14 bytes", riff({chunk("fmt ", Bytes(fmt.begin(), fmt.begin() + 14)), chunk("data", data)}),
       "'fmt ' chunk is 14 bytes"},
      {"extensible in 16 bytes", riff({chunk("fmt ", Bytes(ext.begin(), ext.begin() + 16)), chunk("data", data)}),
       "WAVE_FORMAT_EXTENSIBLE in 16 bytes"},
      {"data before fmt", riff({chunk("data", data), chunk("fmt ", fmt)}), "before any 'fmt '"},
      {"no data", riff({chunk("fmt ", fmt)}), "no 'data' chunk"},
      {"no fmt", riff({chunk("LIST", Bytes(5, 'x'))}), "no 'fmt ' chunk"},
      {"data past the end", past_end, "'data' chunk claims"},
      {"fmt claims 4 GiB", riff({Bytes{'f', 'm', 't', ' ', 0xff, 0xff, 0xff, 0xff}}), "'fmt ' chunk claims 4294967295"},
  };
  for (const Case& c : cases) {
    const Result r = set_audio(c.wav, c.name);
    EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT) << c.name << ": " << r.detail;
    EXPECT_CONTAINS(r.detail, c.detail) << c.name;
  }
  // A data chunk that ends the file with a header's worth of bytes missing is the first chunk
  // the walk needs; bytes after it are never read.
  const Result after = set_audio(cut_header, "three bytes after data");
  EXPECT_EQ(after.status, WASINN_OK) << after.detail;
}

TEST(WhisperAudio, LayoutsOfRealFilesDecode) {
  const Bytes fmt = speech_chunk("fmt "), data = speech_chunk("data");
  struct Case {
    std::string name;
    Bytes wav;
  };
  Bytes odd_data = data;
  odd_data.push_back(0);  // an odd data size: the last sample is cut, as miniaudio cuts it
  Bytes no_pad = riff({chunk("fmt ", fmt), chunk("data", odd_data)});
  no_pad.pop_back();  // the pad byte after the last chunk left out, as some writers do
  set32(no_pad, 4, static_cast<uint32_t>(no_pad.size() - 8));
  Bytes fmt18 = fmt;
  put16(fmt18, 0);  // WAVEFORMATEX with cbSize 0
  const std::vector<Case> cases = {
      {"canonical", riff({chunk("fmt ", fmt), chunk("data", data)})},
      {"chunks before and between", riff({chunk("LIST", Bytes(7, 'i')), chunk("fmt ", fmt), chunk("fact", Bytes(4, 0)),
                                          chunk("data", data), chunk("LIST", Bytes(3, 'x'))})},
      {"WAVEFORMATEX", riff({chunk("fmt ", fmt18), chunk("data", data)})},
      {"WAVE_FORMAT_EXTENSIBLE", riff({chunk("fmt ", extensible_fmt()), chunk("data", data)})},
      {"odd data, pad byte left out", no_pad},
  };
  for (const Case& c : cases) {
    const Result r = set_audio(c.wav, c.name);
    EXPECT_EQ(r.status, WASINN_OK) << c.name << ": " << r.detail;
  }
}

// Files that are not WAV, FLAC, MP3 or Ogg, or that are cut or lie, are refused saying what they are.
TEST(WhisperAudio, OtherFormatsAndCutFilesAreRefusedSayingWhat) {
  const Bytes flac = read_fixture("whisper/speech.flac"), mp3 = read_fixture("whisper/speech.mp3"),
              ogg = read_fixture("whisper/speech.ogg");
  Bytes lying_flac = flac;  // STREAMINFO's 36-bit total samples (bytes 21-25 of the file) raised
  lying_flac[21] = static_cast<uint8_t>((lying_flac[21] & 0xF0) | 0x0F);
  struct Case {
    std::string name;
    Bytes bytes;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {"empty", {}, "input 0 is empty"},
      {"garbage", Bytes(4096, 0x5A), "not a WAV, FLAC, MP3 or Ogg file"},
      {"ogg cut in half", Bytes(ogg.begin(), ogg.begin() + ogg.size() / 2), "the Ogg file is truncated"},
      {"aiff", Bytes{'F', 'O', 'R', 'M', 0, 0, 0, 4, 'A', 'I', 'F', 'F'}, "AIFF"},
      {"flac header only", Bytes(flac.begin(), flac.begin() + 42), "FLAC file"},
      {"flac cut in half", Bytes(flac.begin(), flac.begin() + flac.size() / 2), "truncated or its header lies"},
      {"flac promising hours", lying_flac, "s of audio is taken"},
      {"mp3 tag only", Bytes(mp3.begin(), mp3.begin() + std::min<size_t>(mp3.size(), 10)), "MP3"},
  };
  for (const Case& c : cases) {
    const Result r = set_audio(c.bytes, c.name);
    EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT) << c.name << ": " << r.detail;
    EXPECT_CONTAINS(r.detail, c.detail) << c.name;
  }
  for (const char* ok : {"whisper/speech.flac", "whisper/speech.mp3", "whisper/speech.ogg", "whisper/speech.opus",
                         "whisper/float-44k.wav", "whisper/rate-8k.wav"}) {
    const Result r = set_audio(read_fixture(ok), ok);
    EXPECT_EQ(r.status, WASINN_OK) << ok << ": " << r.detail;
  }
}

}  // namespace
}  // namespace wasinn_test
