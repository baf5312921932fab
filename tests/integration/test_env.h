// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the integration tests find their inputs: the wasinn binary, the guests, the backend
// plugins (all from the build, by compile definition) and the generated fixtures (env
// WASINN_FIXTURES, else the default made by scripts/make_fixtures.py). Also the few file
// helpers every test needs.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.h"

namespace wasinn_it {

namespace fs = std::filesystem;

std::string wasinn_binary();
std::string guest(const std::string& name);  // "nn_error_paths" -> <guest dir>/nn_error_paths.wasm
fs::path backend_dir();                      // the build's lib/wasinn/backends
fs::path ort_library_dir();                  // where libonnxruntime.so.1 lives

// A fixture file or directory; throws with a hint to run make_fixtures.py if it is missing.
fs::path fixture(const std::string& relative);

std::vector<uint8_t> read_bytes(const fs::path& path);
void write_bytes(const fs::path& path, const void* data, size_t size);
void write_text(const fs::path& path, const std::string& text);
template <class T>
std::vector<T> read_array(const fs::path& path) {
  const auto bytes = read_bytes(path);
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// Runs `wasinn ARGS...` with a timeout; the child inherits the test's environment except
// WASINN_BACKEND_PATH.
ChildResult run_wasinn(const std::vector<std::string>& args, const ChildOptions& options = {});

// `--backend-config onnxruntime={"intra_op_threads":1}`: the thread setting the native
// reference runs use, so results can be compared bit for bit.
std::vector<std::string> single_thread_ort();

// One thread and no graph optimizations: for tests that need mobilenet's compute to outlast a
// budget of a few ms. It takes 80+ ms here; optimized, a fast CI machine once finished it in 5.
std::vector<std::string> slow_ort();

}  // namespace wasinn_it
