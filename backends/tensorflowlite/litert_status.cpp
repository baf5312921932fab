// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "litert_status.h"

namespace wasinn::tensorflowlite {

std::string status_name(LiteRtStatus status) {
  const char* name = "unknown status";
  switch (status) {
    case kLiteRtStatusOk: name = "kLiteRtStatusOk"; break;
    case kLiteRtStatusErrorInvalidArgument: name = "kLiteRtStatusErrorInvalidArgument"; break;
    case kLiteRtStatusErrorMemoryAllocationFailure: name = "kLiteRtStatusErrorMemoryAllocationFailure"; break;
    case kLiteRtStatusErrorRuntimeFailure: name = "kLiteRtStatusErrorRuntimeFailure"; break;
    case kLiteRtStatusErrorMissingInputTensor: name = "kLiteRtStatusErrorMissingInputTensor"; break;
    case kLiteRtStatusErrorUnsupported: name = "kLiteRtStatusErrorUnsupported"; break;
    case kLiteRtStatusErrorNotFound: name = "kLiteRtStatusErrorNotFound"; break;
    case kLiteRtStatusErrorTimeoutExpired: name = "kLiteRtStatusErrorTimeoutExpired"; break;
    case kLiteRtStatusErrorWrongVersion: name = "kLiteRtStatusErrorWrongVersion"; break;
    case kLiteRtStatusErrorUnknown: name = "kLiteRtStatusErrorUnknown"; break;
    case kLiteRtStatusErrorAlreadyExists: name = "kLiteRtStatusErrorAlreadyExists"; break;
    case kLiteRtStatusCancelled: name = "kLiteRtStatusCancelled"; break;
    case kLiteRtStatusErrorFileIO: name = "kLiteRtStatusErrorFileIO"; break;
    case kLiteRtStatusErrorInvalidFlatbuffer: name = "kLiteRtStatusErrorInvalidFlatbuffer"; break;
    case kLiteRtStatusErrorDynamicLoading: name = "kLiteRtStatusErrorDynamicLoading"; break;
    case kLiteRtStatusErrorSerialization: name = "kLiteRtStatusErrorSerialization"; break;
    case kLiteRtStatusErrorCompilation: name = "kLiteRtStatusErrorCompilation"; break;
    case kLiteRtStatusErrorIndexOOB: name = "kLiteRtStatusErrorIndexOOB"; break;
    case kLiteRtStatusErrorInvalidIrType: name = "kLiteRtStatusErrorInvalidIrType"; break;
  }
  return std::string(name) + " (" + std::to_string(static_cast<int>(status)) + ")";
}

Error litert_error(LiteRtStatus status, std::string_view what, wasinn_status as) {
  return {as, std::string(what) + ": LiteRT returned " + status_name(status)};
}

}  // namespace wasinn::tensorflowlite
