// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli_test_env.h"

#include <fstream>
#include <stdexcept>

#include "support/stream_bytes.h"

namespace wasinn_cli_test {

bool ort_plugin_built() { return fs::exists(backend_dir() / "libwasinn_backend_onnxruntime.so"); }

std::optional<fs::path> fixture(const std::string& relative) {
  const char* env = std::getenv("WASINN_FIXTURES");
  const fs::path p = fs::path(env && *env ? env : WASINN_FIXTURES_DEFAULT) / relative;
  if (!fs::exists(p)) return std::nullopt;
  return p;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return wasinn_test::stream_bytes<std::string>(in);
}

size_t count_lines(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n + (!text.empty() && text.back() != '\n');
}

const char* const kHelloWat = R"((module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hello from wat\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 15))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 7)))
  (func (export "answer") (result i32) (i32.const 42))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "pair") (result i64 f64) (i64.const -5) (f64.const 1.5))
  (func (export "boom") unreachable))
)";

const char* const kReactorWat = R"((module
  (global $g (mut i32) (i32.const 0))
  (memory (export "memory") 1)
  (func (export "_initialize") (global.set $g (i32.const 5)))
  (func (export "get") (result i32) (global.get $g)))
)";

const char* const kGrowWat = R"((module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1))
      (then (call $exit (i32.const 3))))
    (call $exit (i32.const 0))))
)";

const char* const kUnknownImportWat = R"((module
  (import "env" "no_such_function" (func $f))
  (memory (export "memory") 1)
  (func (export "_start") (call $f)))
)";

}  // namespace wasinn_cli_test
