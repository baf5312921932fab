// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "plugins/plugin_library.h"

#include <dlfcn.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <set>
#include <string_view>

#include "base/log.h"

namespace wasinn {
namespace {

// Framework lines are logged one level below the framework's own rating: a failed call
// already reports its detail to the user, so a framework's line is context, shown on request.
// So a default (warn) run shows framework errors only, and --log-level debug shows their info.
spdlog::level::level_enum host_level_of(int32_t plugin_level) {
  switch (plugin_level) {
    case WASINN_LOG_OFF: return spdlog::level::off;
    case WASINN_LOG_ERROR: return spdlog::level::warn;
    case WASINN_LOG_WARN: return spdlog::level::info;
    case WASINN_LOG_INFO: return spdlog::level::debug;
    default: return spdlog::level::trace;
  }
}

spdlog::level::level_enum own_level_of(int32_t plugin_level) {
  switch (plugin_level) {
    case WASINN_LOG_ERROR: return spdlog::level::err;
    case WASINN_LOG_WARN: return spdlog::level::warn;
    case WASINN_LOG_INFO: return spdlog::level::info;
    case WASINN_LOG_DEBUG: return spdlog::level::debug;
    case WASINN_LOG_TRACE: return spdlog::level::trace;
    default: return spdlog::level::off;
  }
}

void write_framework_line(void* tag, int32_t level, const char* message, size_t length) {
  // A backend's own line (sdk::log_own) is shown at its level: one level up from a framework's.
  const bool own = (level & WASINN_LOG_OWN) != 0;
  const auto host_level = own ? own_level_of(level & ~WASINN_LOG_OWN) : host_level_of(level);
  spdlog::logger& out = logger();
  if (!out.should_log(host_level)) return;
  out.log(host_level, "[{}] {}", *static_cast<const std::string*>(tag), std::string_view(message, length));
}

// The lowest plugin level that the current host level shows.
int32_t min_plugin_level() {
  for (int32_t l = WASINN_LOG_TRACE; l < WASINN_LOG_OFF; ++l)
    if (host_level_of(l) >= logger().level()) return l;
  return WASINN_LOG_OFF;
}

void install_log_sink(const wasinn_backend_api& api, const std::string& name) {
  if (!WASINN_PLUGIN_HAS(api, set_log_sink)) return;
  // One tag per backend name for the process, never destroyed: plugins are never unloaded and
  // frameworks log from their own threads and static destructors, so a tag outlives every
  // PluginLibrary (a plugin opened twice keeps the sink it got first). std::set nodes do not move.
  static std::mutex mu;
  static auto* const tags = new std::set<std::string>();
  const std::string* tag = nullptr;
  {
    std::lock_guard lock(mu);
    tag = &*tags->insert(name).first;
  }
  const wasinn_log_sink sink{const_cast<std::string*>(tag), write_framework_line, min_plugin_level()};
  api.set_log_sink(&sink);
}

}  // namespace

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::open(const std::filesystem::path& library,
                                                           std::string_view config_json, BackendFacts facts) {
  // RTLD_LOCAL keeps each framework's symbols to itself (two backends may bundle protobuf).
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return make_error(Errc::unsupported_operation,
                      // dlerror() names the library and the reason (e.g. a missing framework library).
                      why ? std::string(why) : fmt::format("{}: unknown dlopen error", library.string()));
  }
  auto entry = reinterpret_cast<wasinn_backend_entry_fn>(dlsym(handle, WASINN_PLUGIN_ENTRY_SYMBOL));
  if (!entry) {
    return make_error(Errc::unsupported_operation, fmt::format("{} is not a wasinn backend: it lacks {}",
                                                               library.string(), WASINN_PLUGIN_ENTRY_SYMBOL));
  }
  const wasinn_backend_api* api = entry();
  if (!api || api->abi_version != WASINN_PLUGIN_ABI_VERSION) {
    return make_error(Errc::unsupported_operation,
                      fmt::format("{} speaks plugin ABI version {}, this wasinn speaks {}", library.string(),
                                  api ? api->abi_version : 0, WASINN_PLUGIN_ABI_VERSION));
  }
  if (api->struct_size < offsetof(wasinn_backend_api, compute_single) || !api->backend_create || !api->graph_load ||
      !api->context_create || !api->set_input || !api->compute || !api->get_output) {
    return make_error(Errc::unsupported_operation,
                      fmt::format("{} has an incomplete function table", library.string()));
  }
  std::shared_ptr<PluginLibrary> plugin(new PluginLibrary());
  plugin->api_ = api;
  plugin->facts_ = facts;
  plugin->name_ = api->name ? api->name : library.stem().string();
  install_log_sink(*api, plugin->name_);  // first: frameworks may log from any call
  plugin->framework_version_ = api->framework_version ? api->framework_version() : "unknown";
  PluginDiag diag;
  const int status = api->backend_create(config_json.empty() ? nullptr : config_json.data(), config_json.size(),
                                         &plugin->backend_, diag.get());
  if (status != WASINN_OK) return diag.to_error(status, fmt::format("starting backend {}", plugin->name_));
  return plugin;
}

PluginLibrary::~PluginLibrary() {
  if (backend_ && api_->backend_destroy) api_->backend_destroy(backend_);
}

std::string PluginLibrary::description() const {
  if (!backend_ || !WASINN_PLUGIN_HAS(*api_, backend_description)) return "";
  const char* words = api_->backend_description(backend_);
  return words ? words : "";
}

std::vector<BackendDevice> PluginLibrary::devices() const {
  std::vector<BackendDevice> out;
  if (!backend_ || !WASINN_PLUGIN_HAS(*api_, backend_device_info)) return out;
  const size_t count = api_->backend_device_count(backend_);
  for (size_t i = 0; i < count; ++i) {
    wasinn_device d{};
    if (api_->backend_device_info(backend_, i, &d) != WASINN_OK) continue;
    BackendDevice device{d.name ? d.name : "", d.api ? d.api : "", d.memory_bytes, Target::cpu};
    if (d.target >= WASINN_TARGET_CPU && d.target <= WASINN_TARGET_AUTO) device.target = static_cast<Target>(d.target);
    out.push_back(std::move(device));
  }
  return out;
}

Status PluginLibrary::check_model_spec(std::string_view spec) const {
  if (!backend_ || !WASINN_PLUGIN_HAS(*api_, model_spec_check)) return {};
  PluginDiag diag;
  const int status = api_->model_spec_check(backend_, spec.data(), spec.size(), diag.get());
  if (status != WASINN_OK) return diag.to_error(status, "model_spec_check");
  return {};
}

std::string PluginLibrary::target_unavailable(Target target) const {
  if (!backend_ || !WASINN_PLUGIN_HAS(*api_, backend_target_unavailable)) return "";
  const char* why = api_->backend_target_unavailable(backend_, static_cast<int32_t>(target));
  return why ? why : "";
}

}  // namespace wasinn
