// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/verdict_cache.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/log.h"
#include "base/private_cache_dir.h"

namespace wasinn {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMemoryVerdicts = 1024;        // verdicts kept in a process
constexpr size_t kMemoryFiles = 256;            // stat identities of files already hashed
constexpr size_t kMaxDiskEntries = 4096;        // on disk; the oldest quarter goes when exceeded
constexpr uint64_t kMaxEntryBytes = 64 * 1024;  // an entry is ~0.2-1 KB; anything larger is not one
// Written into every entry; an entry with another value (another format, another program) is
// not one of ours and is ignored.
constexpr std::string_view kEntryFormat = "wasinn load-check verdict 1";

bool is_key(std::string_view key) {
  return key.size() == 64 &&
         std::all_of(key.begin(), key.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

fs::path default_verdict_cache_dir() { return user_cache_dir("load-checks"); }

// ---- the directory of entries ----

// Verdicts as JSON files in a PrivateCacheDir: an entry there decides whether a model is loaded
// into the host unchecked, so only the user may be able to write it.
class VerdictCache::Disk {
 public:
  // nullptr (and one debug line) when the directory cannot be made safe to use.
  static std::unique_ptr<Disk> open(const fs::path& requested) {
    std::string why;
    auto dir = PrivateCacheDir::open(requested, &why);
    if (!dir) {
      logger().debug("isolated load checks: verdicts are kept in memory only, not in {}: {}", requested.string(), why);
      return nullptr;
    }
    return std::unique_ptr<Disk>(new Disk(std::move(dir)));
  }

  const fs::path& dir() const { return dir_->path(); }

  std::optional<LoadVerdict> read(const std::string& key) {
    if (!is_key(key)) return std::nullopt;
    const std::string name = key + ".json";
    std::string why;
    const auto text = dir_->read(name, kMaxEntryBytes, &why);
    auto ignore = [&](std::string_view reason) -> std::optional<LoadVerdict> {
      logger().debug("isolated load checks: ignoring verdict {}: {}", (dir() / name).string(), reason);
      return std::nullopt;
    };
    if (!text) return why.empty() ? std::nullopt : ignore(why);  // absent: check again
    const auto entry = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (entry.is_discarded() || !entry.is_object()) return ignore("not JSON");
    auto string_at = [&](const char* field) -> std::optional<std::string> {
      auto it = entry.find(field);
      if (it == entry.end() || !it->is_string()) return std::nullopt;
      return it->get<std::string>();
    };
    if (string_at("format") != std::string(kEntryFormat)) return ignore("not a verdict of this format");
    if (string_at("key") != key) return ignore("written for another key");
    const auto ok = entry.find("ok");
    if (ok == entry.end() || !ok->is_boolean()) return ignore("no outcome");
    LoadVerdict verdict;
    verdict.ok = ok->get<bool>();
    if (!verdict.ok) {
      const auto errc = errc_from_name(string_at("errc").value_or(""));
      const auto detail = string_at("detail");
      if (!errc || !detail || detail->empty()) return ignore("a failure without its error");
      verdict.error = make_error(*errc, *detail);
    }
    return verdict;
  }

  void write(const std::string& key, const LoadVerdict& verdict, std::string_view backend) {
    if (!is_key(key)) return;
    nlohmann::json entry = {{"format", kEntryFormat}, {"key", key}, {"backend", backend}, {"ok", verdict.ok}};
    if (!verdict.ok) {
      entry["errc"] = errc_name(verdict.error.code);
      entry["detail"] = verdict.error.detail;
    }
    const std::string text =
        entry.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace) + "\n";
    std::string why;
    if (!dir_->write(key + ".json", std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), &why)) {
      logger().debug("isolated load checks: cannot write a verdict in {}: {}", dir().string(), why);
      return;
    }
    dir_->prune_sometimes(".json", kMaxDiskEntries);
  }

 private:
  explicit Disk(std::unique_ptr<PrivateCacheDir> dir) : dir_(std::move(dir)) {}
  std::unique_ptr<PrivateCacheDir> dir_;
};

// ---- VerdictCache ----

template <class V>
std::optional<V> VerdictCache::Lru<V>::get(const std::string& key) {
  auto it = index.find(key);
  if (it == index.end()) return std::nullopt;
  order.splice(order.begin(), order, it->second);
  return it->second->second;
}

template <class V>
void VerdictCache::Lru<V>::put(const std::string& key, V value) {
  if (auto it = index.find(key); it != index.end()) {
    it->second->second = std::move(value);
    order.splice(order.begin(), order, it->second);
    return;
  }
  order.emplace_front(key, std::move(value));
  index[key] = order.begin();
  if (order.size() > capacity) {
    index.erase(order.back().first);
    order.pop_back();
  }
}

VerdictCache::VerdictCache(fs::path disk_dir)
    : disk_dir_(std::move(disk_dir)), verdicts_{kMemoryVerdicts, {}, {}}, files_{kMemoryFiles, {}, {}} {}

VerdictCache::~VerdictCache() = default;

VerdictCache::Disk* VerdictCache::disk() {
  std::call_once(disk_once_, [this] {
    if (!disk_dir_.empty()) disk_ = Disk::open(disk_dir_);
  });
  return disk_.get();
}

fs::path VerdictCache::disk_dir() {
  Disk* d = disk();
  return d ? d->dir() : fs::path();
}

std::optional<LoadVerdict> VerdictCache::find(const std::string& key) {
  {
    std::lock_guard lock(mu_);
    if (auto v = verdicts_.get(key)) return v;
  }
  Disk* d = disk();
  if (!d) return std::nullopt;
  auto v = d->read(key);
  if (v) {
    std::lock_guard lock(mu_);
    verdicts_.put(key, *v);
  }
  return v;
}

void VerdictCache::remember(const std::string& key, const LoadVerdict& verdict, std::string_view backend) {
  {
    std::lock_guard lock(mu_);
    verdicts_.put(key, verdict);
  }
  if (Disk* d = disk()) d->write(key, verdict, backend);
}

std::optional<std::string> VerdictCache::key_of_files(const std::string& identity) {
  std::lock_guard lock(mu_);
  return files_.get(identity);
}

void VerdictCache::remember_files(const std::string& identity, const std::string& key) {
  std::lock_guard lock(mu_);
  files_.put(identity, key);
}

}  // namespace wasinn
