// Errors inside the TFLite plugin: a wasinn status plus a one-line detail, and the names of
// LiteRT's status codes (libLiteRt.so 2.3.0 does not export LiteRtGetStatusString).
#pragma once

#include <string>
#include <string_view>

#include "litert_c_api.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_tfl {

struct Error {
  wasinn_status status = WASINN_OK;
  std::string detail;
  explicit operator bool() const { return status != WASINN_OK; }
};

inline Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }

// "kLiteRtStatusErrorCompilation (504)".
std::string status_name(LiteRtStatus status);

// Error for a failed LiteRT call: "<what>: LiteRT returned <name>", with `status` as given.
Error litert_error(LiteRtStatus status, std::string_view what,
                   wasinn_status as = WASINN_RUNTIME_ERROR);

// Reports err through diag and returns its status: the last line of every entry point.
inline int report(wasinn_diag *diag, const Error &err) {
  if (err) wasinn_diag_set(diag, err.detail.c_str());
  return err.status;
}

}  // namespace wasinn_tfl
