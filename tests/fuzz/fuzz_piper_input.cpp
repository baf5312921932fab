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
#include "core/types.h"
#include "fuzz_fixtures.h"
#include "plugin_context.h"

using namespace wasinn;

namespace {

std::shared_ptr<ExecutionContext> make_context(bool json_input) {
  const std::string config = std::string(R"({"model": ")") + fuzz::fixture_path("piper/tiny.onnx") + "\"" +
                             (json_input ? R"(, "json_input": true})" : "}");
  const std::span<const uint8_t> builder(reinterpret_cast<const uint8_t*>(config.data()), config.size());
  return fuzz::plugin_context("fuzz_piper_input", Encoding::piper, builder,
                              {{"piper", R"({"allow-host-paths": true})"}});
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
