// Errors inside the TensorFlow plugin: a wasinn status plus a one-line detail, and the
// translation of a TF_Status into one.
#pragma once

#include <tensorflow/c/c_api.h>

#include <string>
#include <string_view>

#include "wasinn/backend_plugin.h"

namespace wasinn_tf {

struct Error {
  wasinn_status status = WASINN_OK;
  std::string detail;
  explicit operator bool() const { return status != WASINN_OK; }
};

inline Error invalid(std::string detail) { return {WASINN_INVALID_ARGUMENT, std::move(detail)}; }

// The closest wasinn status to a TensorFlow error code.
wasinn_status status_from_tf(TF_Code code);

// Error for a failed TF call ("<what>: <TF's message>"), or none when `status` is TF_OK.
Error take_status(const TF_Status *status, std::string_view what);

// Reports err through diag and returns its status: the last line of every entry point.
inline int report(wasinn_diag *diag, const Error &err) {
  if (err) wasinn_diag_set(diag, err.detail.c_str());
  return err.status;
}

}  // namespace wasinn_tf
