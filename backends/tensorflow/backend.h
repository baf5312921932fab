// The process-wide TensorFlow backend: the session settings every graph's session gets, from
// backend_create's config. Creating the first one loads TensorFlow itself (tf_api.h).
// Immutable after create, so graphs on any thread share it without locking.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tf_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflow {

class TfGraph;
class TfContext;

class TfBackend {
 public:
  // The version the plugin was built with (TensorFlow is loaded only by create).
  WASINN_SDK_BACKEND(TfBackend, TfGraph, TfContext, "tensorflow")

  // A serialized ConfigProto (thread pool sizes) for TF_SetConfig; empty for TF's defaults.
  const std::string &session_config() const { return session_config_; }

 private:
  std::string session_config_;
};

}  // namespace wasinn::tensorflow
