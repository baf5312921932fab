// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An owning handle for a framework object whose release function sits in a function table the
// plugin loaded (ONNX Runtime's OrtApi, the TensorFlow C API's TfApi), so each object is
// released exactly once on every path, by the table it came from.
#pragma once

#include <functional>
#include <memory>

namespace wasinn::plugin_common {

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
