// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The wasi-nn environment a Host serves guests from (backend catalog, limits, load isolation,
// named models), built from HostOptions: the composition root that both the engine's Host and
// `serve --oip-*` (which runs no engine) build it with.
#pragma once

#include <memory>

#include "core/error.h"
#include "root/wired_environment.h"
#include "wasinn/host_options.h"

namespace wasinn {

// Takes options.backend_configs. An invalid option (a bad preload, an unknown isolation mode)
// is an error naming it.
Result<WiredEnvironment> make_environment(HostOptions& options);

}  // namespace wasinn
