// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/connection_limit.h"

#include <fmt/format.h>

#include "base/log.h"

namespace wasinn::oip_server {

bool ConnectionLimit::admit(std::string_view peer) {
  // Counted first, so two connections accepted at once cannot both take the last place.
  if (limit_ == 0 || open_.fetch_add(1) < limit_) {
    if (limit_ == 0) open_.fetch_add(1);
    return true;
  }
  open_.fetch_sub(1);
  refused_.fetch_add(1);
  std::lock_guard lock(log_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_log_ < std::chrono::seconds(1)) {
    ++unlogged_;
    return false;
  }
  const std::string since = unlogged_ ? fmt::format(" ({} more refused since the last such line)", unlogged_) : "";
  logger().info("{} connection{}{} refused: --max-connections {} are open{}", transport_, peer.empty() ? "" : " from ",
                peer, limit_, since);
  last_log_ = now;
  unlogged_ = 0;
  return false;
}

}  // namespace wasinn::oip_server
