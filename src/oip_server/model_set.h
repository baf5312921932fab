// ModelSet: the models an OIP server answers for (every model registered in the process's
// NnEnvironment: --nn-preload, -S nn-graph, --nn-remote, the config file, --model-repository),
// found by name and version, and the admission every inference passes: at most `workers`
// compute at once and `max_queue` wait; past that the answer is 503/UNAVAILABLE at once, as
// `wasinn serve` answers a full queue. Thread-safe.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/nn_environment.h"
#include "oip_server/served_model.h"

namespace wasinn::oip_server {

struct ModelSetOptions {
  size_t workers = 1;
  size_t max_queue = 64;
  // Versions and graph configs of --model-repository's models, by name; others are version "1"
  // with no config.
  std::map<std::string, std::pair<std::string, std::string>> repository;
};

class ModelSet {
 public:
  ModelSet(std::shared_ptr<NnEnvironment> env, ModelSetOptions options);

  // Loads every model; the first that fails is the error (a remote one is only a warning,
  // left unavailable: its server may come up later, and a load makes it ready then).
  Status load_all();

  // The model by name and version ("" any): not_found (404) when there is none, busy (503)
  // when it is not ready.
  Result<std::shared_ptr<ServedModel>> find(std::string_view name, std::string_view version, bool need_ready) const;
  std::vector<std::shared_ptr<ServedModel>> all() const;
  bool all_ready() const;

  Status load(std::string_view name);
  Status unload(std::string_view name);

  // Holds a worker for one inference; false when workers and queue are both full.
  class Slot {
   public:
    explicit Slot(ModelSet* set) : set_(set) {}
    Slot(Slot&& o) noexcept : set_(std::exchange(o.set_, nullptr)) {}
    ~Slot();
   private:
    ModelSet* set_;
  };
  std::optional<Slot> admit();

  struct Gauges {
    uint64_t running = 0, queued = 0, rejected = 0;
  };
  Gauges gauges() const;

 private:
  std::shared_ptr<NnEnvironment> env_;
  ModelSetOptions options_;
  std::map<std::string, std::shared_ptr<ServedModel>, std::less<>> models_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  size_t running_ = 0, queued_ = 0;
  uint64_t rejected_ = 0;
};

}  // namespace wasinn::oip_server
