// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The key a check's verdict is remembered under (verdict_cache.h): a SHA-256 over everything
// that decides the check's outcome, so that a rebuilt wasinn or plugin, another config or other
// bytes never find an old verdict. For loads by path, the files' stat identity stands in for
// their bytes once they were hashed, so a preloaded model is not hashed again at every load.
// Internal to load isolation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/backend_ports.h"
#include "isolation/verdict_cache.h"

namespace wasinn::isolation {

// A load's verdict key, and for files what ties their stat identity to their bytes.
struct VerdictKey {
  std::string key;         // SHA-256 (hex) over everything that decides the check
  std::string files;       // the files' stat identity when the key was made; "" for a guest's bytes
  std::string files_memo;  // that identity's record; "" when the files are too recent to record
  bool memo_hit = false;   // the key came from the record, without hashing
};

// The key of `request` as checked by `checker` with the backend's config (nullptr: none) under
// an address-space limit of `address_space_mb`; the files' record is looked up in `verdicts`.
// nullopt when this load's verdict is not to be remembered (not a CPU load, no plugin library
// or framework version, a file that cannot be identified).
std::optional<VerdictKey> verdict_key(const LoadCheckRequest& request, const std::filesystem::path& checker,
                                      const std::string* backend_config, uint64_t address_space_mb,
                                      VerdictCache& verdicts);

// Records the files' identity -> key after a remembered verdict answered, so that their next
// loads skip the hash; only when the files still are the bytes that were hashed.
void record_files(const VerdictKey& key, const LoadCheckRequest& request, VerdictCache& verdicts);

}  // namespace wasinn::isolation
