// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The prompt cache's second level: the KV of sequences whose slot another prompt took, kept in
// host memory (llama_state_seq_get_data's bytes) so that their conversation's next turn starts
// from it again, as llama-server's --cache-ram keeps its slots' prompts. Least recently saved or
// used first out, within a byte budget. Each entry belongs to one partition (API key), and only
// a prompt of that partition can match it.
//
// Threads: none of its own; SharedContext calls it under its mutex.
#pragma once

#include <llama.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <vector>

namespace wasinn::llamacpp {

// How many tokens a and b share from their start.
inline size_t common_prefix(std::span<const llama_token> a, std::span<const llama_token> b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// Whether a new prompt of `prompt` tokens should take a prefix of `len` tokens from KV that holds
// `held` tokens, `held_prompt` of them its last prompt, at the cost of the rest: when the prefix
// goes on from that whole prompt (its conversation's next turn) or is most of the new prompt (a
// long shared system prompt); a few shared tokens (a template's start) are not worth another
// conversation's cache.
inline bool prefix_worth_taking(size_t len, size_t held_prompt, size_t held, size_t prompt) {
  return len > 0 && (len >= std::min(held_prompt, held) || 2 * len >= prompt);
}

class SavedPrompts {
 public:
  struct Entry {
    std::string partition;
    std::vector<llama_token> tokens;  // the KV's tokens, positions 0..n-1
    size_t prompt_len = 0;            // how many of them were the prompt that made it
    std::vector<uint8_t> state;       // llama_state_seq_get_data of a sequence holding them
  };

  explicit SavedPrompts(uint64_t budget_bytes) : budget_(budget_bytes) {}

  uint64_t budget() const { return budget_; }

  // Keeps `e`, dropping the oldest entries it needs room for; an entry over the whole budget, or
  // holding the same tokens as a kept one, is not kept (false).
  bool put(Entry e);
  // The entry of `partition` whose tokens share the longest prefix with `prompt`, and that length
  // (0 and no entry when none shares any).
  struct Match {
    std::list<Entry>::iterator at;
    size_t length = 0;
  };
  Match best(const std::string& partition, std::span<const llama_token> prompt);
  // Takes a matched entry out (it goes back into a slot).
  Entry take(std::list<Entry>::iterator at);

 private:
  uint64_t budget_;
  uint64_t bytes_ = 0;
  std::list<Entry> entries_;  // newest first
};

}  // namespace wasinn::llamacpp
