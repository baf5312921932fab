// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference request as the OIP server receives it, after either encoding (server_json for
// REST, server_proto for gRPC) has decoded and checked it, and the outputs it answers with.
// Plain values; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wasinn::oip {

// An input whose bytes are row-major little-endian of its datatype, exactly as many as its
// shape needs (the decoders check that). `data` views the request's body (binary and raw
// contents: no copy) or `owned` (numbers decoded from JSON or typed contents).
struct RequestInput {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
  std::string owned;
  std::span<const uint8_t> data;
};

// An output the client asks for by name; binary: the REST binary extension's per-output
// "binary_data" parameter (unset: the request's "binary_data_output", else JSON).
struct RequestedOutput {
  std::string name;
  std::optional<bool> binary;
};

// The model's judgement of an input's name, which the decoders ask before reading the input's
// data, so that a misnamed input is reported as such (naming the model's inputs), not as data
// that does not fit its shape: "" for a name the model takes, else why not. Empty: any name.
using InputNameCheck = std::function<std::string(std::string_view name)>;

struct InferRequest {
  std::string id;
  // The request's "parameters" that are not the protocol's own (binary_data_output), each
  // value as text (a string as it is, a number or bool as JSON writes it): the model's knobs.
  std::vector<std::pair<std::string, std::string>> parameters;
  bool binary_output = false;  // REST: parameters.binary_data_output
  std::vector<RequestInput> inputs;
  std::vector<RequestedOutput> outputs;  // empty: every output of the model
};

// One output of the answer; data views the computed tensor.
struct ResponseOutput {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
  std::span<const uint8_t> data;
  bool binary = false;  // REST: sent after the JSON (binary extension), not as numbers
};

}  // namespace wasinn::oip
