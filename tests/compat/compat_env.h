// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the compatibility tests find things: the wasinn binary, the guests and the backends
// (from the build, by compile definition), the fixtures (env WASINN_FIXTURES, else the default
// of scripts/make_fixtures.py), and the data directory every guest run mounts at /data.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "child_run.h"

namespace wasinn_compat {

namespace fs = std::filesystem;

std::string wasinn_binary();
fs::path backend_dir();
fs::path guest(const std::string& name);  // <guest dir>/<name>.wasm
bool rust_guests_built();                 // false when CMake found no Rust toolchain

// A fixture file; throws with a hint to run make_fixtures.py if it is missing.
fs::path fixture(const std::string& relative);
fs::path fixtures_root();

std::vector<uint8_t> read_bytes(const fs::path& path);
void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes);
template <class T>
std::vector<T> read_array(const fs::path& path) {
  const auto bytes = read_bytes(path);
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// A temporary directory made once per test process and removed at exit, holding:
//   model.onnx, test_x.f32, test_y.u8      the digits fixtures
//   test_x.u8, digits_u8/model.onnx        the same digits as raw u8 pixels and the u8 model
//                                          (u8_front_end.h); digits_u8/ suits -S nn-graph
const fs::path& data_dir();
constexpr float kPixelScale = 1.0f / 16;  // scripts/fixtures/digits.py scales pixels by 1/16

// `wasinn run HOST_ARGS --dir <data_dir>::/data GUEST GUEST_ARGS`
ChildResult run_guest(const std::vector<std::string>& host_args, const std::string& guest_name,
                      const std::vector<std::string>& guest_args);

}  // namespace wasinn_compat
