// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The TLS files of --tls-cert, --tls-key and --tls-client-ca checked at start, as serve/http's
// rustls (src/serve/http/src/tls.rs) reads them for a component's server: for the
// CLI, so a bad or mismatched file stops either server before any model loads, naming the file.
#pragma once

#include <optional>
#include <string>

namespace wasinn {

// std::nullopt when the files are good; else why not, naming the file at fault.
std::optional<std::string> tls_files_problem(const std::string& cert, const std::string& key,
                                             const std::string& client_ca);

}  // namespace wasinn
