// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A loaded model: one ov::CompiledModel shared by every context of the graph (each context has
// its own infer request), plus the declared inputs and outputs cached at load so io queries and
// set_input checks never call into OpenVINO. OpenVINO documents a compiled model as usable from
// many infer requests at once, so contexts of one graph run in parallel without a lock; nothing
// here changes after load.
#pragma once

#include <openvino/runtime/compiled_model.hpp>
#include <openvino/runtime/tensor.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ov_exception.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::openvino {

class OvBackend;
class OvContext;

// What OpenVINO says of one declared port, beside the SDK's description.
struct OvPort {
  std::vector<std::string> names;  // every name of the port, for lookup by name
  std::string declared;            // OpenVINO's "f32 [1..8,64]", for details about bounds
  // Bounds of each dimension, for dims with a range like "1..8"; max -1 means unbounded.
  std::vector<int64_t> min_dims, max_dims;
};

class OvGraph : public sdk::DeclaredIo {
 public:
  static Error load(OvBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<OvGraph>& out);

  Error create_context(std::unique_ptr<OvContext>& out);

  // sdk::resolve_id, where a name may be any of a port's names (OpenVINO ports can have several).
  Error resolve_id(sdk::Side side, const wasinn_tensor_id& id, size_t& index) const;
  // sdk::check_input, plus the bounds of dims declared as a range.
  Error check_input(size_t index, const wasinn_tensor& tensor) const;

  // The devices OpenVINO runs it on (e.g. "cpu"; AUTO's choice), the device asked for and the
  // model's name; nothing is settable.
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view value) const;

  ov::CompiledModel& compiled() { return compiled_; }
  // compute via start_async + wait (see "cancellable" in config.h)
  bool cancellable() const { return cancellable_; }

 private:
  // The IR's weights, shared (not copied) by the model's constants, which a freshly compiled
  // model may keep using (empty when the model came from the cache): declared before
  // `compiled_` so it is destroyed after it.
  ov::Tensor weights_;
  ov::CompiledModel compiled_;
  bool cancellable_ = false;
  std::vector<OvPort> input_ports_, output_ports_;
  std::vector<sdk::Property> properties_;
};

}  // namespace wasinn::openvino
