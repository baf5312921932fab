// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// witx compute(ctx) and get_output(ctx, index, out_ptr, out_max, bytes_written_ptr).
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiComputeOutput : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    ctx_ = context_on("fake:add1");
  }
  void compute_add1() {
    ASSERT_TRUE(has_errno(set_f32(ctx_, {1, 4}, {1, 2, 3, 4}), 0));
    ASSERT_TRUE(has_errno(nn::compute(call(), ctx_), 0));
  }
  uint32_t ctx_ = 0;
};

TEST_F(AbiComputeOutput, ComputeErrorsFromTheBackend) {
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx_), 1, "fake: input 0 is not set"));
  const uint32_t failing = context_on("fake:fail_compute");
  ASSERT_TRUE(has_errno(set_f32(failing, {1, 4}, {1, 2, 3, 4}), 0));
  EXPECT_TRUE(has_errno(nn::compute(call(), failing), 5, "fake: compute failed as asked"));
}

TEST_F(AbiComputeOutput, OutputBeforeCompute) {
  auto o = get_output(ctx_, 0, 64);
  EXPECT_TRUE(has_errno(o.status, 1, "fake: no outputs yet: call compute first"));
  EXPECT_EQ(o.written, kSentinel);
  compute_add1();
  ASSERT_TRUE(has_errno(set_f32(ctx_, {1, 4}, {1, 2, 3, 4}), 0));
  EXPECT_TRUE(has_errno(get_output(ctx_, 0, 64).status, 1)) << "set_input invalidates the last outputs";
}

TEST_F(AbiComputeOutput, ExactAndLargerBuffers) {
  compute_add1();
  auto exact = get_output(ctx_, 0, 16);
  ASSERT_TRUE(has_errno(exact.status, 0));
  EXPECT_EQ(exact.written, 16u);
  EXPECT_EQ(guest_.f32s_at(exact.buffer, 4), (std::vector<float>{2, 3, 4, 5}));
  auto larger = get_output(ctx_, 0, 4004);  // Wasmtime's witx tests use 1001 f32
  ASSERT_TRUE(has_errno(larger.status, 0));
  EXPECT_EQ(larger.written, 16u);
  EXPECT_EQ(guest_.f32s_at(larger.buffer, 4), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(guest_.bytes_at(larger.buffer + 16, 8), std::vector<uint8_t>(8, 0xEE)) << "nothing past the tensor";
  auto again = get_output(ctx_, 0, 16);
  EXPECT_TRUE(has_errno(again.status, 0));
  EXPECT_EQ(guest_.f32s_at(again.buffer, 4), (std::vector<float>{2, 3, 4, 5})) << "outputs can be read twice";
}

TEST_F(AbiComputeOutput, BufferTooSmallCopiesNothingAndSaysHowMuch) {
  compute_add1();
  // 0 too: only a text model's graph takes a zero-length buffer (WasmEdge's rule, for LlamaEdge).
  for (uint32_t max : {15u, 1u, 0u}) {
    auto o = get_output(ctx_, 0, max);
    EXPECT_TRUE(
        has_errno(o.status, 7, "get_output: output f32 [1, 4] is 16 bytes, the buffer holds " + std::to_string(max)));
    EXPECT_EQ(o.written, 16u) << "the required size, as WasmEdge reports it";
    EXPECT_EQ(guest_.bytes_at(o.buffer, max), std::vector<uint8_t>(max, 0xEE)) << "no partial copy";
  }
}

TEST_F(AbiComputeOutput, OutputBufferOutOfBounds) {
  compute_add1();
  const uint32_t written = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::get_output(call(), ctx_, 0, kWildPtr, 32, written), 1,
                        "get_output: output buffer: 32 bytes at guest address 0xfffffff0"));
  EXPECT_TRUE(
      has_errno(nn::get_output(call(), ctx_, 0, FakeGuest::kSize - 8, 16, written), 1, "get_output: output buffer"));
  EXPECT_TRUE(has_errno(nn::get_output(call(), ctx_, 0, guest_.buffer(16), 0xFFFFFFFF, written), 1,
                        "get_output: output buffer: 4294967295 bytes"));
  EXPECT_EQ(guest_.u32_at(written), kSentinel);
  guest_.write_at(FakeGuest::kSize - 16, std::string(16, '\0'));
  EXPECT_TRUE(has_errno(nn::get_output(call(), ctx_, 0, FakeGuest::kSize - 16, 16, written), 0))
      << "flush with the end";
  EXPECT_EQ(guest_.f32s_at(FakeGuest::kSize - 16, 4), (std::vector<float>{2, 3, 4, 5}));
}

TEST_F(AbiComputeOutput, BytesWrittenOutOfBounds) {
  compute_add1();
  const uint32_t buf = guest_.buffer(16);
  for (uint32_t written : {kWildPtr, FakeGuest::kSize - 3}) {
    EXPECT_TRUE(has_errno(nn::get_output(call(), ctx_, 0, buf, 16, written), 1, "get_output: bytes_written"));
  }
  EXPECT_EQ(guest_.bytes_at(buf, 16), std::vector<uint8_t>(16, 0xEE)) << "checked before copying";
}

TEST_F(AbiComputeOutput, UnknownOutputIndex) {
  compute_add1();
  auto o = get_output(ctx_, 1, 64);
  EXPECT_TRUE(has_errno(o.status, 1, "output index 1 is out of range: the only valid index is 0"));
  EXPECT_EQ(o.written, kSentinel);
  EXPECT_TRUE(has_errno(get_output(ctx_, UINT32_MAX, 64).status, 1, "output index 4294967295 is out of range"));
}

TEST_F(AbiComputeOutput, MalformedBackendOutputNeverReachesTheGuest) {
  const uint32_t ctx = context_on("fake:bad_output");
  ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx), 0));
  auto o = get_output(ctx, 0, 64);
  EXPECT_TRUE(has_errno(o.status, 5, "get_output: backend returned f32 [1, 4] with 12 bytes"));
  EXPECT_EQ(o.written, kSentinel);
  EXPECT_EQ(guest_.bytes_at(o.buffer, 16), std::vector<uint8_t>(16, 0xEE));
}

TEST_F(AbiComputeOutput, ContextsAreIndependent) {
  const uint32_t other = new_context(0);  // a second context on the same graph
  compute_add1();
  EXPECT_TRUE(has_errno(get_output(other, 0, 64).status, 1)) << "the other context has computed nothing";
  ASSERT_TRUE(has_errno(set_f32(other, {2}, {10, 20}), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), other), 0));
  auto a = get_output(ctx_, 0, 64), b = get_output(other, 0, 64);
  EXPECT_EQ(guest_.f32s_at(a.buffer, 4), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(guest_.f32s_at(b.buffer, 2), (std::vector<float>{11, 21}));
}

}  // namespace
}  // namespace wasinn::unit
