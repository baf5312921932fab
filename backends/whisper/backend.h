// The process-wide whisper.cpp backend: routes whisper.cpp's (and its ggml's) log to the host's
// logger, and keeps the operator's backend config. Immutable after create, so graphs on any
// thread share it without locking.
#pragma once

#include <memory>
#include <string_view>

#include "options.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::whisper {

class WhisperGraph;
class WhisperContext;

class WhisperBackend {
 public:
  WASINN_SDK_BACKEND(WhisperBackend, WhisperGraph, WhisperContext, "whisper")

  const BackendConfig &config() const { return config_; }

 private:
  BackendConfig config_;
};

}  // namespace wasinn::whisper
