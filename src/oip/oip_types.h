// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Open Inference Protocol's vocabulary, independent of transport: v2 datatype names and
// their wasinn tensor types, model metadata, and the tensors of one inference request and
// response. Plain values; thread-safe. Shared by the remote backend (wasinn as the protocol's
// client, backends/remote) and the OIP server (src/serve/oip): src/oip/ is the one place the
// protocol's encodings live.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/backend_plugin.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

// The v2 datatype a wasinn type travels as ("FP32", "INT64", ...); nullptr for UNKNOWN.
const char* to_datatype(int32_t wasinn_type);
// The wasinn type of a v2 datatype, or nullopt when none has its layout (BOOL, UINT16, BYTES...).
std::optional<wasinn_tensor_type> from_datatype(std::string_view datatype);
// Bytes per element of a v2 datatype; 0 for BYTES and names the protocol does not define.
size_t datatype_size(std::string_view datatype);

// One input or output as the server's metadata declares it (-1: a dynamic dimension).
struct TensorMeta {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
};

struct ModelMeta {
  std::string name;
  std::vector<std::string> versions;
  std::string platform;
  std::vector<TensorMeta> inputs, outputs;
};

// One input of a request: a view of the caller's bytes, row-major little-endian.
struct InputTensor {
  std::string_view name;
  std::string_view datatype;
  std::vector<int64_t> shape;
  std::span<const uint8_t> data;
};

// One output of a response, decoded to row-major little-endian bytes of its datatype (a string,
// so that a protobuf response's raw contents move in without a copy).
struct OutputTensor {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
  std::string data;
};

// product(shape) * datatype_size, or nullopt when a dim is negative, the datatype has no fixed
// size, or the product overflows.
std::optional<size_t> tensor_bytes(std::string_view datatype, std::span<const int64_t> shape);

// The decoders' words for a response they refuse: RUNTIME_ERROR, "the server's response is
// malformed: WHAT". bytes_fit: an output's bytes as its shape and datatype need them (`want`),
// counted in bytes (`as_bytes`, raw data) or in elements (data the decoder converted).
sdk::Error malformed_response(const std::string& what);
sdk::Error bytes_fit(const OutputTensor& t, size_t got, size_t want, bool as_bytes);

// IEEE half and bfloat16 <-> float, for JSON, which carries them as numbers.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
inline float bf16_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f);

}  // namespace wasinn::oip

// The remote backend was the first user of these codecs and names them remote::...
namespace wasinn::remote {
using namespace wasinn::oip;
}  // namespace wasinn::remote
