// A failed plugin operation as a value (status + one-line detail), and the translation of the
// exceptions libtorch throws into one readable line.
#pragma once

#include <exception>
#include <string>

#include "wasinn/backend_plugin.h"

namespace wasinn_torch {

struct Error {
  wasinn_status status = WASINN_OK;
  std::string detail;
  explicit operator bool() const { return status != WASINN_OK; }
};

inline Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }

// Reports err through diag and returns its status, for the last line of an entry point.
inline int report(wasinn_diag *diag, const Error &err) {
  if (err) wasinn_diag_set(diag, err.detail.c_str());
  return err.status;
}

// One line out of a libtorch exception. c10::Error carries a C++ backtrace and the TorchScript
// interpreter a Python-style traceback; the line a user needs is the final "XxxError: why".
std::string exception_summary(const std::exception &e);

}  // namespace wasinn_torch
