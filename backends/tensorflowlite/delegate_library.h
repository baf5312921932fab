// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An external TensorFlow Lite delegate library the host configured (a VX delegate, Coral's
// libedgetpu, Arm NN's delegate, the tests' delegate): opened with dlopen on first use and kept
// for the rest of the process (its code runs inside every graph it took), and the delegates it
// creates through tflite_plugin_create_delegate / tflite_plugin_destroy_delegate.
#pragma once

#include <memory>
#include <string>

#include "config.h"
#include "tflite_delegate_api.h"

namespace wasinn::tensorflowlite {

class DelegateLibrary {
 public:
  // INVALID_ARGUMENT naming the delegate, the file and why: it cannot be opened (missing, not a
  // shared library of this machine) or does not export the two entry points.
  static Error open(const DelegateSpec& spec, std::unique_ptr<DelegateLibrary>& out);

  // A new delegate with the spec's options, or nullptr with the library's own words in `why`
  // (what it passed to report_error, else a generic reason). Thread-safe.
  TfLiteDelegate* create(std::string& why) const;
  void destroy(TfLiteDelegate* delegate) const noexcept;

  const DelegateSpec& spec() const { return spec_; }

 private:
  DelegateSpec spec_;
  void* handle_ = nullptr;  // never closed: kernels of live graphs run its code
  TfLitePluginCreateDelegateFn create_ = nullptr;
  TfLitePluginDestroyDelegateFn destroy_ = nullptr;
};

}  // namespace wasinn::tensorflowlite
