// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where wasinn's own files are, found from the file this code was loaded from: libwasinn.so
// for an embedder (in any directory), or the executable (wasinn, wasinn-load-check, tests)
// that links the core statically. The build tree and an installed prefix share the layout
// bin/, <libdir>/, <libdir>/wasinn/backends/ (cmake/WasinnInstall.cmake).
#pragma once

#include <filesystem>

namespace wasinn {

// <libdir>: libwasinn.so's own directory, or <executable dir>/../<libdir>. Empty if unknown.
std::filesystem::path wasinn_libdir();
// bin/: the executable's directory, or <libwasinn dir>/../bin. Empty if unknown.
std::filesystem::path wasinn_bindir();

}  // namespace wasinn
