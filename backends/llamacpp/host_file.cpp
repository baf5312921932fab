// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace wasinn::llamacpp {

Error check_host_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (path.find('\0') != std::string::npos || !std::filesystem::is_regular_file(path, ec))
    return {WASINN_NOT_FOUND, what + " does not exist or is not a regular file"};
  return {};
}

bool read_host_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return in || in.eof();
}

}  // namespace wasinn::llamacpp
