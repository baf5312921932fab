// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_llama_tts: text to speak into the llama.cpp plugin's text to speech
// (tts_prompt.cpp, vocoder.cpp), on the tiny OuteTTS model and WavTokenizer decoder loaded once
// (scripts/fixtures/export_outetts.py). Each input is the text of input 0: its numbers spelled,
// the OuteTTS prompt tokenized, four codes generated and spoken to a WAV; the WAV is checked for
// its length.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int kCodes = 4;

std::shared_ptr<ExecutionContext> make_context() {
  const nlohmann::json config = {{"tts", true},
                                 {"model-vocoder", fuzz::fixture_path("outetts/wavtokenizer.gguf")},
                                 {"tts-speaker-file", fuzz::fixture_path("outetts/speaker.json")},
                                 {"temp", 0},
                                 {"n-predict", kCodes},
                                 {"ctx-size", 1024},
                                 {"threads", 1}};
  // allow-preload-paths: the vocoder's and the speaker profile's paths.
  return fuzz::path_context("fuzz_llama_tts", Encoding::ggml, fuzz::fixture_path("outetts/tiny.gguf"), config.dump(),
                            {{"llamacpp", R"({"allow-preload-paths": true})"}});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<ExecutionContext>& ctx = *new std::shared_ptr<ExecutionContext>(make_context());
  const uint32_t dims[1] = {static_cast<uint32_t>(size)};
  const std::span<const uint8_t> text(data, size);
  if (!ctx->set_input(TensorId{0, std::nullopt}, TensorView{TensorType::u8, dims, text}, uint64_t{1} << 30).ok())
    return 0;
  // A failed compute (text too long for the context) is an answer too: the fuzzer looks for crashes.
  if (!ctx->compute().ok()) return 0;
  auto wav = ctx->get_output(TensorId{0, std::nullopt});
  if (!wav.ok() || wav->data.size() != 44 + 2 * 320 * kCodes) std::abort();
  return 0;
}
