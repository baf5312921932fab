// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Value types shared by every layer: tensor element types, encodings, targets, tensor views.
// All are plain values with no synchronization; views do not own what they point to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace wasinn {

// Same numbering as wasinn_tensor_type in the plugin ABI, so crossing it is a cast.
enum class TensorType : uint8_t { f16 = 0, f32 = 1, f64 = 2, bf16 = 3, u8 = 4, i32 = 5, i64 = 6, i8 = 7 };

size_t element_size(TensorType type);
std::string_view type_name(TensorType type);
// How a message names tensor types: type_name ("f32") unless the caller answers in a protocol
// of its own (the OIP server: "FP32").
using TypeNamer = std::string_view (*)(TensorType);
bool is_valid_type(uint32_t raw);

// remote (a model on an inference server, backends/remote) comes after autodetect: no guest ABI
// numbers it, so guests reach a remote model only by load_by_name. whisper (whisper.cpp's ggml
// speech models) is WasmEdge's witx encoding 9; WIT has no case for it (autodetect or ggml reach it).
// piper (Piper's ONNX voices, text to speech) is WasmEdge's witx encoding 11; WIT's autodetect
// reaches it from WasmEdge's run config (a JSON object naming a .onnx "model").
enum class Encoding : uint8_t {
  openvino,
  onnx,
  tensorflow,
  pytorch,
  tensorflowlite,
  ggml,
  autodetect,
  remote,
  whisper,
  piper
};
std::string_view encoding_name(Encoding encoding);
// Case-insensitive; accepts WasmEdge's spellings ("ONNX", "PyTorch", "GGML", "TensorflowLite").
std::optional<Encoding> parse_encoding(std::string_view name);

enum class Target : uint8_t { cpu = 0, gpu = 1, tpu = 2, autodetect = 3 };
std::string_view target_name(Target target);
std::optional<Target> parse_target(std::string_view name);

// A dense row-major tensor in memory the caller owns.
struct TensorView {
  TensorType type;
  std::span<const uint32_t> dims;
  std::span<const uint8_t> data;
};

// A tensor that owns its bytes: what a WIT guest's tensor resource holds, and what a named
// compute returns (a TensorView borrows from the guest or the framework instead).
struct OwnedTensor {
  TensorType type = TensorType::f32;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
  TensorView view() const { return TensorView{type, dims, data}; }
};

// A tensor addressed by position or by name, as guests of different ABIs do.
struct TensorId {
  uint32_t index = 0;
  std::optional<std::string_view> name;
  std::string describe() const;
};

// product(dims) * element_size(type), or invalid_argument if it overflows 64 bits.
Result<uint64_t> tensor_byte_size(std::span<const uint32_t> dims, TensorType type);

// "f32 [1, 64]"
std::string describe_tensor(TensorType type, std::span<const uint32_t> dims);

}  // namespace wasinn
