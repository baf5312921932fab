// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target fuzz_whisper_audio: mutated WAV, FLAC, MP3 and Ogg files into the whisper plugin's
// input 0 (set_input, as a WasmEdge guest or the OpenAI audio routes send one), on the tiny fixture
// model loaded once. The audio decoder (miniaudio, with the plugin's WAV checks; libogg,
// libvorbisfile and libopusfile for Ogg) is the one parser of guest bytes the whisper backend
// adds; compute is left out, as whisper.cpp would spend seconds per input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

#include "core/graph.h"
#include "core/types.h"
#include "fuzz_fixtures.h"
#include "plugin_context.h"

using namespace wasinn;

namespace {

std::shared_ptr<ExecutionContext> make_context() {
  static const std::vector<uint8_t> model = fuzz::read_fixture("whisper/tiny-en.bin");
  return fuzz::plugin_context("fuzz_whisper_audio", Encoding::whisper, model);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<ExecutionContext> ctx = make_context();
  const uint32_t dims[2] = {1, static_cast<uint32_t>(size)};
  // libFuzzer passes a heap copy of exactly `size` bytes: ASan sees any read past the end.
  (void)ctx->set_input(TensorId{0, std::nullopt}, TensorView{TensorType::u8, dims, {data, size}}, uint64_t{1} << 30);
  return 0;
}
