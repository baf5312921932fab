// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/tls_check.h"

#include "engine/wasmtime_ptr.h"
#include "engine/wit_host.h"

extern "C" wasmtime_error_t* wasinn_tls_check(wasinn_wit_str cert, wasinn_wit_str key, wasinn_wit_str client_ca);

namespace wasinn {

std::optional<std::string> tls_files_problem(const std::string& cert, const std::string& key,
                                             const std::string& client_ca) {
  auto view = [](const std::string& s) { return wasinn_wit_str{.data = s.data(), .len = s.size()}; };
  ErrorPtr err(wasinn_tls_check(view(cert), view(key), view(client_ca)));
  if (!err) return std::nullopt;
  return message_of(err.get());
}

}  // namespace wasinn
