// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_load_<backend>: mutated model bytes into one backend plugin's load
// (NnEnvironment::load_graph, as a guest's load reaches it), then a context on what loaded.
// WASINN_FUZZ_ENCODING names the encoding. With WASINN_FUZZ_SPLIT (OpenVINO IR: .xml + .bin)
// the input is u32 LE n, n bytes of builder 0, then builder 1; an n past the end gives one
// builder of everything after it (OpenVINO also reads ONNX from one builder).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "core/nn_environment.h"
#include "root/wired_environment.h"
#include "core/types.h"

using namespace wasinn;

namespace {

struct LoadWorld {
  std::shared_ptr<NnEnvironment> env;
  Encoding encoding;
};

const LoadWorld& world() {
  static const LoadWorld w = [] {
    EnvironmentOptions options;
    options.backend_dirs = {WASINN_FUZZ_BACKEND_DIR};
    // Single-threaded frameworks where configurable: the fuzzer loads thousands of models.
    options.backend_configs["onnxruntime"] = "{\"intra_op_threads\":1,\"inter_op_threads\":1}";
    auto encoding = parse_encoding(WASINN_FUZZ_ENCODING);
    if (!encoding) {
      std::fprintf(stderr, "fuzz_load: unknown encoding %s\n", WASINN_FUZZ_ENCODING);
      std::abort();
    }
    return LoadWorld{wire_environment(std::move(options)).env, *encoding};
  }();
  return w;
}

std::vector<std::span<const uint8_t>> builders_of(std::span<const uint8_t> in) {
#ifdef WASINN_FUZZ_SPLIT
  uint32_t n = 0;
  if (in.size() < 4) return {in};
  std::memcpy(&n, in.data(), 4);
  in = in.subspan(4);
  if (n >= in.size()) return {in};
  return {in.first(n), in.subspan(n)};
#else
  return {in};
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const LoadWorld& w = world();
  // libFuzzer passes a heap copy of exactly `size` bytes: ASan sees any read past the end.
  const auto builders = builders_of({data, size});
  auto graph = w.env->load_graph(w.encoding, Target::cpu, builders, {}, {});
  if (graph) {
    auto ctx = (*graph)->create_context();
    (void)ctx;
  }
  return 0;
}
