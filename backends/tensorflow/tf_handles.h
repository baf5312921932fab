// Owning handles for TensorFlow C API objects, so each is released exactly once on every path.
#pragma once

#include <tensorflow/c/c_api.h>

#include <memory>

namespace wasinn_tf {

template <typename T, void (*Delete)(T *)>
struct TfDeleter {
  void operator()(T *p) const {
    if (p) Delete(p);
  }
};
template <typename T, void (*Delete)(T *)>
using Owned = std::unique_ptr<T, TfDeleter<T, Delete>>;

using StatusPtr = Owned<TF_Status, TF_DeleteStatus>;
using GraphPtr = Owned<TF_Graph, TF_DeleteGraph>;
using BufferPtr = Owned<TF_Buffer, TF_DeleteBuffer>;
using SessionOptionsPtr = Owned<TF_SessionOptions, TF_DeleteSessionOptions>;
using ImportOptionsPtr = Owned<TF_ImportGraphDefOptions, TF_DeleteImportGraphDefOptions>;
using TensorPtr = Owned<TF_Tensor, TF_DeleteTensor>;

// A session is closed, then deleted; both report into a status nobody can act on any more.
struct SessionDeleter {
  void operator()(TF_Session *s) const {
    if (!s) return;
    StatusPtr st(TF_NewStatus());
    TF_CloseSession(s, st.get());
    TF_DeleteSession(s, st.get());
  }
};
using SessionPtr = std::unique_ptr<TF_Session, SessionDeleter>;

inline StatusPtr new_status() { return StatusPtr(TF_NewStatus()); }

}  // namespace wasinn_tf
