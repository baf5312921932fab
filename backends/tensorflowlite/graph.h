// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded .tflite model: the LiteRT model, the signature it runs, and its inputs and outputs
// described once at load so io queries and set_input checks never call into LiteRT.
//
// Index i of a graph input or output is the i-th input or output of the signature's subgraph,
// the order TensorFlow Lite's own interpreter reports (Interpreter::inputs(), Python's
// get_input_details()). A name addresses a tensor by its signature name or its tensor name.
// Immutable after load except the spare compiled model, which the first context takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "backend.h"
#include "handles.h"
#include "litert_status.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflowlite {

class TfliteBackend;
class TfliteContext;

// What LiteRT says of one declared input or output, beside the SDK's description.
struct TfliteIo {
  std::string tensor_name;  // name of the tensor in the flatbuffer
  LiteRtElementType element = kLiteRtElementTypeNone;
  LiteRtRankedTensorType ranked{};  // LiteRT's own description, template for buffers
  size_t position = 0;              // index among the signature's buffers in a run
  bool quantized = false;           // per-tensor quantization (values stay integers)
  float scale = 0;
  int64_t zero_point = 0;

  // " (quantized: scale 0.003922, zero point -128)", or "".
  std::string quantization() const;
};

class TfliteGraph : public sdk::DeclaredIo {
 public:
  static Error load(TfliteBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<TfliteGraph>& out);

  const TfliteIo& tflite_io(sdk::Side side, size_t index) const {
    return side == sdk::Side::input ? input_details_[index] : output_details_[index];
  }
  Error create_context(std::unique_ptr<TfliteContext>& out);

  // Resolves an id like sdk::resolve_id, and also accepts a tensor's flatbuffer name
  // ("serving_default_input:0") where the signature name is "input".
  Error resolve(sdk::Side side, const wasinn_tensor_id& id, size_t& index) const;

  // A compiled model for one context: the spare one if still there, else a new one.
  Error take_compiled_model(CompiledModelPtr& out);

  LiteRtParamIndex signature() const { return signature_; }

  // The external delegate that runs some of its nodes, or null.
  const DelegateLibrary* delegate() const { return delegate_; }
  // "delegate \"npu\" (/usr/lib/libvx_delegate.so) took 2 of 2 nodes", or "" without one; the
  // SDK hands it to `wasinn models inspect` (graph_description).
  const std::string& description() const { return delegate_report_; }
  // Where it runs ("cpu", "gpu", or "delegate:NAME" when an external delegate took nodes) and
  // its signature; nothing is settable.
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const;

 private:
  Error pick_signature(const std::string& wanted);
  Error describe_io();
  // A compiled model with the placement's accelerators and delegate; `report` (at load only:
  // later contexts compile concurrently) gets what the delegate took.
  Error compile(CompiledModelPtr& out, std::string* report = nullptr);
  // The compilation at load: with the placement's delegate (falling back to the CPU if the
  // placement allows), or without one (auto falling back to the CPU).
  Error compile_first(int32_t target);

  std::vector<sdk::Property> properties_;
  TfliteBackend* backend_ = nullptr;  // outlives every graph
  // Declaration order is destruction order reversed: compiled models, then the model, then the
  // bytes LiteRT reads the model from.
  HostMemory bytes_;  // set when loaded from a builder rather than a file
  ModelPtr model_;
  LiteRtParamIndex signature_ = 0;
  std::string signature_key_;
  Placement placement_;
  const DelegateLibrary* delegate_ = nullptr;  // the placement's delegate, opened; or null
  std::string delegate_report_;
  std::vector<TfliteIo> input_details_, output_details_;
  // The compiled model made at load (so an unsupported op fails load, not a later call),
  // handed to the first context.
  std::mutex spare_mu_;
  CompiledModelPtr spare_;
};

}  // namespace wasinn::tensorflowlite
