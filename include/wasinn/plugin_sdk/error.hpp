// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: the error a plugin function returns, and how it reaches the host.
//
// Error is a value: a wasinn_status plus a one-line detail, empty on success. Header-only and
// compiled into each plugin (the C ABI stays the only contract). See plugin_sdk.hpp.
#pragma once

#include <string>
#include <utility>

#include "wasinn/backend_plugin.h"

namespace wasinn::sdk {

struct Error {
  wasinn_status status = WASINN_OK;
  std::string detail;
  explicit operator bool() const { return status != WASINN_OK; }
};

inline Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }
inline Error unsupported(std::string detail) { return {WASINN_UNSUPPORTED_OPERATION, std::move(detail)}; }
inline Error runtime_error(std::string detail) { return {WASINN_RUNTIME_ERROR, std::move(detail)}; }

// Details are one line: frameworks' messages often carry stacks and trailing newlines.
inline std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// Reports err through diag and returns its status: the last step of every entry point.
inline int report(wasinn_diag* diag, const Error& err) {
  if (err) wasinn_diag_set(diag, err.detail.c_str());
  return err.status;
}

}  // namespace wasinn::sdk
