// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Images and audio into text models: a graph's multimodal projector (llama.cpp's libmtmd, loaded
// from the load config's "mmproj" path with the model) and the media of a prompt, taken as
// WasmEdge's GGML plugin takes images: the prompt marks where each goes with "<image>", and the
// image is inline in the prompt (<img src="data:image/...;base64,...">), a file named by the
// "image" key, or (wasinn's) the bytes of input 3 "image". Audio (WAV, MP3, FLAC; for a projector
// with an audio encoder) comes the same ways, inline as <audio src="data:audio/...;base64,...">
// (wasinn's, for OpenAI's input_audio parts); libmtmd tells audio from an image by its bytes.
#pragma once

#include <llama.h>
#include <mtmd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "plugin_common/c_handles.hpp"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::ggml_common {
class LogScope;
}  // namespace wasinn::ggml_common
namespace wasinn::llamacpp {

using sdk::Error;

using BitmapPtr = plugin_common::FunctionHandle<mtmd_bitmap, mtmd_bitmap_free>;
using ChunksPtr = plugin_common::FunctionHandle<mtmd_input_chunks, mtmd_input_chunks_free>;

// WasmEdge's marker of where an image goes in a prompt (its media_marker for libmtmd).
inline constexpr std::string_view kImageMarker = "<image>";

// The marker libmtmd splits a prompt at: this process's own (random, as llama-server's), so that
// a chat's text that reads "<image>" can stay text. Inline images become it; mark_images turns
// WasmEdge's markers into it.
const std::string& media_marker();
void mark_images(std::string& prompt);

// The text chunks' tokens of a tokenized prompt, in order (its media left out).
std::vector<llama_token> text_tokens(const mtmd_input_chunks* chunks);

class Projector {
 public:
  // Loads the projector at `path` for `model`. A missing file is NOT_FOUND; a file libmtmd cannot
  // load, or one whose output size is not the model's n_embd, INVALID_ARGUMENT with its reason; one
  // with neither a vision nor an audio encoder, UNSUPPORTED.
  // Every call takes the plugin call's log scope, whose error lines (libmtmd's) end the detail.
  // `device`: a GPU to encode on, or null for the CPU.
  static Error load(const std::string& path, const llama_model* model, uint32_t threads, ggml_backend_dev_t device,
                    const ggml_common::LogScope& scope, std::unique_ptr<Projector>& out);

  // An image file's bytes (PNG, JPEG, BMP, GIF, ...: what stb_image reads) or an audio file's (WAV,
  // MP3, FLAC: checked by audio_input.h first) as a bitmap. `what` names them in the detail (an
  // "image" in it reads "audio" for audio). INVALID_ARGUMENT for bytes that are neither, for audio
  // audio_input.h refuses or libmtmd cannot decode, and for media the projector has no encoder for.
  Error decode(std::string_view bytes, std::string_view what, const ggml_common::LogScope& scope, BitmapPtr& out) const;
  // The file at `path`; NOT_FOUND when there is none.
  Error decode_file(const std::string& path, const ggml_common::LogScope& scope, BitmapPtr& out) const;

  // The prompt (BOS and special tokens as for text) with each media_marker() replaced by the next
  // image. One image per marker, or INVALID_ARGUMENT saying how many of each there are.
  Error tokenize(const std::string& prompt, const std::vector<const mtmd_bitmap*>& images,
                 const ggml_common::LogScope& scope, ChunksPtr& out) const;

  // Encodes the images and decodes every chunk into `ctx` from position 0, with logits for the
  // last token; n_pos is then the next free position. libmtmd's encoder is not thread-safe, so
  // contexts of one graph take turns here. A cancelled decode is TIMEOUT.
  Error eval(llama_context* ctx, const mtmd_input_chunks* chunks, const std::atomic<bool>& cancel,
             const ggml_common::LogScope& scope, uint32_t& n_pos);

  const std::string& path() const { return path_; }

 private:
  // decode's audio: checked (audio_input.h), then libmtmd's decoder on the checked file.
  Error decode_audio(std::string_view bytes, std::string_view what, const ggml_common::LogScope& scope,
                     BitmapPtr& out) const;
  // INVALID_ARGUMENT when an image must be decoded in one micro-batch larger than ctx's.
  Error check_micro_batch(llama_context* ctx, const mtmd_input_chunks* chunks) const;

  plugin_common::FunctionHandle<mtmd_context, mtmd_free> ctx_;
  std::mutex encoder_;
  std::string path_;
};

// Takes WasmEdge's inline images, <img src="data:image/<type>;base64,<payload>">, and wasinn's
// inline audio, <audio src="data:audio/<type>;base64,<payload>">, out of the prompt in order: each
// tag becomes media_marker() and its decoded bytes are appended to `images`. A tag that is not
// closed, or has no ";base64,", stays text (as in WasmEdge); a payload that is not base64 is
// INVALID_ARGUMENT.
Error take_inline_images(std::string& prompt, std::vector<std::string>& images);

}  // namespace wasinn::llamacpp
