// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning handles for a C library's objects, so each object is released exactly once on every
// path: by a release function the library exports (llama.cpp, whisper.cpp, LiteRT), or by one
// in a function table the plugin loaded (ONNX Runtime's OrtApi, the TensorFlow C API's TfApi).
#pragma once

#include <functional>
#include <memory>

namespace wasinn::plugin_common {

// Free is the library's release function: FunctionHandle<llama_model, llama_model_free>.
template <auto Free>
struct FunctionDeleter {
  template <typename T>
  void operator()(T* p) const noexcept {
    Free(p);  // unique_ptr never passes a null pointer
  }
};
template <typename T, auto Free>
using FunctionHandle = std::unique_ptr<T, FunctionDeleter<Free>>;

// Table() gives the table (a pointer or a reference); Release is its member holding the
// function: TableHandle<OrtSession, &ort_api, &OrtApi::ReleaseSession>.
template <typename T, auto Table, auto Release>
struct TableDeleter {
  void operator()(T* p) const {
    if (p) std::invoke(Release, Table())(p);
  }
};
template <typename T, auto Table, auto Release>
using TableHandle = std::unique_ptr<T, TableDeleter<T, Table, Release>>;

}  // namespace wasinn::plugin_common
