// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The binary tensor data extension of the REST protocol (Triton's, listed as
// "binary_tensor_data" in GET /v2): a JSON header whose length travels in the
// Inference-Header-Content-Length header, followed by each binary tensor's raw bytes in the
// order the JSON names them. Pure; thread-safe; decoders fuzzed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "oip_types.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

inline constexpr const char* kBinaryExtension = "binary_tensor_data";
inline constexpr const char* kHeaderLengthField = "Inference-Header-Content-Length";

// The request body, and in *json_length the length of its JSON part.
std::string encode_infer_binary(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                                size_t* json_length);

// A response body: with header_length, its first header_length bytes are JSON and the rest
// binary outputs; without, all of it is JSON.
sdk::Error decode_infer_response(std::span<const uint8_t> body, std::optional<size_t> header_length,
                                 std::vector<OutputTensor>& out);

}  // namespace wasinn::oip
