// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "model_checks.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace wasinn::whisper {
namespace {

constexpr uint32_t kGgmlMagic = 0x67676d6c;  // whisper.cpp's legacy ggml file ("lmgg" as bytes)
constexpr int32_t kFftBins = 201;            // WHISPER_N_FFT / 2 + 1: every whisper's mel filters
constexpr int32_t kMaxTokenBytes = 1024;     // gpt2/multilingual tokens are under 100 bytes
constexpr size_t kMaxHead = 8u << 20;        // header + mel filters + vocabulary: under 1 MiB in every whisper

// Reads int32s off the front of the bytes; false once past the end.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> b) : b_(b) {}
  bool i32(int32_t& v) {
    if (b_.size() - pos_ < 4) return false;
    std::memcpy(&v, b_.data() + pos_, 4);
    pos_ += 4;
    return true;
  }
  bool skip(uint64_t n) {
    if (b_.size() - pos_ < n) return false;
    pos_ += static_cast<size_t>(n);
    return true;
  }
  size_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

// A lower bound of the weights' count from the dimensions: embeddings, convolutions, and per
// layer 12 state^2 (encoder: attention 4, MLP 8) or 16 (decoder: self and cross attention, MLP).
uint64_t least_weights(const int32_t hp[11]) {
  const uint64_t vocab = hp[0], a_ctx = hp[1], a = hp[2], a_layers = hp[4], t_ctx = hp[5], t = hp[6], t_layers = hp[8],
                 mels = hp[9];
  return vocab * t + t_ctx * t + a_ctx * a + 3 * mels * a + 3 * a * a + a_layers * 12 * a * a + t_layers * 16 * t * t;
}

}  // namespace

sdk::Error check_model_bytes(std::span<const uint8_t> head, uint64_t total_size, const std::string& what) {
  Reader r(head);
  int32_t magic = 0;
  if (!r.i32(magic) || static_cast<uint32_t>(magic) != kGgmlMagic) {
    const bool gguf = head.size() >= 4 && std::memcmp(head.data(), "GGUF", 4) == 0;
    return {WASINN_INVALID_ENCODING, "load: " + what + " is not a whisper.cpp ggml model (no 'ggml' magic)" +
                                         (gguf ? "; it is a GGUF model: load it with encoding ggml" : "")};
  }
  const auto truncated = [&](const char* where) {
    return sdk::invalid("load: " + what + " is truncated: it ends inside its " + where);
  };
  const auto corrupt = [&](const std::string& why) { return sdk::invalid("load: " + what + " is corrupt: " + why); };
  int32_t hp[11];
  for (int32_t& v : hp)
    if (!r.i32(v)) return truncated("header");
  const auto in = [](int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; };
  if (!(in(hp[0], 51864, 52000) && in(hp[1], 1, 1500) && in(hp[2], 1, 8192) && in(hp[3], 1, 128) && in(hp[4], 1, 128) &&
        in(hp[5], 1, 448) && in(hp[6], 1, 8192) && in(hp[7], 1, 128) && in(hp[8], 1, 128) &&
        (hp[9] == 80 || hp[9] == 128) && in(hp[10] % 1000, 0, 40)))
    return sdk::invalid("load: " + what + " has implausible hyper-parameters for a whisper model");
  int32_t n_mel = 0, n_fft = 0;
  if (!r.i32(n_mel) || !r.i32(n_fft)) return truncated("mel filters");
  if (n_mel != hp[9] || n_fft != kFftBins)
    return corrupt("its mel filters are " + std::to_string(n_mel) + " x " + std::to_string(n_fft) + ", not " +
                   std::to_string(hp[9]) + " x " + std::to_string(kFftBins));
  if (!r.skip(uint64_t(n_mel) * n_fft * 4)) return truncated("mel filters");
  int32_t n_tokens = 0;
  if (!r.i32(n_tokens)) return truncated("vocabulary");
  if (!in(n_tokens, 0, hp[0])) return corrupt("its vocabulary claims " + std::to_string(n_tokens) + " tokens");
  for (int32_t i = 0; i < n_tokens; ++i) {
    int32_t len = 0;
    if (!r.i32(len)) return truncated("vocabulary");
    if (!in(len, 0, kMaxTokenBytes))
      return corrupt("token " + std::to_string(i) + " claims " + std::to_string(len) + " bytes");
    if (!r.skip(static_cast<uint64_t>(len))) return truncated("vocabulary");
  }
  // More than 2 bits a weight in any type whisper.cpp reads: a file this short would load as an
  // empty model, or make whisper.cpp allocate for weights that are not there.
  const uint64_t least = least_weights(hp) / 4;
  if (total_size < r.pos() + least)
    return sdk::invalid("load: " + what + " is truncated: " + std::to_string(total_size) +
                        " bytes, where a whisper model of these dimensions takes more than " +
                        std::to_string(r.pos() + least));
  return {};
}

sdk::Error check_model_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!in || ec) return {WASINN_MODEL_NOT_FOUND, "load: model file " + path + " cannot be opened"};
  std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(size, kMaxHead)));
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return check_model_bytes(head, size, what);
}

}  // namespace wasinn::whisper
