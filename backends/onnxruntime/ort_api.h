// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Thin helpers over ONNX Runtime's C API: the versioned function table, owning handles and the
// translation of an OrtStatus into a wasinn status plus detail.
//
// The plugin uses the C API rather than the Ort:: C++ wrapper so that no ORT call can throw;
// the only exceptions left to catch at the C boundary are the standard library's (bad_alloc),
// which the SDK's guard does.
#pragma once

#include <onnxruntime_c_api.h>

#include <memory>
#include <string>
#include <string_view>

#include "plugin_common/c_handles.hpp"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::onnxruntime {

using sdk::Error;

// The API table for the version the plugin was compiled against, or nullptr when the loaded
// libonnxruntime is older than that. Resolved once; the table itself is immutable.
const OrtApi* ort_api();

// Owning handle for any Ort* object: Handle<OrtSession, &OrtApi::ReleaseSession>.
template <typename T, void (*OrtApi::*Release)(T*)>
using Handle = plugin_common::TableHandle<T, &ort_api, Release>;

using EnvPtr = Handle<OrtEnv, &OrtApi::ReleaseEnv>;
using SessionPtr = Handle<OrtSession, &OrtApi::ReleaseSession>;
using SessionOptionsPtr = Handle<OrtSessionOptions, &OrtApi::ReleaseSessionOptions>;
using ValuePtr = Handle<OrtValue, &OrtApi::ReleaseValue>;
using RunOptionsPtr = Handle<OrtRunOptions, &OrtApi::ReleaseRunOptions>;
using MemoryInfoPtr = Handle<OrtMemoryInfo, &OrtApi::ReleaseMemoryInfo>;
using TypeInfoPtr = Handle<OrtTypeInfo, &OrtApi::ReleaseTypeInfo>;

// Maps ORT's error code to the closest wasinn status. Model-parsing failures are the caller's
// bytes being wrong (INVALID_ARGUMENT); engine/EP failures are RUNTIME_ERROR.
wasinn_status status_from_ort_code(OrtErrorCode code);

// Consumes an OrtStatus (nullptr = success). On failure returns an Error whose detail is
// "<what>: <ORT's message>".
Error take_status(OrtStatus* status, std::string_view what);

}  // namespace wasinn::onnxruntime
