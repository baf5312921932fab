// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Wasmtime's option groups, -O/--optimize, -C/--codegen, -D/--debug, -W/--wasm and -S/--wasi:
// KEY[=VALUE[,KEY[=VALUE]...]] each, as `wasmtime run` takes them. The keys wasinn has a feature
// for are applied; every other key is refused by name, so a script written for Wasmtime never
// runs with a setting silently dropped. `-W help` (etc.) lists the keys wasinn takes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wasinn_cli {

struct GroupValues {
  std::vector<std::string> optimize, codegen, debug, wasm, wasi;  // as given, one entry per flag
};

// What the groups set.
struct GroupSettings {
  std::optional<uint64_t> timeout_ms;        // -W timeout
  std::string timeout_text;                  // its value as given, for messages
  std::optional<uint64_t> max_memory_bytes;  // -W max-memory-size
  bool inherit_env = false;                  // -S inherit-env
  std::optional<bool> cache;                 // -C cache
  std::optional<bool> pooling_allocator;     // -O pooling-allocator (serve)
  std::vector<std::string> nn_graphs;        // -S nn-graph=ENCODING::DIR
  // -S p3=n: WASI 0.3's APIs off (a component importing or exporting them is refused, naming
  // the flag); empty: on. Wasmtime's switches are two, each the last of its own spellings.
  std::string p3_off_by;
  // -W component-model-async=n or -W concurrency-support=n: the component model's async off (a
  // component with an async function, or 0.3's APIs, is refused naming it); empty: on.
  std::string async_off_by;
  std::optional<size_t> max_resources;  // -S max-resources
};

// Applies every KEY[=VALUE]; throws UsageError naming the flag and key of a refused or malformed
// one. Returns the help text to print instead of running when a group was given `help`. With
// `with_environment`, Wasmtime 49's variables come first (WASMTIME_WASI="p3,max-resources=8",
// WASMTIME_WASI_P3=y, as `wasmtime run` reads them), so the flags given win.
std::optional<std::string> apply_groups(const GroupValues& values, GroupSettings& out, bool with_environment = false);

}  // namespace wasinn_cli
