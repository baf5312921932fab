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
#include "core/nn_environment.h"
#include "core/types.h"
#include "root/wired_environment.h"

using namespace wasinn;

namespace {

constexpr int kCodes = 4;

std::string fixtures() {
  const char* env = std::getenv("WASINN_FIXTURES");
  return env && *env ? env : WASINN_FIXTURES_DEFAULT;
}

std::shared_ptr<ExecutionContext> make_context() {
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_BACKEND_DIR};
  options.backend_configs["llamacpp"] = R"({"allow-preload-paths": true})";  // the vocoder's and speaker's paths
  // Never destroyed, nor the context below: freeing them at exit only tests the order of exit.
  static auto* env = new std::shared_ptr<NnEnvironment>(wire_environment(std::move(options)).env);
  const std::filesystem::path model = fixtures() + "/outetts/tiny.gguf";
  const nlohmann::json config = {{"tts", true},
                                 {"model-vocoder", fixtures() + "/outetts/wavtokenizer.gguf"},
                                 {"tts-speaker-file", fixtures() + "/outetts/speaker.json"},
                                 {"temp", 0},
                                 {"n-predict", kCodes},
                                 {"ctx-size", 1024},
                                 {"threads", 1}};
  const std::vector<uint8_t> none;
  const std::span<const uint8_t> builder(none);
  auto graph =
      (*env)->load_graph(Encoding::ggml, Target::cpu, std::span(&builder, 1), std::span(&model, 1), config.dump());
  if (!graph) {
    std::fprintf(stderr, "fuzz_llama_tts: cannot load %s: %s\n", model.c_str(), graph.error().detail.c_str());
    std::abort();
  }
  auto ctx = (*graph)->create_context();
  if (!ctx) std::abort();
  return *ctx;
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
  const auto wav = ctx->get_output(TensorId{0, std::nullopt});
  if (!wav.ok() || wav->data.size() != 44 + 2 * 320 * kCodes) std::abort();
  return 0;
}
