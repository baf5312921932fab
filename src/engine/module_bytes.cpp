// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/module_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "engine/wasmtime_ptr.h"
#include "wasinn/host.h"

namespace wasinn {

Result<std::vector<uint8_t>> read_module(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return make_error(Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return make_error(Errc::invalid_argument,
                      fmt::format("cannot read {}: it is a directory, not a WebAssembly module", path));
  }
  const auto too_large = [&] {
    return make_error(Errc::too_large, fmt::format("cannot read {}: it is larger than {} MiB, the most a module may be",
                                                   path, kMaxModuleBytes >> 20));
  };
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxModuleBytes) return too_large();
  std::vector<uint8_t> bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > kMaxModuleBytes) return too_large();
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

// The causes joined with ": ".
std::string one_line(const std::string& msg) {
  std::string out;
  size_t at = 0;
  while (at <= msg.size()) {
    size_t nl = msg.find('\n', at);
    if (nl == std::string::npos) nl = msg.size();
    std::string line = msg.substr(at, nl - at);
    at = nl + 1;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (line == "Caused by:") continue;
    size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (digits > 0 && line.compare(digits, 2, ": ") == 0) line = line.substr(digits + 2);
    out += (out.empty() ? "" : ": ") + line;
  }
  return out;
}

namespace {

// wat2wasm's error is "REASON\n     --> <anon>:LINE:COL\n      |\n    1 | source...\n      |  ^":
// kept as "REASON (line LINE, column COL)".
std::string wat_error(const std::string& msg) {
  const std::string reason = msg.substr(0, msg.find('\n'));
  const auto at = msg.find("--> <anon>:");
  if (at == std::string::npos) return one_line(msg);
  const std::string where = msg.substr(at + 11, msg.find('\n', at) - at - 11);
  const auto colon = where.find(':');
  if (colon == std::string::npos) return one_line(msg);
  return fmt::format("{} (line {}, column {})", reason, where.substr(0, colon), where.substr(colon + 1));
}

}  // namespace

bool looks_like_text(const std::vector<uint8_t>& b) {
  size_t i = 0;
  if (b.size() >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) i = 3;  // UTF-8 BOM
  while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) ++i;
  return i < b.size() && (b[i] == '(' || (b[i] == ';' && i + 1 < b.size() && b[i + 1] == ';'));
}

// A text module (.wat) as binary wasm; its syntax error in one line.
Result<std::vector<uint8_t>> text_to_binary(const std::vector<uint8_t>& text, const std::string& name) {
  wasm_byte_vec_t out;
  if (ErrorPtr err(wasmtime_wat2wasm(reinterpret_cast<const char*>(text.data()), text.size(), &out)); err) {
    return make_error(Errc::invalid_argument, fmt::format("{} is not a valid WebAssembly text module: {}", name,
                                                          wat_error(message_of(err.get()))));
  }
  std::vector<uint8_t> binary(reinterpret_cast<const uint8_t*>(out.data),
                              reinterpret_cast<const uint8_t*>(out.data) + out.size);
  wasm_byte_vec_delete(&out);
  return binary;
}

Result<BinaryKind> binary_kind(const std::vector<uint8_t>& bytes, const std::string& name) {
  static constexpr uint8_t kMagic[4] = {0x00, 0x61, 0x73, 0x6D};
  const auto invalid = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, fmt::format("{} is not a valid WebAssembly module: {}", name, why));
  };
  if (bytes.empty()) return invalid("it is empty");
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kMagic, 4) != 0) {
    std::string start;
    for (size_t i = 0; i < std::min<size_t>(bytes.size(), 8); ++i) start += fmt::format("{:02x} ", bytes[i]);
    start.pop_back();
    return invalid(fmt::format("it starts with the bytes {}, not \\0asm (binary) or a text module's '('", start));
  }
  // The version field: 1 for core modules, 0x0d (layer 1) for components.
  if (bytes.size() >= 8 && bytes[6] == 0x01 && bytes[7] == 0x00 && bytes[4] == 0x0d && bytes[5] == 0x00) {
    return BinaryKind::component;
  }
  return BinaryKind::core_module;
}

std::string program_name(const Program& program, const char* unnamed) {
  return program.wasm_path.empty() ? std::string(unnamed) : program.wasm_path;
}

Result<std::vector<uint8_t>> program_binary(const Program& program) {
  auto bytes = program.wasm_bytes ? Result<std::vector<uint8_t>>(*program.wasm_bytes) : read_module(program.wasm_path);
  // Text is converted here, so that imports can be read before compiling.
  if (bytes && looks_like_text(*bytes)) return text_to_binary(*bytes, program_name(program, "the module"));
  return bytes;
}

}  // namespace wasinn
