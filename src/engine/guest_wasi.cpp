// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/guest_wasi.h"

#include <cerrno>
#include <functional>
#include <string_view>

#include <fmt/format.h>

namespace wasinn {

namespace {

using GuestOutput = std::function<void(std::string_view)>;

// Wasmtime's custom stdout/stderr writer: a write is all taken, or fails with EIO if the
// embedder's callback throws (an exception must not unwind through Wasmtime).
ptrdiff_t write_guest_output(void* data, const unsigned char* bytes, size_t size) {
  try {
    (*static_cast<GuestOutput*>(data))(std::string_view(reinterpret_cast<const char*>(bytes), size));
    return static_cast<ptrdiff_t>(size);
  } catch (...) {
    return -EIO;
  }
}

void delete_guest_output(void* data) { delete static_cast<GuestOutput*>(data); }

}  // namespace

Result<WasiConfigPtr> make_wasi(const Program& p) {
  WasiConfigPtr wasi(wasi_config_new());
  std::vector<const char*> argv;
  const std::string argv0 = p.argv0.empty() ? p.wasm_path.substr(p.wasm_path.find_last_of('/') + 1) : p.argv0;
  argv.push_back(argv0.c_str());
  for (const auto& a : p.args) argv.push_back(a.c_str());
  if (!wasi_config_set_argv(wasi.get(), argv.size(), argv.data())) {
    return make_error(Errc::invalid_argument, "arguments are not valid UTF-8");
  }
  std::vector<const char*> names, values;
  for (const auto& [k, v] : p.env) {
    names.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  if (!wasi_config_set_env(wasi.get(), names.size(), names.data(), values.data())) {
    return make_error(Errc::invalid_argument, "environment is not valid UTF-8");
  }
  if (p.stdin_bytes) {
    wasm_byte_vec_t input;  // the config takes it
    wasm_byte_vec_new(&input, p.stdin_bytes->size(), p.stdin_bytes->data());
    wasi_config_set_stdin_bytes(wasi.get(), &input);
  } else {
    wasi_config_inherit_stdin(wasi.get());
  }
  if (p.on_stdout) {
    wasi_config_set_stdout_custom(wasi.get(), write_guest_output, new GuestOutput(p.on_stdout), delete_guest_output);
  } else {
    wasi_config_inherit_stdout(wasi.get());
  }
  if (p.on_stderr) {
    wasi_config_set_stderr_custom(wasi.get(), write_guest_output, new GuestOutput(p.on_stderr), delete_guest_output);
  } else {
    wasi_config_inherit_stderr(wasi.get());
  }
  for (const auto& [host, guest] : p.dirs) {
    if (!wasi_config_preopen_dir(wasi.get(), host.c_str(), guest.c_str(), /*fs_mutable=*/true)) {
      return make_error(Errc::not_found, fmt::format("cannot open directory {} for the guest", host));
    }
  }
  return wasi;
}

}  // namespace wasinn
