// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "case_run.h"

namespace wasinn::bad_input {

uint32_t CaseRun::builders(const std::vector<std::vector<uint8_t>>& models) {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (const auto& m : models) pairs.emplace_back(put(m), static_cast<uint32_t>(m.size()));
  return guest.builder_array(pairs);
}

uint32_t CaseRun::fixture_builders(const std::vector<std::string>& files) {
  std::vector<std::vector<uint8_t>> models;
  for (const auto& f : files) models.push_back(host.fixture(f));
  return builders(models);
}

uint32_t CaseRun::graph(Backend backend) {
  backend = HostUnderTest::digits_backend(backend);
  const auto files = HostUnderTest::digits_model(backend);
  const uint32_t out = guest.out_u32();
  const Status st =
      nn::load(call(), fixture_builders(files), static_cast<uint32_t>(files.size()), witx_encoding(backend), 0, out);
  EXPECT_TRUE(st.ok()) << "setup: load of the " << backend_name(backend) << " digits model: errno " << nn::errno_of(st)
                       << " " << (st.ok() ? "" : st.error().detail);
  if (!st.ok()) return kSentinel;
  track_graph(guest.u32_at(out));
  return guest.u32_at(out);
}

uint32_t CaseRun::context(Backend backend) {
  const uint32_t g = graph(backend);
  const uint32_t out = guest.out_u32();
  const Status st = nn::init_execution_context(call(), g, out);
  EXPECT_TRUE(st.ok()) << "setup: init_execution_context: " << (st.ok() ? "" : st.error().detail);
  if (!st.ok()) return kSentinel;
  track_context(guest.u32_at(out));
  return guest.u32_at(out);
}

uint32_t CaseRun::fed_context(Backend backend) {
  const uint32_t ctx = context(backend);
  const Status st = nn::set_input(call(), ctx, 0, digit_tensor());
  EXPECT_TRUE(st.ok()) << "setup: set_input: " << (st.ok() ? "" : st.error().detail);
  return ctx;
}

uint32_t CaseRun::computed_context(Backend backend) {
  const uint32_t ctx = fed_context(backend);
  const Status st = nn::compute(call(), ctx);
  EXPECT_TRUE(st.ok()) << "setup: compute: " << (st.ok() ? "" : st.error().detail);
  return ctx;
}

uint32_t CaseRun::digit_tensor() { return guest.f32_tensor({1, 64}, host.digit(sample).pixels); }

uint32_t CaseRun::legacy_digit_tensor() { return legacy_tensor({1, 64}, 1, guest.put_f32s(host.digit(sample).pixels)); }

uint32_t CaseRun::legacy_tensor(const std::vector<uint32_t>& dims, uint32_t type, uint32_t data_ptr) {
  return legacy_tensor_raw(guest.put_u32s(dims), static_cast<uint32_t>(dims.size()), type, data_ptr);
}

uint32_t CaseRun::legacy_tensor_raw(uint32_t dims_ptr, uint32_t rank, uint32_t type, uint32_t data_ptr) {
  const uint32_t dims_struct = guest.put_u32s({dims_ptr, rank});
  return guest.put_u32s({dims_struct, type, data_ptr});
}

Status CaseRun::tracked_graph(Status status, uint32_t out) {
  if (status.ok()) track_graph(guest.u32_at(out));
  return status;
}

Status CaseRun::tracked_context(Status status, uint32_t out) {
  if (status.ok()) track_context(guest.u32_at(out));
  return status;
}

void CaseRun::release_all() {
  // Errors are expected here: cases release some handles themselves (double unload, ...).
  for (uint32_t c : contexts_) (void)host.session().finalize_execution_context(c);
  for (uint32_t g : graphs_) (void)host.session().unload(g);
  contexts_.clear();
  graphs_.clear();
}

::testing::AssertionResult CaseRun::untouched(uint32_t at) const {
  const uint32_t v = guest.u32_at(at);
  if (v == kSentinel) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the host wrote " << v << " at guest address " << at
                                       << " although the call failed";
}

::testing::AssertionResult CaseRun::untouched(uint32_t at, uint32_t n, uint8_t fill) const {
  const auto bytes = guest.bytes_at(at, n);
  for (uint32_t i = 0; i < n; ++i) {
    if (bytes[i] != fill) {
      return ::testing::AssertionFailure() << "the host wrote into the guest buffer at " << at << "+" << i;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace wasinn::bad_input
