// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The server's side of the REST encoding: inference requests in (JSON data, or the binary tensor
// extension's JSON header plus the bytes after it), responses, metadata and errors out. The
// client's side is json_codec. Requests are untrusted: every field, datatype, shape and length
// is checked, and a malformed one is an invalid_argument Error whose detail the server sends
// back as {"error": ...} with 400 (tests/oip/oip_server_codec_test.cpp, fuzzed alike). Pure;
// thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "infer_request.h"
#include "oip_types.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

// json: the request's JSON (all the body, or its first Inference-Header-Content-Length bytes);
// tail: the bytes after it, which the inputs whose parameters say "binary_data_size" take in
// order, exactly. The inputs' data may view `tail`: it must outlive `out`. check_name judges each
// input's name before its datatype, shape and data.
sdk::Error decode_infer_request_json(std::string_view json, std::span<const uint8_t> tail, InferRequest& out,
                                     const InputNameCheck& check_name = {});

// The response body; *json_length: the length of its JSON part, which is the whole body unless
// an output is binary (then the server sends Inference-Header-Content-Length).
std::string encode_infer_response_json(const std::string& model, const std::string& version, const std::string& id,
                                       std::span<const ResponseOutput> outputs, size_t* json_length);

std::string encode_model_metadata_json(const ModelMeta& meta);

// {"error":"..."}; text that is not UTF-8 has its bad bytes replaced.
std::string error_json(std::string_view message);

}  // namespace wasinn::oip
