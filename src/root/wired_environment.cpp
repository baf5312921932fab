// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "root/wired_environment.h"

#include <utility>

namespace wasinn {

WiredEnvironment wire_environment(EnvironmentOptions options) {
  WiredEnvironment w;
  w.catalog = std::make_shared<BackendCatalog>(
      options.backend_dirs.empty() ? BackendCatalog::default_dirs() : options.backend_dirs, options.backend_configs);
  w.isolation = std::make_shared<IsolatedLoadChecker>(std::move(options.isolation), w.catalog->dirs(),
                                                      std::move(options.backend_configs));
  w.env = std::make_shared<NnEnvironment>(options.limits, w.catalog, w.isolation);
  return w;
}

}  // namespace wasinn
