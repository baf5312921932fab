// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CallScript: decodes a fuzz input into guest memory contents and a sequence of host calls.
//
// Input format (seed_script.h writes seeds in it):
//   u16 LE  n: how many of the following bytes fill the guest's low memory region
//   n bytes the guest memory image (from address 0)
//   calls, until the input ends: u8 op, then per argument u8 selector + u32 LE value.
// The selector biases the argument toward values that reach deep paths (see arg()); a raw
// value stays reachable through selector 0, so no i32 is out of the fuzzer's reach.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_guest.h"

namespace wasinn::fuzz {

class CallScript {
 public:
  static constexpr size_t kMaxCalls = 48;  // keeps one input fast
  static constexpr size_t kMaxHandles = 16;

  explicit CallScript(std::span<const uint8_t> input) : in_(input) {
    uint16_t n = 0;
    if (in_.size() >= 2) std::memcpy(&n, in_.data(), 2);
    const size_t avail = in_.size() >= 2 ? in_.size() - 2 : 0;
    image_ = in_.subspan(in_.size() >= 2 ? 2 : in_.size(), n < avail ? n : avail);
    pos_ = (in_.size() >= 2 ? 2 : in_.size()) + image_.size();
  }

  std::span<const uint8_t> image() const { return image_; }

  // The next operation (taken modulo `count`), or false at the end of the script.
  bool next_op(uint32_t count, uint32_t& op) {
    if (pos_ >= in_.size() || calls_ == kMaxCalls) return false;
    op = in_[pos_++] % count;
    ++calls_;
    return true;
  }

  // One i32 argument. `g` supplies the memory size and the named items.
  uint32_t arg(const FuzzGuest& g, const std::vector<GuestItem>& items) {
    uint8_t sel = 0;
    uint32_t v = 0;
    if (pos_ < in_.size()) sel = in_[pos_++];
    const size_t n = in_.size() - pos_ < 4 ? in_.size() - pos_ : 4;
    std::memcpy(&v, in_.data() + pos_, n);
    pos_ += n;
    switch (sel % 12) {
      case 0: return v;      // anything
      case 1: return v % 4;  // handles, indexes, small enums
      case 2: return handles_.empty() ? v % 4 : handles_[v % handles_.size()];
      case 3: return v % g.size();  // somewhere in memory
      case 4: return items.empty() ? v : items[v % items.size()].addr;
      case 5: return items.empty() ? v : items[v % items.size()].len;
      case 6: return g.size() - v % 64;    // at or near the end of memory
      case 7: return UINT32_MAX - v % 16;  // wraps when a length is added
      case 8: return v % 256;              // enum values
      case 9: return items.empty() ? v : items[v % items.size()].addr + (v >> 16) % 8 - 4;  // just off an item
      case 10: return 0x80000000u + v % 16;  // sign bit (a guest's negative i32)
      default: return items.empty() ? v : items[v % items.size()].len + (v >> 16) % 3 - 1;  // off by one
    }
  }

  // Handles the host returned so far, so later calls can use them (and use them after free).
  void remember_handle(uint32_t h) {
    if (handles_.size() < kMaxHandles) handles_.push_back(h);
  }

 private:
  std::span<const uint8_t> in_;
  std::span<const uint8_t> image_;
  size_t pos_ = 0;
  size_t calls_ = 0;
  std::vector<uint32_t> handles_;
};

}  // namespace wasinn::fuzz
