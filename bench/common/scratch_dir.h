// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ScratchDir: a fresh temporary directory, removed with everything in it when the object dies.
// Benchmarks map it into the guest for input and output files. Not copyable; one owner.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace wasinn::bench {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "wasinn-bench-XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;  // best effort: a leftover temp dir is no reason to fail a run
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace wasinn::bench
