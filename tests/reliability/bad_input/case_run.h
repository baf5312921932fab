// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CaseRun: what one bad-input case works with: a fresh 64 KiB guest memory (the unit tests'
// FakeGuest), calls into the shared session through either guest ABI, and short ways to get a
// real graph or context of a backend's digits model to misuse. Handles the case creates are
// tracked and released after it, so every case leaves the session as it found it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "abi/ephemeral_nn.h"
#include "abi/legacy_nn.h"
#include "host_under_test.h"
#include "support/fake_guest.h"

namespace wasinn::bad_input {

namespace nn = ::wasinn::ephemeral_nn;
namespace legacy = ::wasinn::legacy_nn;
using unit::FakeGuest;
using unit::kSentinel;
using unit::kWildPtr;

class CaseRun {
 public:
  explicit CaseRun(HostUnderTest& host, uint32_t sample = 0) : host(host), sample(sample) {}

  HostUnderTest& host;
  const uint32_t sample;  // which correctly classified digit the case feeds
  FakeGuest guest;

  nn::Call call() { return {host.session(), guest.view()}; }
  uint32_t memory_size() const { return FakeGuest::kSize; }

  // Bytes placed in guest memory; the witx builder array {ptr, len}[] over several of them.
  uint32_t put(const std::vector<uint8_t>& bytes) { return guest.put(std::span<const uint8_t>(bytes)); }
  uint32_t builders(const std::vector<std::vector<uint8_t>>& models);
  uint32_t fixture_builders(const std::vector<std::string>& files);
  // The legacy 8-byte {builders_ptr, count} header that wasi_nn.load takes.
  uint32_t legacy_header(uint32_t builders_ptr, uint32_t count) { return guest.put_u32s({builders_ptr, count}); }

  // A graph, context, fed context or computed context on the backend's digits model, made
  // through the witx ABI (a failure fails the test and returns kSentinel).
  uint32_t graph(Backend backend);
  uint32_t context(Backend backend);
  uint32_t fed_context(Backend backend);
  uint32_t computed_context(Backend backend);

  // The case's digit as a witx f32 [1, 64] tensor record, and as a legacy 12-byte record.
  uint32_t digit_tensor();
  uint32_t legacy_digit_tensor();
  // A legacy record {dims struct ptr, type, data ptr} with its dims struct {ptr, rank}.
  uint32_t legacy_tensor(const std::vector<uint32_t>& dims, uint32_t type, uint32_t data_ptr);
  uint32_t legacy_tensor_raw(uint32_t dims_ptr, uint32_t rank, uint32_t type, uint32_t data_ptr);

  // Handles the case made; released after it whatever happened to them.
  void track_graph(uint32_t handle) { graphs_.push_back(handle); }
  void track_context(uint32_t handle) { contexts_.push_back(handle); }
  // Stores the handle at `out` when `status` succeeded, so the case cannot leak it.
  Status tracked_graph(Status status, uint32_t out);
  Status tracked_context(Status status, uint32_t out);
  void release_all();

  // The 4 bytes at `at` still hold the sentinel FakeGuest pre-filled: the host did not write.
  ::testing::AssertionResult untouched(uint32_t at) const;
  // The n bytes at `at` all still hold `fill` (FakeGuest::buffer's fill).
  ::testing::AssertionResult untouched(uint32_t at, uint32_t n, uint8_t fill = 0xEE) const;

 private:
  std::vector<uint32_t> graphs_;
  std::vector<uint32_t> contexts_;
};

}  // namespace wasinn::bad_input
