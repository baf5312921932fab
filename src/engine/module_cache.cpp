// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/module_cache.h"

#include <algorithm>

#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/log.h"
#include "base/private_cache_dir.h"
#include "base/sha256.h"

namespace wasinn {

namespace {

// An entry: this header, then Wasmtime's serialized module. The magic names the entry format;
// a file with another one (an older wasinn, another program) is not ours.
constexpr char kMagic[16] = {'w', 'a', 's', 'i', 'n', 'n', ' ', 'm', 'o', 'd', 'u', 'l', 'e', ' ', '1', '\n'};
struct EntryHeader {
  char magic[16];
  uint8_t payload_sha256[32];
  uint64_t payload_size;
};
static_assert(sizeof(EntryHeader) == 56);

constexpr uint64_t kMaxEntryBytes = 1ull << 30;  // compiled code is a few times the wasm; 1 GiB is not an entry
constexpr size_t kMaxEntries = 512;              // the oldest quarter goes when exceeded
constexpr const char* kSuffix = ".cwasm";

std::array<uint8_t, 32> digest_of(std::span<const uint8_t> bytes) {
  Sha256 h;
  h.field(bytes);
  return h.digest();
}

}  // namespace

std::filesystem::path default_module_cache_dir() { return user_cache_dir("modules"); }

template <class Code>
CodeCache<Code>::CodeCache(wasm_engine_t* engine, std::filesystem::path dir, std::string engine_settings)
    : engine_(engine), requested_dir_(std::move(dir)), engine_settings_(std::move(engine_settings)) {}

template <class Code>
CodeCache<Code>::~CodeCache() = default;

template <class Code>
PrivateCacheDir* CodeCache<Code>::open_dir() {
  std::call_once(open_once_, [&] {
    if (requested_dir_.empty()) return;
    std::string why;
    dir_ = PrivateCacheDir::open(requested_dir_, &why);
    if (!dir_) logger().debug("compiled modules are not cached in {}: {}", requested_dir_.string(), why);
  });
  return dir_.get();
}

template <class Code>
std::filesystem::path CodeCache<Code>::dir() {
  PrivateCacheDir* d = open_dir();
  return d ? d->path() : std::filesystem::path();
}

template <class Code>
auto CodeCache<Code>::get(std::span<const uint8_t> wasm, const std::function<Result<Ptr>()>& compile) -> Result<Ptr> {
  Sha256 key_hash;
  key_hash.field(std::string_view(kMagic, sizeof kMagic));
  key_hash.field(std::string_view(Code::kKind));
  key_hash.field(std::string_view(WASMTIME_VERSION));
  key_hash.field(engine_settings_);
  key_hash.field(wasm);
  const std::string name = key_hash.hex_digest() + kSuffix;
  if (auto kept = recall(name)) return std::move(*kept);
  auto module = get_uncached(name, compile);
  if (module) remember(name, module->get());
  return module;
}

template <class Code>
auto CodeCache<Code>::recall(const std::string& name) -> std::optional<Ptr> {
  std::lock_guard lock(recent_mu_);
  const auto it = std::find_if(recent_.begin(), recent_.end(), [&](const auto& r) { return r.first == name; });
  if (it == recent_.end()) return std::nullopt;
  return Ptr(Code::clone(it->second.get()));
}

template <class Code>
void CodeCache<Code>::remember(const std::string& name, const typename Code::Raw* code) {
  std::lock_guard lock(recent_mu_);
  if (recent_.size() == kRecentModules) recent_.pop_front();
  recent_.emplace_back(name, Ptr(Code::clone(code)));
}

template <class Code>
auto CodeCache<Code>::get_uncached(const std::string& name, const std::function<Result<Ptr>()>& compile)
    -> Result<Ptr> {
  PrivateCacheDir* d = open_dir();
  if (!d) return compile();

  std::string why;
  if (auto entry = d->read(name, kMaxEntryBytes, &why)) {
    EntryHeader h{};
    const auto* bytes = reinterpret_cast<const uint8_t*>(entry->data());
    if (entry->size() < sizeof h) {
      why = "truncated header";
    } else {
      std::memcpy(&h, bytes, sizeof h);
      const std::span<const uint8_t> payload(bytes + sizeof h, entry->size() - sizeof h);
      if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
        why = "not an entry of this format";
      } else if (h.payload_size != payload.size()) {
        why = fmt::format("{} bytes of compiled code, the header says {}", payload.size(), h.payload_size);
      } else if (digest_of(payload) != std::to_array(h.payload_sha256)) {
        why = "its compiled code does not match its checksum";
      } else {
        typename Code::Raw* code = nullptr;
        ErrorPtr err(Code::deserialize(engine_, payload.data(), payload.size(), &code));
        if (!err) {
          logger().debug("compiled {} from the module cache: {}", Code::kKind, (d->path() / name).string());
          return Ptr(code);
        }
        why = "Wasmtime refused it: " + message_of(err.get());  // another engine build or settings
      }
    }
    logger().debug("ignoring cached module {}: {}", (d->path() / name).string(), why);
  }

  auto module = compile();
  if (!module) return module;
  wasm_byte_vec_t serialized;
  if (ErrorPtr err(Code::serialize(module->get(), &serialized)); err) {
    logger().debug("cannot cache a compiled module: {}", message_of(err.get()));
    return module;
  }
  const std::span<const uint8_t> payload(reinterpret_cast<const uint8_t*>(serialized.data), serialized.size);
  EntryHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  const auto digest = digest_of(payload);
  std::memcpy(h.payload_sha256, digest.data(), digest.size());
  h.payload_size = payload.size();
  std::string entry(sizeof h + payload.size(), '\0');
  std::memcpy(entry.data(), &h, sizeof h);
  std::memcpy(entry.data() + sizeof h, payload.data(), payload.size());
  wasm_byte_vec_delete(&serialized);
  if (!d->write(name, std::span(reinterpret_cast<const uint8_t*>(entry.data()), entry.size()), &why)) {
    logger().debug("cannot cache a compiled module in {}: {}", d->path().string(), why);
  } else {
    logger().debug("compiled {} stored in the module cache: {}", Code::kKind, (d->path() / name).string());
    d->prune_sometimes(kSuffix, kMaxEntries);
  }
  return module;
}

template class CodeCache<CoreModuleCode>;
template class CodeCache<ComponentCode>;

}  // namespace wasinn
