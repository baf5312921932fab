#include "tf_error.h"

namespace wasinn_tf {

wasinn_status status_from_tf(TF_Code code) {
  switch (code) {
    case TF_OK: return WASINN_OK;
    case TF_INVALID_ARGUMENT:
    case TF_FAILED_PRECONDITION:
    case TF_OUT_OF_RANGE: return WASINN_INVALID_ARGUMENT;
    case TF_NOT_FOUND: return WASINN_NOT_FOUND;
    case TF_UNIMPLEMENTED: return WASINN_UNSUPPORTED_OPERATION;
    case TF_RESOURCE_EXHAUSTED: return WASINN_TOO_LARGE;
    case TF_DEADLINE_EXCEEDED:
    case TF_CANCELLED: return WASINN_TIMEOUT;
    case TF_PERMISSION_DENIED: return WASINN_SECURITY;
    default: return WASINN_RUNTIME_ERROR;
  }
}

Error take_status(const TF_Status *status, std::string_view what) {
  const TF_Code code = TF_GetCode(status);
  if (code == TF_OK) return {};
  return {status_from_tf(code), std::string(what) + ": " + TF_Message(status)};
}

}  // namespace wasinn_tf
