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

  const RemoteOptions &defaults() const { return defaults_; }
  const std::string &description() const { return description_; }

 private:
  RemoteOptions defaults_;
  std::string description_;
};

}  // namespace wasinn::remote
