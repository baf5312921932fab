// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A context's copy of an input, and the buffers of ended contexts that a graph keeps for its next
// ones: a server's guest makes a context per request, and a fresh buffer above glibc's mmap
// threshold (which `wasinn serve` fixes at 128 KiB) is mapped, faulted in page by page and
// unmapped every time. Thread-safe (contexts of one graph end on any thread).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace wasinn::onnxruntime {

// Host memory for one input, 64-byte aligned so ORT's vectorised kernels read it at full speed.
struct AlignedFree {
  void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using AlignedBytes = std::unique_ptr<std::byte[], AlignedFree>;

struct InputBuffer {
  AlignedBytes bytes;
  size_t capacity = 0;  // bytes allocated

  // At least `need` bytes (at least one, so an empty tensor still has an address for ORT).
  static InputBuffer allocate(size_t need);
};

class SpareInputBuffers {
 public:
  // A kept buffer that holds `need` bytes without more than doubling them (a small input must
  // not pin a large buffer), else a new one.
  InputBuffer take(size_t need);
  // Kept while the spares stay under kMaxKeptBytes, else freed.
  void give(InputBuffer buffer);

  static constexpr size_t kMaxKeptBytes = size_t{16} << 20;

 private:
  std::mutex mu_;
  std::vector<InputBuffer> kept_;
  size_t kept_bytes_ = 0;
};

}  // namespace wasinn::onnxruntime
