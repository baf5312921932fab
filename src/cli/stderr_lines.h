// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the CLI writes to stderr itself, whatever the log level (its errors, where it serves),
// in the log's format; and serve --log-format json, under which every line on stderr is one
// JSON object: wasinn's own lines through the logger, and the bytes a framework or a guest
// writes to fd 2 captured through a pipe and logged a line each ("source": "stderr").
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace wasinn_cli {

// From here on stderr's lines are JSON (idempotent). Captures fd 2 until the process ends.
void log_stderr_as_json();
// Writes out the captured bytes not yet logged and gives fd 2 back: before _exit, which runs no
// atexit handler (exit runs it by itself).
void end_stderr_capture();

// "wasinn: error: MESSAGE", or its JSON line at level error.
void print_error(std::string_view message);
// TEXT as it is (e.g. "Serving HTTP on http://127.0.0.1:8080/"), or a JSON line at level info
// with TEXT, less a leading "wasinn: ", as its message and FIELDS as its members.
void print_notice(std::string_view text, const nlohmann::json& fields);

}  // namespace wasinn_cli
