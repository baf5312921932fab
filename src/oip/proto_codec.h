// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The gRPC (protobuf) encoding of inference requests and responses: inputs as
// raw_input_contents; outputs read from raw_output_contents or, when a server sends them typed,
// from InferTensorContents. Decoders check every size against shape and datatype (fuzzed by
// tests/fuzz/fuzz_remote_codecs.cpp). Pure; thread-safe.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "inference.pb.h"
#include "oip_types.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

void encode_infer_proto(const std::string& model, const std::string& version, std::span<const InputTensor> inputs,
                        std::span<const std::string> output_names, inference::ModelInferRequest& out);

// Takes the raw contents out of `response` (moved, not copied).
sdk::Error decode_infer_proto(inference::ModelInferResponse& response, std::vector<OutputTensor>& out);

// Typed contents (InferTensorContents) as raw little-endian bytes of datatype: as many
// elements as the field holds (the caller checks them against the shape); false when the
// datatype has no typed field (BYTES, an unknown name). FP16 and BF16 are read from
// fp32_contents, as some servers send them.
bool typed_contents_to_bytes(const inference::InferTensorContents& contents, const std::string& datatype,
                             std::string& out);

void decode_metadata_proto(const inference::ModelMetadataResponse& response, ModelMeta& out);

}  // namespace wasinn::oip
