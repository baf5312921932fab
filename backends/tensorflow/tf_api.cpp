// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loading TensorFlow, resolving its C API and translating its statuses.
#include "tf_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "tsl_log.h"
#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::tensorflow {
namespace {

constexpr const char* kLibrary = "libtensorflow_cc.so.2";

TfApi table;  // written once, inside load_tensorflow's one-time initialisation

// TensorFlow reads TF_CPP_MIN_LOG_LEVEL at its first log line (in a static initializer, while it
// is being loaded) and keeps it: set it to the host's level now, so lines nobody would see are not
// even made. VLOG lines (TF_CPP_MAX_VLOG_LEVEL) only when the host shows debug lines. A value the
// user set wins.
void set_log_environment() {
  const char* min_level = "0";
  switch (sdk::log_threshold()) {
    case WASINN_LOG_TRACE:
    case WASINN_LOG_DEBUG:
    case WASINN_LOG_INFO: min_level = "0"; break;   // INFO
    case WASINN_LOG_WARN: min_level = "1"; break;   // WARNING
    case WASINN_LOG_ERROR: min_level = "2"; break;  // ERROR
    default: min_level = "3"; break;                // FATAL only
  }
  setenv("TF_CPP_MIN_LOG_LEVEL", min_level, /*overwrite=*/0);
  if (sdk::log_threshold() <= WASINN_LOG_DEBUG)
    setenv("TF_CPP_MAX_VLOG_LEVEL", sdk::log_threshold() == WASINN_LOG_TRACE ? "2" : "1",
           /*overwrite=*/0);
}

Error load_once() {
  set_log_environment();
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);  // never closed, as the plugin
  // By name, dlopen searches the plugin's RUNPATH. Under AddressSanitizer its dlopen interceptor
  // becomes the caller and that RUNPATH is not searched, so the build's own directory is tried too.
  if (!library)
    library = dlopen((std::string(WASINN_TF_LIB_DIR) + "/libtensorflow_cc.so.2").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return sdk::runtime_error(std::string("cannot load TensorFlow: ") + (why ? why : kLibrary));
  }
  TfApi api;
  std::string missing;
#define WASINN_TF_RESOLVE(name)                                           \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name)); \
  if (!api.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
  WASINN_TF_FUNCTIONS(WASINN_TF_RESOLVE)
#undef WASINN_TF_RESOLVE
  if (!missing.empty())
    return sdk::runtime_error(std::string("the TensorFlow loaded (") + kLibrary +
                              ") lacks C API functions: " + missing);
  if (std::string_view(api.TF_Version()) != WASINN_TF_VERSION)
    sdk::log(WASINN_LOG_WARN, std::string("the plugin was built with TensorFlow ") + WASINN_TF_VERSION +
                                  " but loaded " + api.TF_Version());
  route_tsl_logs(library, api.TF_Version());
  table = api;
  return {};
}

}  // namespace

Error load_tensorflow() {
  static const Error outcome = load_once();  // thread-safe one-time initialisation
  return outcome;
}

const TfApi& tf() { return table; }

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

Error take_status(const TF_Status* status, std::string_view what) {
  const TF_Code code = tf().TF_GetCode(status);
  if (code == TF_OK) return {};
  return {status_from_tf(code), sdk::one_line(std::string(what) + ": " + tf().TF_Message(status))};
}

}  // namespace wasinn::tensorflow
