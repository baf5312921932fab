// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded ONNX model: one OrtSession shared by all contexts of the graph, plus the declared
// inputs and outputs cached at load so io queries and set_input checks never call into ORT.
// Immutable after load but for its spare input buffers (which lock); ORT documents
// OrtSession::Run as safe to call concurrently, so contexts of one graph run in parallel.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "input_buffers.h"
#include "ort_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::onnxruntime {

class OrtBackend;
class OrtContext;

// What ORT says of one declared input or output, beside the SDK's description.
struct OrtIo {
  ONNXType kind = ONNX_TYPE_UNKNOWN;  // tensor, sequence, map, ...
  ONNXTensorElementDataType onnx_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
};

class OrtGraph : public sdk::DeclaredIo {
 public:
  static Error load(OrtBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<OrtGraph>& out);

  Error create_context(std::unique_ptr<OrtContext>& out);
  // The model's own metadata (producer, graph name, domain, description, version and its
  // metadata_props as onnx.metadata.<key>) and the device; nothing is settable.
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const;
  // With CUDA: how many nodes each execution provider took, for `models inspect`.
  const std::string& description() const { return description_; }

  OrtBackend& backend() const { return *backend_; }
  OrtSession* session() const { return session_.get(); }
  const OrtIo& input_kind(size_t i) const { return input_kinds_[i]; }
  // NUL-terminated names in declared order, as Run wants them; point into the IoDescs.
  const std::vector<const char*>& input_names() const { return input_names_; }
  const std::vector<const char*>& output_names() const { return output_names_; }
  // Ended contexts' input buffers, for the next ones (input_buffers.h).
  SpareInputBuffers& spare_inputs() { return spare_inputs_; }

 private:
  OrtBackend* backend_ = nullptr;  // outlives every graph
  SessionPtr session_;
  std::vector<OrtIo> input_kinds_;
  std::vector<const char*> input_names_, output_names_;
  std::vector<sdk::Property> properties_;
  std::string description_;
  SpareInputBuffers spare_inputs_;
};

// "a sequence", "a map", ...: what an ONNX value that is not a tensor is.
const char* kind_name(ONNXType kind);

}  // namespace wasinn::onnxruntime
