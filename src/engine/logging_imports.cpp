// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/logging_imports.h"

#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/log.h"
#include "engine/guest_state.h"
#include "engine/nn_imports.h"

namespace wasinn {

namespace {

// wasi:logging's level enum: trace, debug, info, warn, error, critical.
constexpr spdlog::level::level_enum kLevels[] = {spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
                                                 spdlog::level::warn,  spdlog::level::err,   spdlog::level::critical};

// A line of the log holds one line: a message's last newline goes, inner ones stay escaped by
// the json format and shown as they are by the text one.
std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void log_call(wasmtime_caller_t* caller, const wasmtime_val_raw_t* args) {
  const auto level = static_cast<uint32_t>(args[0].i32);
  const auto ctx_ptr = static_cast<uint32_t>(args[1].i32), ctx_len = static_cast<uint32_t>(args[2].i32);
  const auto msg_ptr = static_cast<uint32_t>(args[3].i32), msg_len = static_cast<uint32_t>(args[4].i32);
  if (level >= std::size(kLevels)) {
    logger().warn("wasi:logging/logging.log: level {} is none of trace (0) to critical (5); the line is dropped",
                  level);
    return;
  }
  if (!logger().should_log(kLevels[level])) return;  // nothing read for a line nobody sees
  auto* state = static_cast<GuestState*>(wasmtime_context_get_data(wasmtime_caller_context(caller)));
  std::optional<GuestMemoryView> memory = state ? caller_memory(caller, *state) : std::nullopt;
  if (!memory) {
    logger().warn("wasi:logging/logging.log: the guest exports no memory named \"memory\"; the line is dropped");
    return;
  }
  auto context = memory->string(ctx_ptr, ctx_len, "wasi:logging/logging.log: context");
  auto message = memory->string(msg_ptr, msg_len, "wasi:logging/logging.log: message");
  if (!context || !message) {
    logger().warn("{}; the line is dropped", (!context ? context.error() : message.error()).detail);
    return;
  }
  const std::string_view text = trimmed(*message);
  nlohmann::json fields = {{"source", "guest"}};
  if (!context->empty()) fields["context"] = std::string(*context);
  log_with_fields(kLevels[level],
                  context->empty() ? fmt::format("guest: {}", text) : fmt::format("guest: {}: {}", *context, text),
                  fields);
}

wasm_trap_t* log_trampoline(void*, wasmtime_caller_t* caller, wasmtime_val_raw_t* args, size_t) {
  // No C++ exception may unwind into Wasmtime's frames; a line lost is all a failure costs.
  try {
    log_call(caller, args);
  } catch (...) {
  }
  return nullptr;
}

}  // namespace

Status define_wasi_logging(wasmtime_linker_t* linker) {
  return define_i32_func(linker, "wasi:logging/logging", "log", 5, 0, log_trampoline, nullptr);
}

}  // namespace wasinn
