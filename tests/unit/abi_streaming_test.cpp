// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's token streaming: compute_single, get_output_single, fini_single, on a backend
// that streams and on one whose (older, shorter) function table has no streaming at all.
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

constexpr uint32_t kPytorch = 3;  // served by fake_nostream

class AbiStreaming : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    ctx_ = context_on("fake:stream:Hello, world,!");
  }
  // The next token, or "" with the errno in *status.
  std::string next_token(Status* status = nullptr) {
    Status st = nn::compute_single(call(), ctx_);
    if (st.ok()) {
      auto o = get_output_single(ctx_, 0, 64);
      st = o.status;
      if (st.ok()) {
        if (status) *status = st;
        return guest_.text_at(o.buffer, o.written);
      }
    }
    if (status) *status = st;
    return "";
  }
  uint32_t ctx_ = 0;
};

TEST_F(AbiStreaming, TokensThenEndOfSequence) {
  EXPECT_EQ(next_token(), "Hello");
  EXPECT_EQ(next_token(), " world");
  EXPECT_EQ(next_token(), "!");
  EXPECT_TRUE(has_errno(nn::compute_single(call(), ctx_), 100, "fake: end of sequence"));
  EXPECT_TRUE(has_errno(get_output_single(ctx_, 0, 64).status, 1, "fake: no token yet: call compute_single first"));
}

TEST_F(AbiStreaming, FiniSingleStartsOver) {
  EXPECT_EQ(next_token(), "Hello");
  ASSERT_TRUE(has_errno(nn::fini_single(call(), ctx_), 0));
  EXPECT_TRUE(has_errno(get_output_single(ctx_, 0, 64).status, 1)) << "fini_single drops the last token";
  EXPECT_EQ(next_token(), "Hello");
}

TEST_F(AbiStreaming, ComputeGivesTheWholeText) {
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx_), 0));
  auto o = get_output(ctx_, 0, 64);
  ASSERT_TRUE(has_errno(o.status, 0));
  EXPECT_EQ(guest_.text_at(o.buffer, o.written), "Hello world!");
}

TEST_F(AbiStreaming, OutputSingleBeforeComputeSingle) {
  auto o = get_output_single(ctx_, 0, 64);
  EXPECT_TRUE(has_errno(o.status, 1, "fake: no token yet: call compute_single first"));
  EXPECT_EQ(o.written, kSentinel);
}

TEST_F(AbiStreaming, OutputSingleBufferTooSmall) {
  ASSERT_TRUE(has_errno(nn::compute_single(call(), ctx_), 0));
  auto o = get_output_single(ctx_, 0, 3);
  EXPECT_TRUE(has_errno(o.status, 7, "get_output_single: output u8 [5] is 5 bytes, the buffer holds 3"));
  EXPECT_EQ(o.written, 5u);
  EXPECT_EQ(guest_.bytes_at(o.buffer, 3), std::vector<uint8_t>(3, 0xEE));
  auto retry = get_output_single(ctx_, 0, o.written);
  ASSERT_TRUE(has_errno(retry.status, 0)) << "the guest can retry with the size it was told";
  EXPECT_EQ(guest_.text_at(retry.buffer, retry.written), "Hello");
}

TEST_F(AbiStreaming, OutputSinglePointersOutOfBounds) {
  ASSERT_TRUE(has_errno(nn::compute_single(call(), ctx_), 0));
  const uint32_t buf = guest_.buffer(64), written = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::get_output_single(call(), ctx_, 0, kWildPtr, 32, written), 1,
                        "get_output_single: output buffer: 32 bytes at guest address 0xfffffff0"));
  EXPECT_TRUE(has_errno(nn::get_output_single(call(), ctx_, 0, buf, 0xFFFFFFFF, written), 1,
                        "get_output_single: output buffer"));
  EXPECT_TRUE(
      has_errno(nn::get_output_single(call(), ctx_, 0, buf, 64, kWildPtr), 1, "get_output_single: bytes_written"));
  EXPECT_EQ(guest_.u32_at(written), kSentinel);
  EXPECT_EQ(guest_.bytes_at(buf, 64), std::vector<uint8_t>(64, 0xEE));
}

TEST_F(AbiStreaming, OutputSingleUnknownIndex) {
  ASSERT_TRUE(has_errno(nn::compute_single(call(), ctx_), 0));
  EXPECT_TRUE(
      has_errno(get_output_single(ctx_, 1, 64).status, 1, "output index 1 is out of range: the only valid index is 0"));
}

TEST_F(AbiStreaming, ModelThatDoesNotStream) {
  const uint32_t ctx = context_on("fake:add1");
  EXPECT_TRUE(has_errno(nn::compute_single(call(), ctx), 6, "fake: model 'add1' does not stream"));
}

TEST_F(AbiStreaming, BackendWithoutStreamingFunctions) {
  const uint32_t ctx = context_on("fake:stream:a,b", kPytorch);
  EXPECT_TRUE(has_errno(nn::compute_single(call(), ctx), 6,
                        "compute_single: the fake_nostream backend does not stream tokens"));
  EXPECT_TRUE(has_errno(get_output_single(ctx, 0, 64).status, 6,
                        "get_output_single: the fake_nostream backend does not stream tokens"));
  EXPECT_TRUE(
      has_errno(nn::fini_single(call(), ctx), 6, "fini_single: the fake_nostream backend does not stream tokens"));
  EXPECT_EQ(FakePlugin::nostream().stats().calls_past_struct, 0)
      << "the host must not call fields past the plugin's struct_size";
  // The plugin still does everything else.
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx), 0));
  auto o = get_output(ctx, 0, 64);
  ASSERT_TRUE(has_errno(o.status, 0));
  EXPECT_EQ(guest_.text_at(o.buffer, o.written), "ab");
}

}  // namespace
}  // namespace wasinn::unit
