// Test data shared by the pytorch backend tests: the fixture directory, raw tensors on the host
// (HostTensor), and scratch directories for guest runs.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "wasinn/backend_plugin.h"

namespace torch_test {

inline std::filesystem::path fixtures_dir() {
  if (const char *env = std::getenv("WASINN_FIXTURES"); env && *env) return env;
#ifdef WASINN_FIXTURES_DEFAULT
  return WASINN_FIXTURES_DEFAULT;
#else
  const char *home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/wasinn/fixtures";
#endif
}

inline std::vector<uint8_t> read_file(const std::filesystem::path &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path &path, const std::vector<uint8_t> &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << "cannot write " << path;
}

// A missing fixture fails the test (not skips): it is a broken setup, fixed by running
// scripts/make_fixtures.py.
inline std::vector<uint8_t> read_fixture(const std::string &rel) {
  const auto path = fixtures_dir() / rel;
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "missing fixture " << path
                  << " (generate with scripts/make_fixtures.py or set WASINN_FIXTURES)";
    return {};
  }
  return read_file(path);
}

// A dense row-major tensor held by the test: what goes into set_input, what a guest writes to a
// file, what native libtorch returns.
struct HostTensor {
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn_tensor_type
  std::vector<uint32_t> dims;
  std::vector<uint8_t> bytes;
  std::string name;  // dict key of a native output, else ""

  template <typename T>
  std::vector<T> as() const {
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
  }
};

template <typename T>
HostTensor make_tensor(int32_t type, std::vector<uint32_t> dims, const std::vector<T> &values) {
  HostTensor t;
  t.type = type;
  t.dims = std::move(dims);
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

// A fresh directory under the system temp dir, removed with its contents at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "wasinn-torch-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) ADD_FAILURE() << "mkdtemp failed";
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  const std::filesystem::path &path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace torch_test
