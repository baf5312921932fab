// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// FuzzGuest: the linear memory of one fuzzed guest. The low region takes the fuzz input's bytes
// as they are; above it lie well-formed structures (builder arrays, tensor records, names, out
// slots) that a call script can point at, so the fuzzer reaches deep paths without forging them.
// It also checks, per call, that the host wrote only where the call allows. No gtest: the
// unit tests' FakeGuest asserts through gtest, which a fuzzer cannot link.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "abi/guest_memory.h"

namespace wasinn::fuzz {

// A place in guest memory the fuzzer may name: its address and its natural length or count
// (builders in an array, bytes of a name, capacity of a buffer). The role, when set, lets seed
// scripts find the item whatever the world ("builders", "tensor", "output", ...).
struct GuestItem {
  uint32_t addr;
  uint32_t len;
  const char* role;
};

// The structured part of guest memory, built once per process and copied in per input.
class GuestLayout {
 public:
  explicit GuestLayout(uint32_t fuzz_region) : image_(fuzz_region, 0), fuzz_region_(fuzz_region) {}

  uint32_t fuzz_region() const { return fuzz_region_; }
  const std::vector<uint8_t>& image() const { return image_; }
  const std::vector<GuestItem>& items() const { return items_; }

  // Appends bytes at `align` (align 1 places them right after the previous item: unaligned).
  uint32_t place(std::span<const uint8_t> bytes, uint32_t align = 8) {
    while (image_.size() % align) image_.push_back(0);
    const auto at = static_cast<uint32_t>(image_.size());
    image_.insert(image_.end(), bytes.begin(), bytes.end());
    return at;
  }
  uint32_t place(std::string_view text, uint32_t align = 8) {
    return place({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, align);
  }
  uint32_t place_u32s(std::initializer_list<uint32_t> values, uint32_t align = 4) {
    std::vector<uint8_t> raw(values.size() * 4);
    std::memcpy(raw.data(), std::data(values), raw.size());
    return place(raw, align);
  }
  // Registers an item the call script can refer to.
  void name(uint32_t addr, uint32_t len, const char* role = nullptr) { items_.push_back({addr, len, role}); }
  // The index of the item with this role, or -1.
  int find(std::string_view role) const {
    for (size_t i = 0; i < items_.size(); ++i) {
      if (items_[i].role && role == items_[i].role) return static_cast<int>(i);
    }
    return -1;
  }

  // Pads the memory to `size` bytes (e.g. a whole number of wasm pages).
  void pad_to(uint32_t size) {
    if (image_.size() < size) image_.resize(size, 0);
  }

 private:
  std::vector<uint8_t> image_;
  std::vector<GuestItem> items_;
  uint32_t fuzz_region_;
};

// Per input: the layout's image with the input's bytes laid over the low region.
class FuzzGuest {
 public:
  FuzzGuest(const GuestLayout& layout, std::span<const uint8_t> fuzz_bytes)
      : mem_(layout.image()), before_(mem_.size()), view_(mem_.data(), mem_.size()) {
    const size_t n = fuzz_bytes.size() < layout.fuzz_region() ? fuzz_bytes.size() : layout.fuzz_region();
    if (n) std::memcpy(mem_.data(), fuzz_bytes.data(), n);
  }
  FuzzGuest(const FuzzGuest&) = delete;
  FuzzGuest& operator=(const FuzzGuest&) = delete;

  const GuestMemoryView& view() const { return view_; }
  uint32_t size() const { return static_cast<uint32_t>(mem_.size()); }
  uint8_t* data() { return mem_.data(); }

  bool read_u32(uint32_t at, uint32_t& out) const {
    if (uint64_t{at} + 4 > mem_.size()) return false;
    std::memcpy(&out, mem_.data() + at, 4);
    return true;
  }
  void write_u32(uint32_t at, uint32_t value) {
    if (uint64_t{at} + 4 <= mem_.size()) std::memcpy(mem_.data() + at, &value, 4);
  }

  // Write checking: snapshot before a host call, then verify every changed byte lies in one of
  // the ranges the call may write (out-pointers, the output buffer).
  struct Range {
    uint64_t begin;
    uint64_t length;
  };
  void snapshot() { std::memcpy(before_.data(), mem_.data(), mem_.size()); }
  // memcmp over the bytes outside the ranges: a loop over every byte, each compare traced by the
  // fuzzer's instrumentation, was most of an input's time (fuzz_witx_fake from its seeds: about 500
  // inputs a second with it, about 2000 without).
  void expect_writes_within(std::initializer_list<Range> allowed, const char* call) const {
    std::vector<Range> ranges(allowed);
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    const uint64_t size = mem_.size();
    uint64_t from = 0;
    for (const Range& r : ranges) {
      const uint64_t begin = std::min(r.begin, size);
      expect_unchanged(from, begin, call);
      from = std::max(from, begin + std::min(r.length, size - begin));
    }
    expect_unchanged(from, size, call);
  }

 private:
  void expect_unchanged(uint64_t from, uint64_t to, const char* call) const {
    if (from >= to || std::memcmp(before_.data() + from, mem_.data() + from, to - from) == 0) return;
    while (before_[from] == mem_[from]) ++from;
    std::fprintf(stderr, "fuzz invariant: %s wrote guest byte %#zx outside its out-pointers\n", call,
                 static_cast<size_t>(from));
    std::abort();
  }

  std::vector<uint8_t> mem_;
  std::vector<uint8_t> before_;
  GuestMemoryView view_;
};

}  // namespace wasinn::fuzz
