// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A remote model: its transport (shared by every context; REST handles are pooled in it) and
// the inputs and outputs its server's metadata declares, so guests address them by index or by
// name. Immutable after load.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "config.h"
#include "transport.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::remote {

using sdk::Error;

class RemoteBackend;
class RemoteContext;

class RemoteGraph : public sdk::DeclaredIo {
 public:
  static Error load(RemoteBackend& backend, const sdk::LoadRequest& request, std::unique_ptr<RemoteGraph>& out);

  Error create_context(std::unique_ptr<RemoteContext>& out);

  Transport& transport() const { return *transport_; }
  const ModelTarget& target() const { return target_; }
  // The v2 datatype of each declared input, and every declared output's name, in order.
  const std::vector<std::string>& input_datatypes() const { return input_datatypes_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  const std::string& description() const { return description_; }
  // One fact: the graph runs on its server, not on a device of this host (metrics, inspect).
  std::span<const sdk::Property> properties() const { return properties_; }
  Error check_property(std::string_view name, std::string_view) const { return sdk::not_settable("remote", name); }

 private:
  std::vector<sdk::Property> properties_{{"device", "remote", false}};
  ModelTarget target_;
  std::unique_ptr<Transport> transport_;
  std::vector<std::string> input_datatypes_, output_names_;
  std::string description_;
};

// The metadata as wasinn declarations: types wasinn has no tensor for become not_a_tensor.
void describe_io(const std::vector<TensorMeta>& meta, std::vector<sdk::IoDesc>& out);

}  // namespace wasinn::remote
