// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/request_trace.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/log.h"

namespace wasinn {
namespace {
const std::string kNone;
thread_local const std::string* current = &kNone;
}  // namespace

bool tracing() { return logger().should_log(spdlog::level::trace); }

RequestScope::RequestScope(const std::string& request_id) : outer_(current) { current = &request_id; }
RequestScope::~RequestScope() { current = outer_; }

void trace_line(std::string_view layer, std::string_view text) {
  const std::string& id = *current;
  log_with_fields(spdlog::level::trace, fmt::format("{} [{}] {}", layer, id.empty() ? "-" : id, text),
                  {{"request_id", id}, {"layer", layer}});
}

}  // namespace wasinn
