// Errors of the OpenVINO plugin: a wasinn status plus a one-line detail, and the translation of
// OpenVINO's exceptions into them. Plain values.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "wasinn/backend_plugin.h"

namespace wasinn_ov {

// A failed operation: the wasinn status to return and the one-line detail to report.
struct Error {
  wasinn_status status = WASINN_OK;
  std::string detail;
  explicit operator bool() const { return status != WASINN_OK; }
};

inline Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }

// OpenVINO's what() is a stack of "Exception from src/...:N:" and "Check '...' failed at ...:"
// frames around the one line that says what went wrong; this returns that line (or lines,
// joined with "; ") so a guest sees "Incorrect weights in bin file!", not source paths.
std::string ov_reason(const std::exception &e);

// "<what>: <reason>" with the given status.
Error from_exception(wasinn_status status, std::string_view what, const std::exception &e);

// Reports err through diag and returns its status, for the last line of an entry point.
inline int report(wasinn_diag *diag, const Error &err) {
  if (err) wasinn_diag_set(diag, err.detail.c_str());
  return err.status;
}

}  // namespace wasinn_ov
