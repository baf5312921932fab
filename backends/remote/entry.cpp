// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin's exported entry point: the SDK builds the C table from RemoteBackend, RemoteGraph
// and RemoteContext.
#include "backend.h"
#include "context.h"
#include "graph.h"

static_assert(wasinn::sdk::Cancellable<wasinn::remote::RemoteContext>);

WASINN_PLUGIN_DEFINE(wasinn::remote::RemoteBackend)
