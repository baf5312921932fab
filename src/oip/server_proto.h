// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The server's side of the gRPC encoding (inference.GRPCInferenceService): a ModelInferRequest
// in (raw_input_contents, or typed contents), a ModelInferResponse out (raw_output_contents,
// which every client reads), and ModelMetadataResponse. The client's side is proto_codec. The
// request is untrusted: counts, datatypes, shapes and sizes are checked; a bad one is an
// invalid_argument Error (INVALID_ARGUMENT on the wire). Pure; thread-safe.
#pragma once

#include <span>

#include "inference.pb.h"
#include "infer_request.h"
#include "oip_types.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::oip {

// The inputs' data may view `request`'s raw contents: it must outlive `out`. check_name judges
// each input's name before its datatype, shape and contents.
sdk::Error decode_infer_request_proto(const inference::ModelInferRequest& request, InferRequest& out,
                                      const InputNameCheck& check_name = {});

void encode_infer_response_proto(const std::string& model, const std::string& version, const std::string& id,
                                 std::span<const ResponseOutput> outputs, inference::ModelInferResponse& out);

void encode_metadata_proto(const ModelMeta& meta, inference::ModelMetadataResponse& out);

}  // namespace wasinn::oip
