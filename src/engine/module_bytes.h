// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a program's bytes are: reading a module file safely, text (.wat) to binary, and telling a
// core module from a component. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"

namespace wasinn {

// Reads a module file without ever throwing: a directory, a device that does not end, an
// unreadable or oversized file (over kMaxModuleBytes) each give one line naming the file.
Result<std::vector<uint8_t>> read_module(const std::string& path);

// Starts like WebAssembly text (a '(' or ';;' after blanks), not binary.
bool looks_like_text(const std::vector<uint8_t>& bytes);
// A text module or component as binary; its syntax error in one line.
Result<std::vector<uint8_t>> text_to_binary(const std::vector<uint8_t>& text, const std::string& name);

// Wasmtime's several-line errors ("...\n\nCaused by:\n    0: ...") as one line.
std::string one_line(const std::string& msg);

struct Program;
// How messages name a program: its path, or `unnamed` ("the module", "the component") when its
// bytes came from memory.
std::string program_name(const Program& program, const char* unnamed);
// A program's binary: Program::wasm_bytes or its file, text converted; errors name it.
Result<std::vector<uint8_t>> program_binary(const Program& program);

enum class BinaryKind { core_module, component };
// Which of the two a binary is, from its preamble; invalid_argument (naming `name` and what
// the bytes start with) for anything else.
Result<BinaryKind> binary_kind(const std::vector<uint8_t>& bytes, const std::string& name);

}  // namespace wasinn
