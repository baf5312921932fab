// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ScriptWriter: writes call scripts in CallScript's format, naming guest items by role, so the
// ABI targets can write their own seed corpus (a valid load -> init -> set_input -> compute ->
// get_output sequence and a few error sequences) for whichever world they are linked with.
// `WASINN_FUZZ_SEEDS_OUT=DIR ./fuzz_witx_fake` writes DIR/seed_<n> and exits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_guest.h"

namespace wasinn::fuzz {

class ScriptWriter {
 public:
  explicit ScriptWriter(const GuestLayout& layout) : layout_(layout), bytes_{0, 0} {}  // no memory image

  ScriptWriter& op(uint32_t code) {
    bytes_.push_back(static_cast<uint8_t>(code));
    return *this;
  }
  ScriptWriter& raw(uint32_t v) { return arg(0, v); }
  // The address (or, with item_len, the natural length) of the item with this role. A world
  // without the role makes the whole script unusable (ok() is false).
  ScriptWriter& item(const char* role) { return arg(4, index(role)); }
  ScriptWriter& item_len(const char* role) { return arg(5, index(role)); }

  bool ok() const { return ok_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  ScriptWriter& arg(uint8_t selector, uint32_t v) {
    bytes_.push_back(selector);
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  uint32_t index(const char* role) {
    const int i = layout_.find(role);
    ok_ &= i >= 0;
    return i < 0 ? 0 : static_cast<uint32_t>(i);
  }

  const GuestLayout& layout_;
  std::vector<uint8_t> bytes_;
  bool ok_ = true;
};

// Writes the usable scripts as seeds and exits, when WASINN_FUZZ_SEEDS_OUT names a directory.
inline void write_seeds_if_asked(const std::vector<ScriptWriter>& scripts) {
  const char* dir = std::getenv("WASINN_FUZZ_SEEDS_OUT");
  if (!dir || !*dir) return;
  int n = 0;
  for (const ScriptWriter& s : scripts) {
    if (!s.ok()) continue;
    std::ofstream out(std::string(dir) + "/seed_" + std::to_string(n++), std::ios::binary);
    out.write(reinterpret_cast<const char*>(s.bytes().data()), static_cast<std::streamsize>(s.bytes().size()));
    if (!out) {
      std::fprintf(stderr, "fuzz: cannot write seeds into %s\n", dir);
      std::exit(1);
    }
  }
  std::printf("fuzz: wrote %d seeds into %s\n", n, dir);
  std::exit(0);
}

}  // namespace wasinn::fuzz
