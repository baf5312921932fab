// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/model_set.h"

#include <algorithm>
#include <chrono>
#include <future>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/log.h"
#include "serve/oip/graph_scheduler.h"
#include "serve/oip/pipeline_scheduler.h"

namespace wasinn::oip_server {

ModelSet::ModelSet(std::shared_ptr<NnEnvironment> env, ModelSetOptions options)
    : env_(std::move(env)), options_(std::move(options)), admission_(options_.workers, options_.max_queue) {
  if (options_.workers == 0) options_.workers = 1;
  for (const NamedModel& m : env_->models().list()) {
    std::string version = "1", config;
    if (auto it = options_.repository.find(m.name); it != options_.repository.end()) {
      version = it->second.version;
      config = it->second.config;
    }
    BatchingOptions batching;
    if (auto b = options_.batching.find(m.name); b != options_.batching.end()) {
      batching = b->second;
      batching.max_input_bytes = env_->limits().max_tensor_bytes;  // a batch's input is one tensor
    }
    // Idle contexts kept: one per worker is what the workers can use at once.
    models_[m.name] = std::make_shared<ServedModel>(m.name, version, [&](SchedulerHost& model) {
      return std::make_unique<GraphScheduler>(model, env_, m.name, config, options_.workers, batching);
    });
  }
  for (const auto& [name, pipeline] : options_.pipelines) {
    auto it = options_.repository.find(name);
    models_[name] = std::make_shared<ServedModel>(
        name, it == options_.repository.end() ? "1" : it->second.version,
        // Init-captures: clang before 16 cannot capture a structured binding (the sanitizer trees' clang-14).
        [name = name, pipeline = pipeline](SchedulerHost&) {
          return std::make_unique<PipelineScheduler>(name, pipeline);
        });
  }
  std::lock_guard lock(mu_);
  idle_ = options_.workers;
  for (size_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

ModelSet::~ModelSet() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ModelSet::work() {
  set_thread_wait_listener(this);
  std::unique_lock lock(mu_);
  for (;;) {
    // Every job here holds a place of the admission: a thread only runs it.
    cv_.wait(lock, [&] { return !ready_.empty() || stopping_; });
    --idle_;
    if (ready_.empty()) return;  // stopping, and nothing left
    std::function<void()> job = std::move(ready_.front());
    ready_.pop_front();
    ++running_;
    lock.unlock();
    job();
    admission_.leave();  // the next waiter's grant hands its job to ready_
    lock.lock();
    --running_;
    ++idle_;
  }
}

void ModelSet::start(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    ready_.push_back(std::move(job));
    start_threads_locked();
  }
  cv_.notify_one();
}

void ModelSet::waiting() {
  // Its place goes to a waiter, whose job may need a thread of its own.
  admission_.pause();
}

void ModelSet::resumed() { admission_.resume(); }

void ModelSet::start_threads_locked() {
  // Spare threads stay for later waits; bounded, past that a job waits for a thread as before.
  const size_t most = options_.workers * 2 + options_.max_queue;
  while (!stopping_ && idle_ < ready_.size() && workers_.size() < most) {
    ++idle_;  // counted from now, so that a second call does not start another for the same job
    workers_.emplace_back([this] { work(); });
  }
}

bool ModelSet::run(const std::function<void(uint64_t)>& job) {
  const auto queued = std::chrono::steady_clock::now();
  // Shared: the worker still holds the promise while it wakes this thread.
  auto done = std::make_shared<std::promise<bool>>();
  std::future<bool> finished = done->get_future();
  auto run_job = [&job, done, queued] {
    job(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - queued).count()));
    done->set_value(true);
  };
  switch (admission_.enter([this, run_job, done](bool admitted) {
    if (admitted)
      start(run_job);
    else
      done->set_value(false);
  })) {
    case Admission::Entry::refused: return false;
    case Admission::Entry::admitted: start(run_job); break;
    case Admission::Entry::queued: break;
  }
  return finished.get();
}

Status ModelSet::load_all() {
  for (const NamedModel& m : env_->models().list()) {
    Status loaded = models_.at(m.name)->load();
    if (loaded) {
      // A config.pbtxt's inputs and outputs are the model's, or the start stops, as Triton's does.
      auto entry = options_.repository.find(m.name);
      if (entry == options_.repository.end() || !entry->second.triton_io) continue;
      const ModelConfigInfo served = models_.at(m.name)->config();
      if (Status same = check_triton_io(*entry->second.triton_io, served, served.max_batch_size > 0); !same) {
        Error e = same.take_error();
        e.detail = fmt::format("model '{}': {}", m.name, e.detail);
        return e;
      }
      continue;
    }
    if (m.encoding == Encoding::remote) {
      logger().warn("model '{}' (remote) is not ready: {}", m.name, loaded.error().detail);
      continue;
    }
    Error e = loaded.take_error();
    e.detail = fmt::format("model '{}': {}", m.name, e.detail);
    return e;
  }
  for (const auto& [name, pipeline] : options_.pipelines)
    if (Status loaded = models_.at(name)->load(); !loaded) return loaded;
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

ModelSet::Gauges ModelSet::gauges() const {
  const Admission::Gauges admission = admission_.gauges();
  std::lock_guard lock(mu_);
  return {running_, admission.queued + ready_.size(), admission.refused};
}

}  // namespace wasinn::oip_server
