// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn::Limits: every resource bound a guest is held to. Configuration, not constants: the CLI and
// the embedding API set them; the defaults are generous. A plain value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wasinn {

struct Limits {
  size_t max_graphs = 1024;                    // live graphs per guest
  size_t max_contexts = 4096;                  // live execution contexts per guest
  size_t max_tensors = 65536;                  // live tensor (and error) resources of a component guest
  size_t max_builders = 64;                    // graph builders in one load
  uint64_t max_model_bytes = 16ull << 30;      // all builders of one load together
  uint64_t max_tensor_bytes = 4ull << 30;      // one input tensor
  uint32_t max_rank = 64;                      // dimensions of one tensor
  size_t max_name_bytes = 64 * 1024;           // a model name in load_by_name
  size_t max_config_bytes = 16 * 1024 * 1024;  // a JSON config
  uint64_t max_compute_ms = 0;                 // one compute or compute_single; 0: unbounded
  // A context in use by another thread of the guest: wait for it (true) or answer busy (false).
  bool wait_for_busy_context = false;
};

}  // namespace wasinn
