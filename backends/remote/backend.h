// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The remote backend: a model served by an Open Inference Protocol ("KServe v2") server, over
// REST or gRPC. The process-wide state is the default options from the backend config;
// immutable after create.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "config.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::remote {

using sdk::Error;

class RemoteGraph;
class RemoteContext;

class RemoteBackend {
 public:
  WASINN_SDK_BACKEND(RemoteBackend, RemoteGraph, RemoteContext, "remote")

  const RemoteOptions& defaults() const { return defaults_; }
  const std::string& description() const { return description_; }
  // A model's spec (its URL and options, JSON) over these defaults: where and how to reach it.
  Error model_target(std::string_view spec, ModelTarget& out) const;
  // The same, for the host to refuse a bad spec at start (model_spec_check). Contacts nothing.
  Error check_model_spec(std::string_view spec) const {
    ModelTarget unused;
    return model_target(spec, unused);
  }

 private:
  RemoteOptions defaults_;
  std::string description_;
};

}  // namespace wasinn::remote
