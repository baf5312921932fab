// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/install_layout.h"

#include <dlfcn.h>
#include <link.h>

#include <system_error>

// Relative paths between the install's bin/ and <libdir>/ (GNUInstallDirs may make libdir
// lib64 or lib/<multiarch>); the build tree always uses bin/ and lib/.
#ifndef WASINN_BINDIR_TO_LIBDIR
#define WASINN_BINDIR_TO_LIBDIR "../lib"
#endif
#ifndef WASINN_LIBDIR_TO_BINDIR
#define WASINN_LIBDIR_TO_BINDIR "../bin"
#endif

namespace wasinn {
namespace fs = std::filesystem;
namespace {

struct CodeFile {
  fs::path path;
  bool executable = false;
};

// Not /proc/self/exe alone: an embedder's program lives anywhere, libwasinn.so does not.
CodeFile code_file() {
  Dl_info info{};
  link_map* map = nullptr;
  std::error_code ec;
  if (dladdr1(reinterpret_cast<void*>(&wasinn_libdir), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) && map &&
      map->l_name && *map->l_name) {
    return {fs::absolute(map->l_name, ec), false};
  }
  // The main program's link map has no name (and dladdr would answer argv[0]).
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return {exe, true};
}

// The first of two relative placements that exists (the install's, then the build tree's).
fs::path first_existing(const fs::path& dir, const char* installed, const char* build_tree) {
  std::error_code ec;
  const fs::path a = (dir / installed).lexically_normal();
  if (fs::is_directory(a, ec)) return a;
  return (dir / build_tree).lexically_normal();
}

}  // namespace

fs::path wasinn_libdir() {
  const CodeFile code = code_file();
  if (code.path.empty()) return {};
  if (!code.executable) return code.path.parent_path();
  return first_existing(code.path.parent_path(), WASINN_BINDIR_TO_LIBDIR, "../lib");
}

fs::path wasinn_bindir() {
  const CodeFile code = code_file();
  if (code.path.empty()) return {};
  if (code.executable) return code.path.parent_path();
  return first_existing(code.path.parent_path(), WASINN_LIBDIR_TO_BINDIR, "../bin");
}

}  // namespace wasinn
