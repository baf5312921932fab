// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a graph's properties are gathered at load: the host's facts, then the plugin's
// (backend_plugin.h's graph_property_*). The rules of reading and setting them are Graph's and
// ExecutionContext's (graph.h), defined in graph_properties.cpp.
#pragma once

#include <string>
#include <vector>

#include "core/backend_ports.h"
#include "core/graph.h"
#include "core/types.h"

namespace wasinn {

// backend, framework-version, encoding and device (the plugin's "device" fact, else "cpu"),
// then the plugin's other facts, then its settable knobs.
std::vector<GraphProperty> query_properties(const LoadedBackend& plugin, const wasinn_graph* graph, Encoding encoding);
// The device fact of query_properties' answer: where the graph runs, e.g. "cpu".
std::string device_of(const std::vector<GraphProperty>& properties);

}  // namespace wasinn
