// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/model_refs.h"

#include <stdexcept>

#include <fmt/format.h>

#include "cli/hub_download.h"
#include "cli/hub_fetch.h"
#include "cli/pull_command.h"

namespace wasinn_cli {

namespace fs = std::filesystem;

bool is_model_ref(std::string_view path) {
  for (std::string_view scheme : {"hf://", "https://", "http://"}) {
    if (path.size() > scheme.size() && path.substr(0, scheme.size()) == scheme) return true;
  }
  return false;
}

std::vector<fs::path> pull_model_ref(const std::string& reference, const std::string& what, bool quiet,
                                     fs::path* projector) {
  hub::PullOptions options = hub::options_from_environment();
  if (options.endpoint.rfind("https://", 0) != 0 && options.endpoint.rfind("http://", 0) != 0)
    throw UsageError(
        fmt::format("{}: the Hub's endpoint '{}' (HF_ENDPOINT) is not an http(s):// URL", what, options.endpoint));
  if (options.cache_dir.empty())
    throw UsageError(fmt::format("{}: no Hub cache directory to pull {} into: set HF_HOME or HOME", what, reference));
  auto ref = hub::parse_ref(reference, options.endpoint);
  if (!ref) throw UsageError(fmt::format("{}: {}", what, ref.error().detail));
  auto got = pull_showing_progress(*ref, options, quiet, projector);
  if (!got) {
    if (got.error().code == wasinn::Errc::invalid_argument)
      throw UsageError(fmt::format("{}: cannot pull {}: {}", what, reference, got.error().detail));
    throw std::runtime_error(fmt::format("{}: cannot pull {}: {}", what, reference, got.error().detail));
  }
  if (got->empty()) throw std::runtime_error(fmt::format("{}: {} names no model file", what, reference));
  return *got;
}

std::string preload_path(const fs::path& file, const std::string& what) {
  std::string text = fs::absolute(file).string();
  if (text.find(':') != std::string::npos)
    throw UsageError(
        fmt::format("{}: the path '{}' has a ':', which a preload cannot hold: move or link the file, or set "
                    "HF_HOME (or HF_HUB_CACHE) to a directory without one",
                    what, text));
  return text;
}

void pull_preload_refs(RunOptions& o, const CommonOptions& common) {
  auto& preloads = o.host.preloads;
  const auto& sources = o.host.option_names.preload_sources;
  for (size_t i = 0; i < preloads.size(); ++i) {
    const std::string spec = preloads[i];
    // NAME:ENCODING:TARGET:REST, REST taken whole; a remote model's REST is its own (remote_options.h).
    const size_t c1 = spec.find(':');
    const size_t c2 = c1 == std::string::npos ? c1 : spec.find(':', c1 + 1);
    const size_t c3 = c2 == std::string::npos ? c2 : spec.find(':', c2 + 1);
    if (c3 == std::string::npos || !is_model_ref(std::string_view(spec).substr(c3 + 1))) continue;
    if (hub::lower(spec.substr(c1 + 1, c2 - c1 - 1)) == "remote") continue;
    const bool sourced = i < sources.size() && !sources[i].empty();
    const std::string what = fmt::format("{} '{}'", sourced ? sources[i] : std::string("--nn-preload"), spec);
    std::string local = spec.substr(0, c3 + 1);
    bool first = true;
    for (const auto& path : pull_model_ref(spec.substr(c3 + 1), what, common.quiet > 0)) {
      local += (first ? "" : ":") + preload_path(path, what);
      first = false;
    }
    preloads[i] = local;
  }
}

}  // namespace wasinn_cli
