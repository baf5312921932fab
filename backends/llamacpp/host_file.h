// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A host file a guest names with the operator's consent (a projector, an image, a vocoder, a
// speaker profile): the check before it is opened, and the read of its bytes. Stateless.
#pragma once

#include <string>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

// NOT_FOUND "<what> does not exist or is not a regular file" unless `path` names a regular file
// (a path holding a NUL names none).
Error check_host_file(const std::string& path, const std::string& what);

// The file's whole content into `out`; false when it cannot be read.
bool read_host_file(const std::string& path, std::string& out);

}  // namespace wasinn::llamacpp
