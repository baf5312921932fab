// The plugin's error value: a wasinn_status and a one-line detail for the host's diag.
// Functions return it instead of throwing, so nothing unwinds into the C table.
#pragma once

#include <string>
#include <utility>

#include "wasinn/backend_plugin.h"

namespace wasinn_llama {

struct Error {
  int status = WASINN_OK;
  std::string message;

  Error() = default;
  Error(int s, std::string m) : status(s), message(std::move(m)) {}
  explicit operator bool() const { return status != WASINN_OK; }
};

// Hands an error's detail to the host and returns its status (WASINN_OK passes through).
inline int report(wasinn_diag *diag, const Error &e) {
  if (e) wasinn_diag_set(diag, e.message.c_str());
  return e.status;
}

}  // namespace wasinn_llama
