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

namespace wasinn::remote {

void encode_infer_proto(const std::string &model, const std::string &version,
                        std::span<const InputTensor> inputs,
                        std::span<const std::string> output_names,
                        inference::ModelInferRequest &out);

// Takes the raw contents out of `response` (moved, not copied).
sdk::Error decode_infer_proto(inference::ModelInferResponse &response,
                              std::vector<OutputTensor> &out);

void decode_metadata_proto(const inference::ModelMetadataResponse &response, ModelMeta &out);

}  // namespace wasinn::remote
