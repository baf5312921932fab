// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasm-ld 14 cannot export a memory it imports (no --export-memory then), so wasi-threads guests
// it links import their shared memory and export none, while Wasmtime's WASI functions read the
// caller's "memory" export. Such a module is given that export before it is compiled: the
// export section gains one entry (memory 0, the imported one); nothing else changes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/error.h"

namespace wasinn {

// Whether the binary module imports a shared memory: it is then a wasi-threads guest. Read from
// the import section before anything compiles it; false for bytes that do not parse.
bool imports_shared_memory(std::span<const uint8_t> wasm);

// The module with a "memory" export added, or nullopt when it needs none (it imports no memory,
// or already exports one by that name). An error for a binary it cannot parse.
Result<std::optional<std::vector<uint8_t>>> with_memory_export(std::span<const uint8_t> wasm);

}  // namespace wasinn
