// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the CLI tests share beyond tests/integration's test_env.h (the built `wasinn`, guests,
// scratch directories): optional fixtures and a few small modules written as WebAssembly text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "test_env.h"

namespace wasinn_cli_test {

namespace fs = std::filesystem;
using wasinn_it::backend_dir;
using wasinn_it::ChildOptions;
using wasinn_it::ChildResult;
using wasinn_it::guest;
using wasinn_it::ScratchDir;
using wasinn_it::write_text;

// `wasinn ARGS...`, with WASINN_BACKEND_PATH unset so the build's own plugins are used.
inline ChildResult wasinn(const std::vector<std::string>& args, const ChildOptions& options = {}) {
  return wasinn_it::run_wasinn(args, options);
}

bool ort_plugin_built();                                       // the ORT plugin is in backend_dir()
std::optional<fs::path> fixture(const std::string& relative);  // nullopt when not generated
std::string read_text(const fs::path& path);
size_t count_lines(const std::string& text);

// A WASI command in text form: prints "hello from wat" and exits 7. Also exports functions for
// --invoke: answer() -> 42, add(i32, i32) -> i32, pair() -> (i64 -5, f64 1.5), boom() traps.
extern const char* const kHelloWat;
// A reactor: _initialize sets a global to 5, get() returns it; no _start.
extern const char* const kReactorWat;
// A command whose _start grows its memory by one 64 KiB page: exit 0 if that worked, 3 if not.
extern const char* const kGrowWat;
// A command importing a function no host provides (instantiation fails).
extern const char* const kUnknownImportWat;

}  // namespace wasinn_cli_test
