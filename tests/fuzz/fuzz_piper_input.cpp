// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_piper_input: mutated bytes into the piper plugin's input 0 (set_input,
// as WasmEdge's Piper guests send text or, with json_input, JSON), then compute and get_output:
// the whole text -> espeak-ng -> phoneme ids -> voice -> WAV path on the tiny fixture voice,
// which speaks in milliseconds. The first input byte picks the graph: plain text or JSON input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/nn_environment.h"
#include "core/types.h"
#include "root/wired_environment.h"

using namespace wasinn;

namespace {

std::shared_ptr<ExecutionContext> make_context(bool json_input) {
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_BACKEND_DIR};
  options.backend_configs["piper"] = R"({"allow-host-paths": true})";
  static auto env = wire_environment(std::move(options)).env;
  const char* fixtures = std::getenv("WASINN_FIXTURES");
  const std::string voice = std::string(fixtures ? fixtures : WASINN_FIXTURES_DEFAULT) + "/piper/tiny.onnx";
  const std::string config =
      std::string(R"({"model": ")") + voice + "\"" + (json_input ? R"(, "json_input": true})" : "}");
  const std::span<const uint8_t> builder(reinterpret_cast<const uint8_t*>(config.data()), config.size());
  auto graph = env->load_graph(Encoding::piper, Target::cpu, std::span(&builder, 1), {}, {});
  if (!graph) {
    std::fprintf(stderr, "fuzz_piper_input: cannot load %s: %s\n", voice.c_str(), graph.error().detail.c_str());
    std::abort();
  }
  auto ctx = (*graph)->create_context();
  if (!ctx) std::abort();
  return *ctx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<ExecutionContext> text_ctx = make_context(false), json_ctx = make_context(true);
  if (size == 0) return 0;
  const auto& ctx = data[0] & 1 ? json_ctx : text_ctx;
  const std::span<const uint8_t> text(data + 1, size - 1);
  const uint32_t dims[1] = {static_cast<uint32_t>(text.size())};
  // libFuzzer passes a heap copy of exactly `size` bytes: ASan sees any read past the end.
  if (ctx->set_input(TensorId{0, std::nullopt}, TensorView{TensorType::u8, dims, text}, uint64_t{1} << 30).ok())
    (void)ctx->compute();
  return 0;
}
