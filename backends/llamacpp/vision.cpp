// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "vision.h"

#include <mtmd-helper.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <random>

#include "audio_input.h"
#include "ggml_common/log_router.h"
#include "host_file.h"

// stb_image's header reader, which libmtmd compiles in and exports (with the stbi_load it decodes
// images with): an image's size without decoding it.
extern "C" int stbi_info_from_memory(const unsigned char* buffer, int len, int* x, int* y, int* comp);
extern "C" const char* stbi_failure_reason(void);

namespace wasinn::llamacpp {
namespace {

// A decoded image is 3 bytes a pixel, then copies in preprocessing: a few bytes of PNG could
// otherwise inflate to gigabytes. 8192 x 8192 is above any projector's own input size.
constexpr int64_t kMaxImagePixels = int64_t{8192} * 8192;
constexpr int kMaxImageSide = 16384;

using ggml_common::LogScope;

constexpr std::string_view kTagPrefixes[] = {"<img src=\"data:image/", "<audio src=\"data:audio/"};
constexpr std::string_view kPayloadPrefix = ";base64,";
constexpr std::string_view kTagSuffix = "\">";

// libmtmd's error lines of this call, for the detail.
std::string why(const LogScope& scope) { return scope.errors().empty() ? "" : ": " + scope.errors(); }

// Standard base64 (RFC 4648 section 4), padding optional; nullopt-like false on any other byte.
bool decode_base64(std::string_view text, std::string& out) {
  static const std::array<int8_t, 256> value = [] {
    std::array<int8_t, 256> v{};
    v.fill(-1);
    const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < alphabet.size(); ++i) v[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
    return v;
  }();
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return false;
  out.clear();
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t bits = 0;
  int n_bits = 0;
  for (char c : text) {
    const int8_t v = value[static_cast<unsigned char>(c)];
    if (v < 0) return false;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    n_bits += 6;
    if (n_bits >= 8) {
      n_bits -= 8;
      out.push_back(static_cast<char>((bits >> n_bits) & 0xFF));
    }
  }
  return true;
}

// A PNG's width and height from its IHDR chunk (big-endian, bytes 16-23), however large they say.
bool png_declared(std::string_view b, int& width, int& height) {
  if (b.size() < 24 || b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || b.compare(12, 4, "IHDR") != 0) return false;
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(b[at + i]);
    return v;
  };
  const uint32_t w = be32(16), h = be32(20);
  if (w > INT32_MAX || h > INT32_MAX) return false;
  width = static_cast<int>(w);
  height = static_cast<int>(h);
  return true;
}

}  // namespace

const std::string& media_marker() {
  static const std::string marker = [] {
    std::random_device random;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%08x%08x", random(), random());
    return "<__wasinn_media_" + std::string(hex) + "__>";
  }();
  return marker;
}

void mark_images(std::string& prompt) {
  for (size_t at = prompt.find(kImageMarker); at != std::string::npos; at = prompt.find(kImageMarker, at)) {
    prompt.replace(at, kImageMarker.size(), media_marker());
    at += media_marker().size();
  }
}

std::vector<llama_token> text_tokens(const mtmd_input_chunks* chunks) {
  std::vector<llama_token> out;
  for (size_t i = 0; i < mtmd_input_chunks_size(chunks); ++i) {
    const mtmd_input_chunk* chunk = mtmd_input_chunks_get(chunks, i);
    if (mtmd_input_chunk_get_type(chunk) != MTMD_INPUT_CHUNK_TYPE_TEXT) continue;
    size_t n = 0;
    const llama_token* tokens = mtmd_input_chunk_get_tokens_text(chunk, &n);
    out.insert(out.end(), tokens, tokens + n);
  }
  return out;
}

Error Projector::load(const std::string& path, const llama_model* model, uint32_t threads, ggml_backend_dev_t device,
                      const LogScope& scope, std::unique_ptr<Projector>& out) {
  if (Error e = check_host_file(path, "load config: \"mmproj\": projector file " + path)) return e;
  mtmd_context_params params = mtmd_context_params_default();
  params.media_marker = media_marker().c_str();  // copied by libmtmd
  params.use_gpu = device != nullptr;
  params.device = device;
  params.n_threads = static_cast<int>(threads);
  params.print_timings = false;
  auto projector = std::make_unique<Projector>();
  projector->ctx_.reset(mtmd_init_from_file(path.c_str(), model, params));
  if (!projector->ctx_) return sdk::invalid("load config: \"mmproj\": libmtmd could not load " + path + why(scope));
  if (!mtmd_support_vision(projector->ctx_.get()) && !mtmd_support_audio(projector->ctx_.get())) {
    return sdk::unsupported("load config: \"mmproj\": " + path + " has neither a vision nor an audio encoder");
  }
  projector->path_ = path;
  out = std::move(projector);
  return {};
}

Error Projector::decode_audio(std::string_view bytes, std::string_view what, const LogScope& scope,
                              BitmapPtr& out) const {
  const char* container = container_name(sniff_audio(bytes));
  if (!mtmd_support_audio(ctx_.get())) {
    return sdk::invalid(std::string(what) + " is " + container + " audio, and this model's projector (" + path_ +
                        ") has no audio encoder: it takes images only");
  }
  std::string file;
  if (Error e = check_audio(bytes, what, file)) return e;
  const mtmd_helper_bitmap_wrapper made =
      mtmd_helper_bitmap_init_from_buf(ctx_.get(), reinterpret_cast<const unsigned char*>(file.data()), file.size(),
                                       /*placeholder=*/false, mtmd_helper_init_opt_default());
  BitmapPtr bitmap(made.bitmap);
  if (!bitmap || !mtmd_bitmap_is_audio(bitmap.get())) {
    return sdk::invalid(std::string(what) + " (" + std::to_string(bytes.size()) + " bytes) is " + container +
                        " audio libmtmd could not decode" + why(scope));
  }
  out = std::move(bitmap);
  return {};
}

Error Projector::decode(std::string_view bytes, std::string_view what, const LogScope& scope, BitmapPtr& out) const {
  if (bytes.empty()) return sdk::invalid(std::string(what) + " is empty, not an image");
  // libmtmd's own order: what reads as audio is audio, whatever the rest.
  if (sniff_audio(bytes) != AudioContainer::none) {
    std::string named(what);
    const size_t image = named.find("inline image");
    if (image != std::string::npos) named.replace(image, 12, "inline audio");
    return decode_audio(bytes, named, scope, out);
  }
  if (!mtmd_support_vision(ctx_.get())) {
    return sdk::invalid(std::string(what) + ": this model's projector (" + path_ +
                        ") has no vision encoder: it takes audio only (WAV, MP3, FLAC), no images");
  }
  int width = 0, height = 0, channels = 0;
  auto over_bound = [&] {
    return width > kMaxImageSide || height > kMaxImageSide || int64_t{width} * height > kMaxImagePixels;
  };
  auto too_large = [&]() -> Error {
    return {WASINN_TOO_LARGE, std::string(what) + " is " + std::to_string(width) + "x" + std::to_string(height) +
                                  " pixels: more than this backend decodes (8192x8192 pixels, 16384 a side)"};
  };
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !stbi_info_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()),
                             &width, &height, &channels)) {
    // stb_image refuses a header past its own bound as no image at all: a PNG's says its size.
    if (png_declared(bytes, width, height) && over_bound()) return too_large();
    const char* reason = stbi_failure_reason();
    return sdk::invalid(std::string(what) + " (" + std::to_string(bytes.size()) +
                        " bytes) is not an image libmtmd can read (PNG, JPEG, BMP, GIF, ...)" +
                        (reason ? std::string(": stb_image: ") + reason : std::string()));
  }
  if (over_bound()) return too_large();
  const mtmd_helper_bitmap_wrapper made =
      mtmd_helper_bitmap_init_from_buf(ctx_.get(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                                       /*placeholder=*/false, mtmd_helper_init_opt_default());
  BitmapPtr bitmap(made.bitmap);
  if (!bitmap) {
    return sdk::invalid(std::string(what) + " (" + std::to_string(bytes.size()) +
                        " bytes) is not an image libmtmd can read (PNG, JPEG, BMP, GIF, ...)" + why(scope));
  }
  out = std::move(bitmap);
  return {};
}

Error Projector::decode_file(const std::string& path, const LogScope& scope, BitmapPtr& out) const {
  const std::string what = "image file " + path;
  if (Error e = check_host_file(path, "\"image\": " + what)) return e;
  std::string bytes;
  if (!read_host_file(path, bytes)) return {WASINN_NOT_FOUND, "\"image\": " + what + " could not be read"};
  return decode(bytes, "\"image\": " + what, scope, out);
}

Error Projector::tokenize(const std::string& prompt, const std::vector<const mtmd_bitmap*>& images,
                          const LogScope& scope, ChunksPtr& out) const {
  size_t markers = 0;
  for (size_t at = prompt.find(media_marker()); at != std::string::npos; at = prompt.find(media_marker(), at + 1))
    ++markers;
  if (markers != images.size()) {
    return sdk::invalid("the prompt has " + std::to_string(markers) + " image marker(s) \"" +
                        std::string(kImageMarker) + "\" for " + std::to_string(images.size()) +
                        " image(s): put one where each image goes");
  }
  mtmd_input_text text{prompt.data(), prompt.size(), /*add_special=*/true, /*parse_special=*/true};
  ChunksPtr chunks(mtmd_input_chunks_init());
  const int32_t rc = mtmd_tokenize(ctx_.get(), chunks.get(), &text, images.data(), images.size());
  if (rc != 0) {
    return sdk::invalid("libmtmd could not tokenize the prompt with its image(s) (code " + std::to_string(rc) + ")" +
                        why(scope));
  }
  // The next token is sampled from the last text token's logits: an image's embeddings give none.
  const size_t n_chunks = mtmd_input_chunks_size(chunks.get());
  const mtmd_input_chunk* last = n_chunks ? mtmd_input_chunks_get(chunks.get(), n_chunks - 1) : nullptr;
  if (!last || mtmd_input_chunk_get_type(last) != MTMD_INPUT_CHUNK_TYPE_TEXT ||
      mtmd_input_chunk_get_n_tokens(last) == 0) {
    return sdk::invalid(
        "the prompt ends with an image: the model answers after text, so put some (such as "
        "\"ASSISTANT:\") after the last image");
  }
  out = std::move(chunks);
  return {};
}

Error Projector::eval(llama_context* ctx, const mtmd_input_chunks* chunks, const std::atomic<bool>& cancel,
                      const LogScope& scope, uint32_t& n_pos) {
  if (Error e = check_micro_batch(ctx, chunks)) return e;
  llama_pos next = 0;
  int32_t rc = 0;
  {
    const std::lock_guard<std::mutex> lock(encoder_);
    rc = mtmd_helper_eval_chunks(ctx_.get(), ctx, chunks, /*n_past=*/0, /*seq_id=*/0,
                                 static_cast<int32_t>(llama_n_batch(ctx)), /*logits_last=*/true, &next);
  }
  if (rc != 0) {
    if (cancel.load()) return {WASINN_TIMEOUT, "generation was cancelled"};
    return sdk::runtime_error("libmtmd could not evaluate the prompt with its image(s) (code " + std::to_string(rc) +
                              ")" + why(scope));
  }
  n_pos = static_cast<uint32_t>(next);
  return {};
}

// Gemma 3's images attend both ways, so llama.cpp must decode each batch of an image's embeddings
// in one micro-batch; it aborts the process when ubatch-size is smaller.
Error Projector::check_micro_batch(llama_context* ctx, const mtmd_input_chunks* chunks) const {
  const size_t n_batch = llama_n_batch(ctx), n_ubatch = llama_n_ubatch(ctx);
  for (size_t i = 0; i < mtmd_input_chunks_size(chunks); ++i) {
    const mtmd_input_chunk* chunk = mtmd_input_chunks_get(chunks, i);
    if (mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_TEXT) continue;
    if (!mtmd_decode_use_non_causal(ctx_.get(), chunk)) continue;
    const size_t n_tokens = mtmd_input_chunk_get_n_tokens(chunk);
    const size_t needed = std::min(n_tokens, n_batch);
    if (needed > n_ubatch) {
      return sdk::invalid("this projector's image of " + std::to_string(n_tokens) + " tokens must be decoded " +
                          std::to_string(needed) + " tokens at a time, more than \"ubatch-size\" " +
                          std::to_string(n_ubatch) + " allows: raise \"ubatch-size\" to at least " +
                          std::to_string(needed));
    }
  }
  return {};
}

Error take_inline_images(std::string& prompt, std::vector<std::string>& images) {
  size_t from = 0;
  while (true) {
    size_t begin = std::string::npos;  // the first tag of either kind
    for (std::string_view prefix : kTagPrefixes) begin = std::min(begin, prompt.find(prefix, from));
    if (begin == std::string::npos) return {};
    const size_t payload = prompt.find(kPayloadPrefix, begin);
    if (payload == std::string::npos) return {};
    const size_t end = prompt.find(kTagSuffix, payload);
    if (end == std::string::npos) return {};
    const size_t data = payload + kPayloadPrefix.size();
    std::string bytes;
    if (!decode_base64(std::string_view(prompt).substr(data, end - data), bytes)) {
      return sdk::invalid("the prompt's inline image " + std::to_string(images.size() + 1) +
                          " (<img src=\"data:image/...;base64,...\">, or <audio ...>) is not valid base64");
    }
    images.push_back(std::move(bytes));
    prompt.replace(begin, end + kTagSuffix.size() - begin, media_marker());
    from = begin + media_marker().size();
  }
}

}  // namespace wasinn::llamacpp
