// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/verdict_key.h"

#include <span>
#include <string_view>
#include <system_error>

#include "base/sha256.h"
#include "core/types.h"
#include "isolation/file_identity.h"
#include "wasinn/version.h"

namespace wasinn::isolation {

namespace fs = std::filesystem;

namespace {

// Changing what goes into a verdict key changes this, so no older key can match.
constexpr std::string_view kKeyVersion = "wasinn load-check key 2";

}  // namespace

std::optional<VerdictKey> verdict_key(const LoadCheckRequest& r, const fs::path& checker,
                                      const std::string* backend_config, uint64_t address_space_mb,
                                      VerdictCache& verdicts) {
  if (checker.empty() || r.plugin_library.empty() || r.framework_version.empty()) return std::nullopt;
  // A gpu, tpu or auto load's verdict also follows from the machine's devices and the
  // environment that shows them (a driver installed later, VK_ICD_FILENAMES, CUDA_VISIBLE_DEVICES),
  // which no key holds: only CPU verdicts are remembered.
  if (r.target != Target::cpu) return std::nullopt;
  // A new build of the checker (and the core in it) or of the plugin never trusts old verdicts.
  const auto checker_id = file_identity(checker);
  const auto plugin_id = file_identity(r.plugin_library);
  if (!checker_id || !plugin_id) return std::nullopt;
  VerdictKey out;
  bool settled = false;
  if (!r.paths.empty()) {
    auto files = model_files_identity(r.paths, r.builders, &settled);
    if (!files) return std::nullopt;  // a SavedModel directory, or a file changed since it was mapped
    out.files = std::move(*files);
  }
  // Everything but the model's bytes that decides the outcome, in a fixed order.
  auto context = [&](Sha256& h) {
    h.field(kKeyVersion);
    h.field(std::string_view(WASINN_VERSION_STRING));
    h.field(*checker_id);
    h.field(r.backend);
    h.field(r.plugin_library.string());
    h.field(*plugin_id);
    h.field(r.framework_version);
    h.field(uint64_t{backend_config != nullptr});
    h.field(backend_config ? std::string_view(*backend_config) : std::string_view());
    h.field(encoding_name(r.encoding));
    h.field(target_name(r.target));
    h.field(r.config);
    h.field(address_space_mb);
    // By path or as bytes: a plugin may read a file's neighbours, or map it instead of copying.
    h.field(uint64_t{r.paths.size()});
    std::error_code ec;
    for (const auto& p : r.paths) h.field(fs::absolute(p, ec).string());
  };
  if (!r.paths.empty() && settled) {
    Sha256 memo;
    context(memo);
    memo.field(out.files);
    out.files_memo = memo.hex_digest();
    if (auto key = verdicts.key_of_files(out.files_memo)) {
      out.key = std::move(*key);
      out.memo_hit = true;
      return out;
    }
  }
  Sha256 content;
  context(content);
  const auto bytes = r.bytes_digest ? *r.bytes_digest : builders_digest(r.builders);
  content.field(std::span<const uint8_t>(bytes));
  out.key = content.hex_digest();
  return out;
}

void record_files(const VerdictKey& key, const LoadCheckRequest& r, VerdictCache& verdicts) {
  if (key.files_memo.empty() || key.memo_hit) return;
  if (identity_if_files_hold(r.paths, r.builders) == key.files) verdicts.remember_files(key.files_memo, key.key);
}

}  // namespace wasinn::isolation
