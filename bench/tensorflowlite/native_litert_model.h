// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NativeLiteRtModel: the native side of the TensorFlow Lite benchmark. It compiles the .tflite
// file with the LiteRT C API on the CPU accelerator (LiteRT's default options, as the plugin
// uses), wraps the caller's input and its own output memory as tensor buffers once, and runs:
// the leanest loop a native program can write against the same libLiteRt.so.
//
// Not thread-safe: one thread drives one model.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wasinn::bench {

class NativeLiteRtModel {
 public:
  static std::unique_ptr<NativeLiteRtModel> open(const std::string& path, std::string* error);
  ~NativeLiteRtModel();

  // Call once, before run(): copies `data` into a 64-byte aligned buffer for input 0 of shape
  // `dims` (resizing a dynamic input) and sizes output 0's buffer to match.
  bool set_input(std::span<const uint8_t> data, const std::vector<uint32_t>& dims, std::string* error);
  bool run(std::string* error);
  std::span<const uint8_t> output_bytes() const;

 private:
  NativeLiteRtModel();
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace wasinn::bench
