// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/graph_properties.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/near_names.h"
#include "core/plugin_call.h"

namespace wasinn {

std::vector<GraphProperty> query_properties(const LoadedBackend& plugin, const wasinn_graph* graph, Encoding encoding) {
  std::vector<GraphProperty> own, settable;
  std::string device = "cpu";
  const auto& api = plugin.api();
  if (WASINN_PLUGIN_HAS(api, graph_property_count) && WASINN_PLUGIN_HAS(api, graph_property_info)) {
    const size_t n = api.graph_property_count(graph);
    for (size_t i = 0; i < n; ++i) {
      wasinn_property p{};
      if (api.graph_property_info(graph, i, &p) != WASINN_OK || !p.name || !*p.name) continue;
      GraphProperty prop{p.name, p.value ? p.value : "", p.settable != 0};
      if (!prop.settable && prop.name == "device") {
        device = prop.value;
        continue;
      }
      (prop.settable ? settable : own).push_back(std::move(prop));
    }
  }
  std::vector<GraphProperty> out{{"backend", plugin.name(), false},
                                 {"framework-version", plugin.framework_version(), false},
                                 {"encoding", std::string(encoding_name(encoding)), false},
                                 {"device", device, false}};
  // A plugin's fact never hides the host's of the same name.
  for (auto* part : {&own, &settable}) {
    for (auto& p : *part) {
      const bool taken = std::any_of(out.begin(), out.end(), [&](const GraphProperty& q) { return q.name == p.name; });
      if (!taken) out.push_back(std::move(p));
    }
  }
  return out;
}

std::string device_of(const std::vector<GraphProperty>& properties) {
  for (const auto& p : properties) {
    if (p.name == "device") return p.value;
  }
  return "cpu";
}

Result<const GraphProperty*> Graph::property(std::string_view name) const {
  for (const auto& p : properties_) {
    if (p.name == name) return &p;
  }
  std::vector<std::string> names;
  names.reserve(properties_.size());
  for (const auto& p : properties_) names.push_back(p.name);
  return make_error(Errc::invalid_argument,
                    fmt::format("graph has no property '{}'{} ({} properties: list them to see which)", name,
                                did_you_mean(name, names), properties_.size()));
}

Status Graph::apply_setting(wasinn_context* context, std::string_view name, std::string_view value) const {
  auto p = property(name);
  if (!p) return p.take_error();
  if (!(*p)->settable) {
    return make_error(Errc::invalid_argument, fmt::format("property '{}' is read-only", name));
  }
  const auto& api = plugin_->api();
  if (!WASINN_PLUGIN_HAS(api, property_set)) {
    return make_error(Errc::invalid_argument, fmt::format("property '{}' cannot be set on this backend", name));
  }
  PluginDiag diag;
  const int status = call_plugin(plugin_->name(), "property_set", [&] {
    return api.property_set(handle_, context, name.data(), name.size(), value.data(), value.size(), diag.get());
  });
  if (status != WASINN_OK) return diag.to_error(status, fmt::format("set property '{}'", name));
  return {};
}

Status Graph::check_setting(std::string_view name, std::string_view value) const {
  return apply_setting(nullptr, name, value);
}

Status ExecutionContext::set_property(std::string_view name, std::string_view value) {
  return graph_->apply_setting(handle_, name, value);
}

void ExecutionContext::set_cache_partition(std::string_view partition) {
  const auto& api = graph_->plugin_->api();
  if (!WASINN_PLUGIN_HAS(api, property_set)) return;
  PluginDiag diag;
  const std::string_view name = WASINN_PROPERTY_CACHE_PARTITION;
  (void)api.property_set(graph_->handle_, handle_, name.data(), name.size(), partition.data(), partition.size(),
                         diag.get());
}

}  // namespace wasinn
