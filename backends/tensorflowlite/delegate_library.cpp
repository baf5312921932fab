// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "delegate_library.h"

#include <dlfcn.h>

#include <vector>

namespace wasinn::tensorflowlite {
namespace {

// report_error carries no user data, so the messages of one create call go to the calling
// thread's collector (create runs synchronously on that thread).
thread_local std::string* report_sink = nullptr;

void collect_report(const char* message) {
  if (!report_sink || !message) return;
  if (!report_sink->empty()) *report_sink += "; ";
  *report_sink += sdk::one_line(message);
}

}  // namespace

Error DelegateLibrary::open(const DelegateSpec& spec, std::unique_ptr<DelegateLibrary>& out) {
  dlerror();
  // RTLD_LOCAL: the library's symbols (often a TFLite of its own) must not replace LiteRT's.
  void* handle = dlopen(spec.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return sdk::invalid(label(spec) + ": cannot be loaded: " + sdk::one_line(why ? why : "dlopen failed"));
  }
  auto lib = std::make_unique<DelegateLibrary>();
  lib->spec_ = spec;
  lib->handle_ = handle;
  lib->create_ = reinterpret_cast<TfLitePluginCreateDelegateFn>(dlsym(handle, TFLITE_PLUGIN_CREATE_DELEGATE));
  lib->destroy_ = reinterpret_cast<TfLitePluginDestroyDelegateFn>(dlsym(handle, TFLITE_PLUGIN_DESTROY_DELEGATE));
  if (!lib->create_ || !lib->destroy_)
    // Left open: unloading a library whose initializers ran is riskier than keeping it.
    return sdk::invalid(label(spec) + ": not a TensorFlow Lite external delegate: it does not export " +
                        (lib->create_ ? TFLITE_PLUGIN_DESTROY_DELEGATE : TFLITE_PLUGIN_CREATE_DELEGATE));
  out = std::move(lib);
  return {};
}

TfLiteDelegate* DelegateLibrary::create(std::string& why) const {
  // The entry point takes char ** (not const): hand it copies it may not keep.
  std::vector<std::string> keys, values;
  for (const auto& [k, v] : spec_.options) {
    keys.push_back(k);
    values.push_back(v);
  }
  std::vector<char*> key_ptrs, value_ptrs;
  for (size_t i = 0; i < keys.size(); ++i) {
    key_ptrs.push_back(keys[i].data());
    value_ptrs.push_back(values[i].data());
  }
  std::string reported;
  report_sink = &reported;
  TfLiteDelegate* d = create_(key_ptrs.data(), value_ptrs.data(), key_ptrs.size(), collect_report);
  report_sink = nullptr;
  if (!d) why = reported.empty() ? "tflite_plugin_create_delegate returned no delegate" : reported;
  return d;
}

void DelegateLibrary::destroy(TfLiteDelegate* delegate) const noexcept {
  if (delegate) destroy_(delegate);
}

}  // namespace wasinn::tensorflowlite
