// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_llama_image: a guest's media into the llama.cpp plugin (vision.cpp,
// audio_input.cpp), on the tiny llama loaded once with the tiny LLaVA projector
// (scripts/fixtures/export_llava.py) and once with the tiny Ultravox audio projector
// (export_audio_projector.py). The first byte picks the path the rest takes: input 3's image
// bytes, a prompt (markers and WasmEdge's <img src="data:image/...;base64,..."> tags), the
// "image" key's file path in metadata, or input 3's bytes as an audio clip (WAV, MP3, FLAC:
// check_audio, then libmtmd's miniaudio decoder and the audio encoder). After a prompt is set,
// one token is generated, so libmtmd's preprocessing, encoder and decode see every clip and
// image that decodes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/types.h"
#include "fuzz_fixtures.h"
#include "plugin_context.h"

using namespace wasinn;

namespace {

std::shared_ptr<ExecutionContext> make_context(const char* projector) {
  const nlohmann::json config = {
      {"mmproj", fuzz::fixture_path(projector)}, {"temp", 0}, {"n-predict", 1}, {"ctx-size", 256}, {"threads", 1}};
  // allow-preload-paths: "mmproj" and "image" paths.
  return fuzz::path_context("fuzz_llama_image", Encoding::ggml, fuzz::fixture_path("llama/tiny.gguf"), config.dump(),
                            {{"llamacpp", R"({"allow-preload-paths": true})"}});
}

bool set(ExecutionContext& ctx, uint32_t index, std::span<const uint8_t> bytes) {
  const uint32_t dims[1] = {static_cast<uint32_t>(bytes.size())};
  return ctx.set_input(TensorId{index, std::nullopt}, TensorView{TensorType::u8, dims, bytes}, uint64_t{1} << 30).ok();
}
bool set(ExecutionContext& ctx, uint32_t index, const std::string& text) {
  return set(ctx, index, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<ExecutionContext>& vision =
      *new std::shared_ptr<ExecutionContext>(make_context("llava/mmproj-tiny.gguf"));
  static const std::shared_ptr<ExecutionContext>& audio =
      *new std::shared_ptr<ExecutionContext>(make_context("audio/mmproj-ultravox.gguf"));
  if (size == 0) return 0;
  ExecutionContext* ctx = data[0] % 4 == 3 ? audio.get() : vision.get();
  const std::span<const uint8_t> rest(data + 1, size - 1);
  const std::string prompt = "USER: <image>what is it?\nASSISTANT:";
  bool prompt_set = false;
  switch (data[0] % 4) {
    case 0:  // the bytes of an image file, as input 3
    case 3:  // the bytes of an audio clip, as input 3 (the audio projector's context)
      if (set(*ctx, 3, rest)) prompt_set = set(*ctx, 0, prompt);
      (void)set(*ctx, 3, std::span<const uint8_t>());  // cleared for the next input
      break;
    case 1:  // a prompt: markers and inline base64 images
      prompt_set = set(*ctx, 0, rest);
      break;
    case 2:  // the "image" key's path, then a prompt that uses it
      if (set(*ctx, 1,
              nlohmann::json{{"image", std::string(rest.begin(), rest.end())}}.dump(
                  -1, ' ', false, nlohmann::json::error_handler_t::replace)))
        prompt_set = set(*ctx, 0, prompt);
      (void)set(*ctx, 1, std::string(R"({"image": ""})"));
      break;
  }
  if (prompt_set) (void)ctx->compute();
  return 0;
}
