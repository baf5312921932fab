// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Owning handles for TensorFlow C API objects, so each is released exactly once on every path.
#pragma once

#include <tensorflow/c/c_api.h>

#include <memory>

#include "plugin_common/c_handles.hpp"
#include "tf_api.h"

namespace wasinn::tensorflow {

// Deletes through the loaded table: Owned<TF_Graph, &TfApi::TF_DeleteGraph>.
template <typename T, auto Delete>
using Owned = plugin_common::TableHandle<T, &tf, Delete>;

using StatusPtr = Owned<TF_Status, &TfApi::TF_DeleteStatus>;
using GraphPtr = Owned<TF_Graph, &TfApi::TF_DeleteGraph>;
using BufferPtr = Owned<TF_Buffer, &TfApi::TF_DeleteBuffer>;
using SessionOptionsPtr = Owned<TF_SessionOptions, &TfApi::TF_DeleteSessionOptions>;
using ImportOptionsPtr = Owned<TF_ImportGraphDefOptions, &TfApi::TF_DeleteImportGraphDefOptions>;
using TensorPtr = Owned<TF_Tensor, &TfApi::TF_DeleteTensor>;

inline StatusPtr new_status() { return StatusPtr(tf().TF_NewStatus()); }

// A session is closed, then deleted; both report into a status nobody can act on any more.
struct SessionDeleter {
  void operator()(TF_Session* s) const {
    if (!s) return;
    StatusPtr st = new_status();
    tf().TF_CloseSession(s, st.get());
    tf().TF_DeleteSession(s, st.get());
  }
};
using SessionPtr = std::unique_ptr<TF_Session, SessionDeleter>;

}  // namespace wasinn::tensorflow
