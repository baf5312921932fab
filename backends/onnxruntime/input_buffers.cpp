// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "input_buffers.h"

#include <utility>

namespace wasinn::onnxruntime {

InputBuffer InputBuffer::allocate(size_t need) {
  const size_t cap = need ? need : 1;
  return {AlignedBytes(static_cast<std::byte*>(::operator new[](cap, std::align_val_t{64}))), cap};
}

InputBuffer SpareInputBuffers::take(size_t need) {
  {
    std::lock_guard lock(mu_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->capacity < need || it->capacity / 2 > need) continue;
      InputBuffer found = std::move(*it);
      kept_.erase(it);
      kept_bytes_ -= found.capacity;
      return found;
    }
  }
  return InputBuffer::allocate(need);
}

void SpareInputBuffers::give(InputBuffer buffer) {
  if (!buffer.bytes) return;
  std::lock_guard lock(mu_);
  if (kept_bytes_ + buffer.capacity > kMaxKeptBytes) return;  // freed as it goes out of scope
  kept_bytes_ += buffer.capacity;
  kept_.push_back(std::move(buffer));
}

}  // namespace wasinn::onnxruntime
