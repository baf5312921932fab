// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/wasmtime_ptr.h"

namespace wasinn {

std::string message_of(const wasmtime_error_t* error) {
  wasm_name_t msg;
  wasmtime_error_message(error, &msg);
  std::string out(msg.data, msg.size);
  wasm_byte_vec_delete(&msg);
  return out;
}

std::string message_of(const wasm_trap_t* trap) {
  wasm_message_t msg;
  wasm_trap_message(trap, &msg);
  std::string out(msg.data, msg.size);
  wasm_byte_vec_delete(&msg);
  // The C API's trap message is NUL-terminated; the NUL is no part of the text.
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

}  // namespace wasinn
