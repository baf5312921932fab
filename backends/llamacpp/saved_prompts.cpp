// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "saved_prompts.h"

#include <algorithm>

namespace wasinn::llamacpp {

bool SavedPrompts::put(Entry e) {
  const uint64_t size = e.state.size();
  if (size == 0 || size > budget_) return false;
  for (const Entry& kept : entries_)
    if (kept.partition == e.partition && kept.tokens == e.tokens) return false;
  while (bytes_ + size > budget_) {
    bytes_ -= entries_.back().state.size();
    entries_.pop_back();
  }
  bytes_ += size;
  entries_.push_front(std::move(e));
  return true;
}

SavedPrompts::Match SavedPrompts::best(const std::string& partition, std::span<const llama_token> prompt) {
  Match m{entries_.end(), 0};
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->partition != partition) continue;
    const size_t len = common_prefix(it->tokens, prompt);
    if (len > m.length) m = {it, len};
  }
  return m;
}

SavedPrompts::Entry SavedPrompts::take(std::list<Entry>::iterator at) {
  Entry e = std::move(*at);
  bytes_ -= e.state.size();
  entries_.erase(at);
  return e;
}

}  // namespace wasinn::llamacpp
