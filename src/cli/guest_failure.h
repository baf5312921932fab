// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How `wasinn run` prints a guest's failure (a trap, or a host call's error under wasm frames):
// the reason first, then the wasm backtrace, whose innermost frames alone are shown unless -v.
#pragma once

#include <string>
#include <string_view>

namespace wasinn_cli {

// The frames shown without -v.
inline constexpr int kBacktraceFramesShown = 3;

// MESSAGE as Wasmtime words it ("error while executing at wasm backtrace:", the frames, a note,
// "Caused by:" and the causes, perhaps after lines of wasinn's own such as the timeout's) as the
// lines to print, each ending in '\n': "wasinn: error: REASON", the reason's further lines, then
// "wasm backtrace:" and the frames: all of them and Wasmtime's note with ALL_FRAMES, else the
// first kBacktraceFramesShown and "(N more frames; -v shows all)". A message without a backtrace
// is one "wasinn: error: MESSAGE" line.
std::string guest_failure_text(std::string_view message, bool all_frames);

}  // namespace wasinn_cli
