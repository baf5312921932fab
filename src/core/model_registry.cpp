// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/model_registry.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/mapped_file.h"
#include "core/model_memory.h"
#include "base/log.h"
#include "base/near_names.h"

namespace wasinn {

Result<NamedModel> parse_preload_spec(std::string_view spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = spec.find(':', start);
    parts.emplace_back(spec.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 4 || parts[0].empty()) {
    return make_error(Errc::invalid_argument, "expected NAME:ENCODING:TARGET:PATH[:PATH...]");
  }
  NamedModel m;
  m.name = parts[0];
  auto enc = parse_encoding(parts[1]);
  if (!enc) {
    return make_error(Errc::invalid_encoding,
                      fmt::format("unknown encoding '{}' (openvino, onnx, tensorflow, pytorch, tensorflowlite, "
                                  "ggml, autodetect)",
                                  parts[1]));
  }
  auto target = parse_target(parts[2]);
  if (!target) {
    return make_error(Errc::invalid_argument, fmt::format("unknown target '{}' (cpu, gpu, tpu, auto)", parts[2]));
  }
  m.encoding = *enc;
  m.target = *target;
  if (m.encoding == Encoding::remote) {
    // The spec is the rest of the text, colons and all; it is not echoed (it may hold a token).
    size_t at = 0;
    for (int i = 0; i < 3; ++i) at = spec.find(':', at) + 1;
    m.remote_spec = std::string(spec.substr(at));
    if (m.remote_spec.empty()) {
      return make_error(Errc::invalid_argument, "a remote model needs a URL");
    }
    return m;
  }
  for (size_t i = 3; i < parts.size(); ++i) {
    if (parts[i].empty()) return make_error(Errc::invalid_argument, "empty path");
    m.paths.emplace_back(parts[i]);
  }
  return m;
}

Result<NamedModel> parse_wasmtime_graph_spec(std::string_view spec) {
  const size_t sep = spec.find("::");
  if (sep == std::string_view::npos || sep == 0 || sep + 2 >= spec.size()) {
    return make_error(Errc::invalid_argument, "expected ENCODING::DIR");
  }
  auto enc = parse_encoding(spec.substr(0, sep));
  if (!enc || *enc == Encoding::autodetect) {
    return make_error(Errc::invalid_encoding, fmt::format("unknown encoding '{}'", spec.substr(0, sep)));
  }
  std::filesystem::path dir(std::string(spec.substr(sep + 2)));
  NamedModel m;
  m.encoding = *enc;
  m.target = Target::cpu;  // as Wasmtime: named graphs are compiled for the CPU
  m.name = dir.lexically_normal().filename().string();
  if (m.name.empty()) m.name = dir.lexically_normal().parent_path().filename().string();
  if (m.name.empty() || m.name == "." || m.name == "..") {
    return make_error(Errc::invalid_argument, "DIR has no base name");
  }
  switch (*enc) {
    case Encoding::openvino: m.paths = {dir / "model.xml", dir / "model.bin"}; break;
    case Encoding::onnx: m.paths = {dir / "model.onnx"}; break;
    case Encoding::pytorch: m.paths = {dir / "model.pt"}; break;
    case Encoding::tensorflowlite: m.paths = {dir / "model.tflite"}; break;
    case Encoding::ggml: m.paths = {dir / "model.gguf"}; break;
    case Encoding::whisper: m.paths = {dir / "model.bin"}; break;
    case Encoding::piper: m.paths = {dir / "model.onnx"}; break;  // its config: model.onnx.json
    default: m.paths = {dir}; break;
  }
  return m;
}

std::string_view model_state_name(ModelState state) {
  switch (state) {
    case ModelState::unloaded: return "unloaded";
    case ModelState::loading: return "loading";
    case ModelState::loaded: return "loaded";
  }
  return "unloaded";
}

Status ModelRegistry::add(NamedModel model) {
  std::lock_guard lock(mu_);
  if (entries_.count(model.name)) {
    return make_error(Errc::invalid_argument, fmt::format("model name '{}' is registered twice", model.name));
  }
  auto entry = std::make_unique<Entry>();
  if (model.encoding != Encoding::remote) entry->estimated_bytes = estimate_model_memory(model.paths).total();
  entry->model = model;
  entries_.emplace(model.name, std::move(entry));
  return {};
}

bool ModelRegistry::contains(std::string_view name) const {
  std::lock_guard lock(mu_);
  return entries_.find(name) != entries_.end();
}

std::vector<NamedModel> ModelRegistry::list() const {
  std::lock_guard lock(mu_);
  std::vector<NamedModel> out;
  for (const auto& [name, e] : entries_) out.push_back(e->model);
  return out;
}

ModelRegistry::~ModelRegistry() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (idle_thread_.joinable()) idle_thread_.join();
}

void ModelRegistry::set_residency(ModelResidency residency) {
  std::lock_guard lock(mu_);
  residency_ = residency;
  if (residency_.idle_timeout.count() > 0 && !idle_thread_.joinable())
    idle_thread_ = std::thread([this] { unload_idle_loop(); });
}

ModelRegistry::Entry* ModelRegistry::find(std::string_view name, Error* missing) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(name);
  if (it != entries_.end()) return it->second.get();  // entries are never removed: the pointer stays valid
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e.first);
  const std::string near = did_you_mean(name, names);
  *missing = make_error(Errc::not_found, near.empty()
                                             ? fmt::format("no model named '{}' is registered (use --nn-preload)", name)
                                             : fmt::format("no model named '{}' is registered{}", name, near));
  return nullptr;
}

namespace {

// A graph is held outside the registry by a guest's handle or a context (which holds its graph).
bool held_outside(const std::shared_ptr<Graph>& graph) { return graph && graph.use_count() > 1; }

}  // namespace

std::vector<ModelStatus> ModelRegistry::statuses() const {
  std::vector<ModelStatus> out;
  std::lock_guard lock(mu_);
  for (const auto& [name, e] : entries_) {
    ModelStatus status{name, e->state, e->model.on_demand, false, e->estimated_bytes};
    if (!e->model.on_demand) {
      // Loaded at start and kept; the graph is read under its own lock, not taken while it loads.
      std::unique_lock load_lock(e->load_mu, std::try_to_lock);
      status.state = !load_lock.owns_lock() ? ModelState::loading
                     : e->default_graph     ? ModelState::loaded
                                            : ModelState::unloaded;
      if (load_lock.owns_lock()) status.in_use = held_outside(e->default_graph);
    } else if (std::unique_lock load_lock(e->load_mu, std::try_to_lock); load_lock.owns_lock()) {
      status.in_use = held_outside(e->default_graph);
    }
    out.push_back(std::move(status));
  }
  return out;
}

bool ModelRegistry::unload_if_idle(Entry& entry, std::string_view reason) {
  std::unique_lock load_lock(entry.load_mu, std::try_to_lock);
  if (!load_lock.owns_lock() || !entry.default_graph || held_outside(entry.default_graph)) return false;
  std::shared_ptr<Graph> graph;
  {
    std::lock_guard lock(mu_);
    if (entry.state != ModelState::loaded) return false;
    graph = std::move(entry.default_graph);
    entry.default_graph.reset();
    entry.state = ModelState::unloaded;
  }
  graph.reset();  // the framework frees the model here, with the registry's lock free
  logger().info("model '{}' unloaded ({})", entry.model.name, reason);
  return true;
}

Status ModelRegistry::unload(std::string_view name, std::string_view reason) {
  Error missing{Errc::not_found, {}};
  Entry* entry = find(name, &missing);
  if (!entry) return missing;
  if (!entry->model.on_demand)
    return make_error(Errc::invalid_argument,
                      fmt::format("model '{}' is loaded at the server's start and kept: only models loaded on "
                                  "demand are unloaded",
                                  name));
  {
    std::lock_guard lock(mu_);
    if (entry->state == ModelState::unloaded) return {};
    if (entry->state == ModelState::loading)
      return make_error(Errc::busy, fmt::format("model '{}' is loading: unload it once it has loaded", name));
  }
  if (unload_if_idle(*entry, reason)) return {};
  {
    std::lock_guard lock(mu_);
    if (entry->state == ModelState::unloaded) return {};
  }
  return make_error(Errc::busy, fmt::format("model '{}' is in use by a request: unload it once that has ended", name));
}

Status ModelRegistry::reserve(Entry& entry) {
  // A model whose lock another request holds for a moment (handing out its loaded graph) is not
  // taken for one in use at the first try: a few short waits, then the refusal.
  constexpr int kTries = 5;
  for (int tries = 1;; ++tries) {
    std::vector<Entry*> loaded;  // on-demand models that hold memory, the least recently used first
    {
      std::lock_guard lock(mu_);
      size_t resident = 0;
      uint64_t resident_bytes = 0;
      for (const auto& [name, e] : entries_) {
        if (e.get() == &entry || !e->model.on_demand || e->state == ModelState::unloaded) continue;
        ++resident;
        resident_bytes += e->estimated_bytes;
        if (e->state == ModelState::loaded) loaded.push_back(e.get());
      }
      std::sort(loaded.begin(), loaded.end(), [](Entry* a, Entry* b) { return a->last_used < b->last_used; });
      if (residency_.max_loaded == 0 || resident < residency_.max_loaded) {
        const ModelMemoryEstimate estimate = estimate_model_memory(entry.model.paths);
        const std::string needs =
            fmt::format("model '{}' needs about {} (its files' {} and an estimated {} for its context)",
                        entry.model.name, byte_size_text(estimate.total()), byte_size_text(estimate.file_bytes),
                        byte_size_text(estimate.cache_bytes));
        if (residency_.memory_limit_bytes && resident_bytes + estimate.total() > residency_.memory_limit_bytes) {
          return make_error(Errc::too_large,
                            fmt::format("not loaded: {}, and the {} loaded model(s) already take about {} of the "
                                        "models' memory limit of {}",
                                        needs, resident, byte_size_text(resident_bytes),
                                        byte_size_text(residency_.memory_limit_bytes)));
        }
        if (auto room = memory_room(); room && estimate.total() > room->bytes) {
          return make_error(Errc::too_large, fmt::format("not loaded: {}, and {} is {}: unload a model, or free memory",
                                                         needs, room->source, byte_size_text(room->bytes)));
        }
        entry.state = ModelState::loading;
        entry.estimated_bytes = estimate.total();
        return {};
      }
      if (loaded.empty()) {
        return make_error(Errc::too_large,
                          fmt::format("not loaded: {} model(s) are loaded or loading, the most at once, and none is "
                                      "idle to make room for '{}': try again once a request has ended",
                                      resident, entry.model.name));
      }
    }
    bool freed = false;
    for (Entry* candidate : loaded) {
      if (unload_if_idle(*candidate, "lru")) {
        freed = true;
        break;
      }
    }
    if (!freed && tries < kTries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    if (!freed) {
      return make_error(Errc::too_large,
                        fmt::format("not loaded: {} model(s) are loaded, the most at once, and all are in use: try "
                                    "again once a request has ended",
                                    loaded.size()));
    }
  }
}

void ModelRegistry::unload_idle_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    const auto timeout = residency_.idle_timeout;
    const auto step = std::clamp<std::chrono::milliseconds>(timeout / 4, std::chrono::milliseconds(10),
                                                            std::chrono::milliseconds(1000));
    if (stop_cv_.wait_for(lock, step, [this] { return stopping_; })) return;
    const auto now = std::chrono::steady_clock::now();
    std::vector<Entry*> loaded;
    for (const auto& [name, e] : entries_) {
      if (e->model.on_demand && e->state == ModelState::loaded) loaded.push_back(e.get());
    }
    lock.unlock();
    for (Entry* e : loaded) {
      // A model in use is not idle: its idle time starts when its last user lets go.
      bool in_use = true;
      if (std::unique_lock load_lock(e->load_mu, std::try_to_lock); load_lock.owns_lock())
        in_use = held_outside(e->default_graph);
      std::unique_lock entry_lock(mu_);
      if (in_use) {
        e->last_used = now;
        continue;
      }
      const bool expired = now - e->last_used >= timeout;
      entry_lock.unlock();
      if (expired) unload_if_idle(*e, "idle");
    }
    lock.lock();
  }
}

Result<std::shared_ptr<Graph>> ModelRegistry::get(std::string_view name, std::string_view config,
                                                  const GraphLoader& loader, std::string_view reason) {
  Error missing{Errc::not_found, {}};
  Entry* entry = find(name, &missing);
  if (!entry) return missing;
  std::lock_guard load_lock(entry->load_mu);
  const bool managed = entry->model.on_demand && config.empty();
  if (managed) {
    std::lock_guard lock(mu_);
    entry->last_used = std::chrono::steady_clock::now();
  }
  if (config.empty() && entry->default_graph) return entry->default_graph;
  std::erase_if(entry->by_config, [](const auto& kv) { return kv.second.expired(); });
  if (auto it = entry->by_config.find(config); it != entry->by_config.end()) {
    if (auto graph = it->second.lock()) return graph;
  }
  if (managed) {
    if (Status room = reserve(*entry); !room) {
      logger().info("model '{}' refused: {}", name, room.error().detail);
      return room.take_error();
    }
  }
  // Whatever happens below, a reservation ends loaded or unloaded.
  const auto settle = [&](bool ok) {
    if (!managed) return;
    std::lock_guard lock(mu_);
    entry->state = ok ? ModelState::loaded : ModelState::unloaded;
    entry->last_used = std::chrono::steady_clock::now();
  };
  if (managed) logger().info("model '{}' loading ({})", name, reason);
  const auto started = std::chrono::steady_clock::now();

  // A remote model's one builder is its spec; other models' builders are their files, mapped
  // only while loading: a backend copies or maps what it keeps.
  const bool remote = entry->model.encoding == Encoding::remote;
  const std::span<const uint8_t> spec(reinterpret_cast<const uint8_t*>(entry->model.remote_spec.data()),
                                      entry->model.remote_spec.size());
  std::optional<MappedBuilders> mapped;
  if (!remote) {
    for (const auto& p : entry->model.paths) {
      std::error_code ec;
      if (!std::filesystem::exists(p, ec)) {
        settle(false);
        // WasmEdge's GGML plugin answers model_not_found here, and its guests test for it.
        return make_error(entry->model.encoding == Encoding::ggml ? Errc::model_not_found : Errc::not_found,
                          fmt::format("model '{}': file {} does not exist", name, p.string()));
      }
    }
    auto opened = MappedBuilders::open(entry->model.paths);
    if (!opened) {
      settle(false);
      return opened.take_error();
    }
    mapped.emplace(std::move(*opened));
  }
  auto graph = remote
                   ? loader(entry->model.encoding, entry->model.target, std::span(&spec, 1), {}, config)
                   : loader(entry->model.encoding, entry->model.target, mapped->builders(), entry->model.paths, config);
  if (!graph) {
    settle(false);
    if (managed) logger().info("model '{}' did not load: {}", name, graph.error().detail);
    return graph.take_error();
  }
  if (config.empty()) {
    std::lock_guard lock(mu_);
    entry->default_graph = *graph;
  } else {
    entry->by_config.insert_or_assign(std::string(config), *graph);
  }
  settle(true);
  if (managed) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    logger().info("model '{}' loaded ({}, {} ms)", name, reason, ms.count());
  }
  return *graph;
}

}  // namespace wasinn
