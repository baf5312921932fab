// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How much memory a named model's load would take, and how much the process may still take: the
// check ModelRegistry makes before it loads an on-demand model, so that a load that cannot fit is
// refused with the numbers rather than ending the process out of memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace wasinn {

// A load's estimate: its files' bytes (llama.cpp maps or reads them whole) plus a quarter of that,
// at least 32 MiB, for the KV cache and compute buffers of a context. A rough rule that needs no
// parsing of the model; docs/serving.md says so.
struct ModelMemoryEstimate {
  uint64_t file_bytes = 0;
  uint64_t cache_bytes = 0;
  uint64_t total() const { return file_bytes + cache_bytes; }
};
ModelMemoryEstimate estimate_model_memory(const std::vector<std::filesystem::path>& files);

// What the process may still allocate: /proc/meminfo's MemAvailable, and the cgroup v2 limit's
// room (memory.max less memory.current) when it has one, whichever is less; nullopt when neither
// can be read. `source` names which one it is, for a refusal's message.
struct MemoryRoom {
  uint64_t bytes = 0;
  std::string source;
};
std::optional<MemoryRoom> memory_room();

// 1536 MiB, 12 KiB: for messages.
std::string byte_size_text(uint64_t bytes);

}  // namespace wasinn
