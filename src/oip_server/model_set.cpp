#include "oip_server/model_set.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/log.h"

namespace wasinn::oip_server {

ModelSet::ModelSet(std::shared_ptr<NnEnvironment> env, ModelSetOptions options)
    : env_(std::move(env)), options_(std::move(options)) {
  if (options_.workers == 0) options_.workers = 1;
  for (const NamedModel& m : env_->models().list()) {
    std::string version = "1", config;
    if (auto it = options_.repository.find(m.name); it != options_.repository.end()) {
      version = it->second.first;
      config = it->second.second;
    }
    // Idle contexts kept: one per worker is what the workers can use at once.
    models_[m.name] = std::make_shared<ServedModel>(env_, m.name, version, config, options_.workers);
  }
}

Status ModelSet::load_all() {
  for (const NamedModel& m : env_->models().list()) {
    Status loaded = models_.at(m.name)->load();
    if (loaded) continue;
    if (m.encoding == Encoding::remote) {
      logger().warn("model '{}' (remote) is not ready: {}", m.name, loaded.error().detail);
      continue;
    }
    Error e = loaded.take_error();
    e.detail = fmt::format("model '{}': {}", m.name, e.detail);
    return e;
  }
  return {};
}

Result<std::shared_ptr<ServedModel>> ModelSet::find(std::string_view name, std::string_view version,
                                                    bool need_ready) const {
  auto it = models_.find(name);
  if (it == models_.end()) return make_error(Errc::not_found, fmt::format("unknown model '{}'", name));
  if (!version.empty() && version != it->second->version())
    return make_error(Errc::not_found, fmt::format("model '{}' has no version '{}' (it serves version {})", name,
                                                   version, it->second->version()));
  if (need_ready && !it->second->ready())
    return make_error(Errc::busy, fmt::format("model '{}' is not ready ({})", name, it->second->state_reason()));
  return it->second;
}

std::vector<std::shared_ptr<ServedModel>> ModelSet::all() const {
  std::vector<std::shared_ptr<ServedModel>> out;
  for (const auto& [name, m] : models_) out.push_back(m);
  return out;
}

bool ModelSet::all_ready() const {
  for (const auto& [name, m] : models_)
    if (!m->ready()) return false;
  return true;
}

Status ModelSet::load(std::string_view name) {
  auto m = find(name, "", false);
  if (!m) return m.take_error();
  return (*m)->load();
}

Status ModelSet::unload(std::string_view name) {
  auto m = find(name, "", false);
  if (!m) return m.take_error();
  (*m)->unload();
  return {};
}

std::optional<ModelSet::Slot> ModelSet::admit() {
  std::unique_lock lock(mu_);
  if (running_ >= options_.workers && queued_ >= options_.max_queue) {
    ++rejected_;
    return std::nullopt;
  }
  ++queued_;
  cv_.wait(lock, [&] { return running_ < options_.workers; });
  --queued_;
  ++running_;
  return Slot(this);
}

ModelSet::Slot::~Slot() {
  if (!set_) return;
  {
    std::lock_guard lock(set_->mu_);
    --set_->running_;
  }
  set_->cv_.notify_one();
}

ModelSet::Gauges ModelSet::gauges() const {
  std::lock_guard lock(mu_);
  return {running_, queued_, rejected_};
}

}  // namespace wasinn::oip_server
