// The process-wide backend object: the session settings every graph's session gets.
#pragma once

#include <memory>
#include <string>

#include "tf_error.h"

struct wasinn_backend {
  // A serialized ConfigProto (thread pool sizes) for TF_SetConfig; empty for TF's defaults.
  std::string session_config;
};

namespace wasinn_tf {

// config: {"intra_op_threads": N, "inter_op_threads": N}, both optional (0 = TF's default).
Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out);

}  // namespace wasinn_tf
