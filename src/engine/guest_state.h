// GuestState: what the host functions of one Wasmtime store need: the guest's NnSession and
// its exported memory. Owned by whoever owns the store; touched only by the store's thread.
#pragma once

#include <memory>
#include <optional>

#include <wasmtime.h>

#include "core/nn_session.h"

namespace wasinn {

struct GuestState {
  std::shared_ptr<NnSession> session;
  // Cached after instantiation so a host call need not look the export up by name.
  std::optional<wasmtime_memory_t> memory;
};

}  // namespace wasinn
