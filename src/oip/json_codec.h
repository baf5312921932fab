// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The REST (HTTP/JSON) encoding of the Open Inference Protocol: model and server metadata,
// inference requests with data as JSON numbers or as binary-extension sizes, responses whose
// outputs carry JSON data or binary_data_size, and the server's {"error": ...} text. Every
// decoder takes untrusted bytes and answers a malformed one with an Error, never a throw or a
// crash (fuzzed by tests/fuzz/fuzz_remote_codecs.cpp). Pure; thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "oip_types.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

sdk::Error decode_model_metadata_json(std::string_view body, ModelMeta& out);
// The "extensions" of GET /v2; a body that is not server metadata lists none.
std::vector<std::string> decode_server_extensions_json(std::string_view body);
// The "error" string of an error body, else the body's first 200 bytes (one line).
std::string error_text_json(std::string_view body);

// The request's JSON: with binary == false, each input's "data" is a flat array of numbers and
// every output comes back as JSON; with binary == true, each input says its "binary_data_size"
// (its bytes follow the JSON, see binary_codec.h) and each named output is asked for as binary.
std::string encode_infer_json(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                              bool binary);

// The response's JSON; outputs whose parameters give "binary_data_size" take their bytes, in
// order, from `binary_tail` (empty for a plain JSON response). Every output's size must match
// its shape and datatype, and the tail must be used exactly. With fast_data (the default), flat
// arrays of numbers under "data" keys are read with std::from_chars instead of through
// nlohmann::json (about ten times faster for 150,000 floats); anything else in a "data" array
// (nesting, strings, booleans, a number its datatype cannot hold) takes the general path, so
// both accept and refuse the same responses (fuzz_remote_codecs compares them).
sdk::Error decode_infer_json(std::string_view json, std::span<const uint8_t> binary_tail,
                             std::vector<OutputTensor>& out, bool fast_data = true);

}  // namespace wasinn::oip
