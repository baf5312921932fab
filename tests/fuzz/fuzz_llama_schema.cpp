// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_llama_schema: a JSON schema (what an OpenAI client's response_format
// carries) into the llama.cpp plugin's "json-schema" key, on the tiny GGUF loaded once. Each input
// is the schema's text: llama.cpp's converter turns it into a grammar, and a two-token generation
// samples with it under a 2 s compute budget (the ComputeWatchdog wasinn serve uses). A schema may
// be refused, but every generation must end: one still running 10 s after its budget is a hang
// (issue 79: grammar work that llama.cpp could not finish held a worker for good).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "core/compute_watchdog.h"
#include "core/graph.h"
#include "core/types.h"
#include "fuzz_fixtures.h"
#include "plugin_context.h"

using namespace wasinn;

namespace {

std::shared_ptr<ExecutionContext> make_context() {
  const nlohmann::json config = {{"temp", 0}, {"n-predict", 2}, {"ctx-size", 128}, {"threads", 1}};
  return fuzz::path_context("fuzz_llama_schema", Encoding::ggml, fuzz::fixture_path("llama/tiny.gguf"), config.dump());
}

bool set_bytes(ExecutionContext& ctx, uint32_t index, std::string_view bytes) {
  const uint32_t dims[1] = {static_cast<uint32_t>(bytes.size())};
  const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return ctx.set_input(TensorId{index, std::nullopt}, TensorView{TensorType::u8, dims, data}, uint64_t{1} << 30).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<ExecutionContext>& ctx = *new std::shared_ptr<ExecutionContext>(make_context());
  static ComputeWatchdog& watchdog = *new ComputeWatchdog();
  // The schema as the text of "json-schema" (metadata, input 1): a string the plugin parses.
  // Held as a guest's call holds it: the watchdog's cancel reaches only a context in use.
  auto lease = ctx->acquire();
  if (!lease) std::abort();
  const std::string schema(reinterpret_cast<const char*>(data), size);
  const std::string metadata =
      nlohmann::json{{"json-schema", schema}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!set_bytes(*ctx, 1, metadata)) return 0;  // not JSON, not a schema, too deep: refused is an answer
  if (!set_bytes(*ctx, 0, "Answer in JSON:")) std::abort();
  const auto started = std::chrono::steady_clock::now();
  {
    auto watch = watchdog.watch(*ctx, std::chrono::milliseconds(2000));
    (void)ctx->compute();  // refused, cancelled or answered: each ends
  }
  if (std::chrono::steady_clock::now() - started > std::chrono::seconds(12)) {
    std::fprintf(stderr, "fuzz_llama_schema: a generation ran 10 s past its 2 s budget\n");
    std::abort();
  }
  // The next input starts from no schema: a refused one must not leave the last one in force.
  if (!set_bytes(*ctx, 1, R"({"json-schema": ""})")) std::abort();
  return 0;
}
