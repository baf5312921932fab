// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/tls_check.h"

#include "engine/wasmtime_ptr.h"
#include "engine/wit_str.h"

extern "C" wasmtime_error_t* wasinn_tls_check(wasinn_wit_str cert, wasinn_wit_str key, wasinn_wit_str client_ca);

namespace wasinn {

std::optional<std::string> tls_files_problem(const std::string& cert, const std::string& key,
                                             const std::string& client_ca) {
  ErrorPtr err(wasinn_tls_check(wit_str(cert), wit_str(key), wit_str(client_ca)));
  if (!err) return std::nullopt;
  return message_of(err.get());
}

}  // namespace wasinn
