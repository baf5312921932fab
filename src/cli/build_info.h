// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What this wasinn binary was built from: the commit and the frameworks' versions,
// for `wasinn --version`. The definition is generated at every build (cmake/BuildInfo.cmake).
#pragma once

#include <string>
#include <vector>

namespace wasinn_cli {

struct BuildInfo {
  std::string commit;                   // short hash, "... with uncommitted changes", or "unknown ..."
  std::vector<std::string> frameworks;  // "onnxruntime: ONNX Runtime 1.29.0", one per plugin built
};

const BuildInfo& build_info();

}  // namespace wasinn_cli
