// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Linked into every isolation test program: $XDG_CACHE_HOME points at a fresh temporary
// directory for the whole process (and the wasinn children it starts), so remembered verdicts
// of isolated loads never go to the real ~/.cache, and every test process starts with none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace {

class TempCacheHome : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "wasinn-cache-home-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::filesystem::path dir_;
};

// Registered before main: gtest_main runs every registered environment's SetUp first.
[[maybe_unused]] ::testing::Environment* const registered = ::testing::AddGlobalTestEnvironment(new TempCacheHome);

}  // namespace
