// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// witx set_input(ctx, index, tensor_ptr): decoding the 20-byte tensor record and every errno.
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiSetInput : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    ctx_ = context_on("fake:add1");
  }
  Status set(uint32_t tensor) { return nn::set_input(call(), ctx_, 0, tensor); }
  // The type the host decoded, as the echo model hands it back, or the set_input error.
  Result<TensorType> echoed_type(uint8_t type_byte, const std::vector<uint32_t>& dims, uint32_t data_len) {
    const uint32_t ctx = context_on("fake:echo");
    const std::vector<uint8_t> data(data_len, 7);
    WASINN_TRY(nn::set_input(call(), ctx, 0, guest_.tensor(dims, type_byte, data)));
    WASINN_TRY(nn::compute(call(), ctx));
    auto held = session_->get_output(ctx, TensorId{0, std::nullopt});
    if (!held) return held.take_error();
    return held->view.type;
  }
  uint32_t ctx_ = 0;
};

TEST_F(AbiSetInput, F32InputReachesTheModel) {
  ASSERT_TRUE(has_errno(set(guest_.f32_tensor({1, 4}, {0.5f, 1, -2, 10})), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx_), 0));
  auto o = get_output(ctx_, 0, 16);
  ASSERT_TRUE(has_errno(o.status, 0));
  EXPECT_EQ(guest_.f32s_at(o.buffer, 4), (std::vector<float>{1.5f, 2, -1, 11}));
}

TEST_F(AbiSetInput, SecondSetInputReplacesTheFirst) {
  ASSERT_TRUE(has_errno(set(guest_.f32_tensor({1, 4}, {1, 1, 1, 1})), 0));
  ASSERT_TRUE(has_errno(set(guest_.f32_tensor({2}, {7, 8})), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx_), 0));
  auto o = get_output(ctx_, 0, 64);
  ASSERT_TRUE(has_errno(o.status, 0));
  ASSERT_EQ(o.written, 8u);
  EXPECT_EQ(guest_.f32s_at(o.buffer, 2), (std::vector<float>{8, 9}));
}

TEST_F(AbiSetInput, PaddingBytesAreIgnored) {
  const std::vector<float> x{1, 2, 3, 4};
  const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(x.data()), 16);
  for (uint8_t pad : {0x00, 0x01, 0xA5, 0xFF}) {
    const uint32_t rec = guest_.tensor_record(guest_.put_u32s({1, 4}), 2, 1, guest_.put(data), 16, pad);
    EXPECT_TRUE(has_errno(set(rec), 0)) << "padding " << int(pad);
  }
}

TEST_F(AbiSetInput, ScalarEmptyAndUnalignedDims) {
  EXPECT_TRUE(has_errno(set(guest_.f32_tensor({}, {3})), 0)) << "rank 0 is one element";
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(guest_.put_u32s({0, 4}), 2, 1, FakeGuest::kSize, 0)), 0))
      << "no elements: 0 data bytes, even at the very end of memory";
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx_), 0));
  EXPECT_EQ(get_output(ctx_, 0, 0).written, 0u);
  guest_.alloc(1, 1);
  const uint32_t odd_dims = guest_.put_u32s({1, 2}, 1);
  ASSERT_NE(odd_dims % 4, 0u);
  const std::vector<float> x{1, 2};
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(odd_dims, 2, 1, guest_.put_f32s(x), 8)), 0)) << "unaligned dims";
}

TEST_F(AbiSetInput, RecordOutOfBounds) {
  for (uint32_t at : {kWildPtr, FakeGuest::kSize - 19, FakeGuest::kSize}) {
    EXPECT_TRUE(has_errno(set(at), 1, "set_input: tensor: 20 bytes at guest address")) << at;
  }
}

TEST_F(AbiSetInput, DimsOutOfBounds) {
  const uint32_t data = guest_.put_f32s({1, 2, 3, 4});
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(kWildPtr, 2, 1, data, 16)), 1,
                        "set_input: tensor dims: 8 bytes at guest address 0xfffffff0"));
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(FakeGuest::kSize - 4, 2, 1, data, 16)), 1, "set_input: tensor dims"));
}

TEST_F(AbiSetInput, RankLimit) {
  const uint32_t data = guest_.put_f32s({1});
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(guest_.put_u32s({1}), 0xFFFFFFFF, 1, data, 4)), 1,
                        "set_input: rank 4294967295 exceeds the limit of 64"));
  const uint32_t ones65 = guest_.put_u32s(std::vector<uint32_t>(65, 1));
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(ones65, 65, 1, data, 4)), 1, "rank 65 exceeds the limit of 64"));
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(ones65, 64, 1, data, 4)), 0)) << "64 is within the limit";
}

TEST_F(AbiSetInput, DataOutOfBounds) {
  const uint32_t dims = guest_.put_u32s({8});
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(dims, 1, 1, kWildPtr, 32)), 1,
                        "set_input: tensor data: 32 bytes at guest address 0xfffffff0"));
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(dims, 1, 1, guest_.put_f32s({1}), 0xFFFFFFFF)), 1,
                        "tensor data: 4294967295 bytes"));
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(dims, 1, 1, FakeGuest::kSize - 31, 32)), 1, "tensor data"));
}

TEST_F(AbiSetInput, TypeOutOfRange) {
  for (int type : {6, 7, 255}) {
    EXPECT_TRUE(
        has_errno(set(guest_.tensor(std::vector<uint32_t>{4}, static_cast<uint8_t>(type), std::vector<uint8_t>(4))), 1,
                  "tensor type " + std::to_string(type) + " is not a witx tensor_type"));
  }
}

TEST_F(AbiSetInput, DimsProductOverflow) {
  const uint32_t data = guest_.put_f32s({1});
  const uint32_t huge3 = guest_.put_u32s({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF});
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(huge3, 3, 1, data, 4)), 1,
                        "set_input: the product of the tensor dims [4294967295, 4294967295, 4294967295] "
                        "overflows 64 bits"));
  // The element count fits in 64 bits, the byte count does not.
  const uint32_t huge2 = guest_.put_u32s({0xFFFFFFFF, 0xFFFFFFFF});
  EXPECT_TRUE(
      has_errno(set(guest_.tensor_record(huge2, 2, 1, data, 4)), 1, "f32 [4294967295, 4294967295] overflow 64 bits"));
}

TEST_F(AbiSetInput, DataLengthMustMatchDims) {
  const uint32_t dims = guest_.put_u32s({1, 4});
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(dims, 2, 1, guest_.put_f32s({1, 2, 3}), 12)), 1,
                        "input 0: f32 [1, 4] needs 16 bytes of data, got 12"));
  EXPECT_TRUE(has_errno(set(guest_.tensor_record(dims, 2, 1, guest_.put_f32s({1, 2, 3, 4, 5}), 20)), 1,
                        "needs 16 bytes of data, got 20"));
}

TEST_F(AbiSetInput, TensorBytesLimit) {
  Limits limits;
  limits.max_tensor_bytes = 12;
  start(limits);
  ctx_ = context_on("fake:add1");
  EXPECT_TRUE(
      has_errno(set(guest_.f32_tensor({1, 4}, {1, 2, 3, 4})), 7, "input 0: 16 bytes exceed the tensor limit of 12"));
  EXPECT_TRUE(has_errno(set(guest_.f32_tensor({3}, {1, 2, 3})), 0));
}

TEST_F(AbiSetInput, BackendRefusals) {
  EXPECT_TRUE(
      has_errno(set(guest_.tensor({4}, 4, std::vector<uint8_t>(16))), 1, "fake: input must be f32, got type 5"));
  EXPECT_TRUE(has_errno(nn::set_input(call(), ctx_, 1, guest_.f32_tensor({1}, {1})), 1,
                        "input index 1 is out of range: the only valid index is 0"));
  EXPECT_TRUE(has_errno(nn::compute(call(), ctx_), 1, "fake: input 0 is not set")) << "refused inputs were not kept";
}

TEST_F(AbiSetInput, TypesTwoAndThreeFollowTheDataLength) {
  EXPECT_EQ(*echoed_type(0, {2}, 4), TensorType::f16);
  EXPECT_EQ(*echoed_type(1, {2}, 8), TensorType::f32);
  EXPECT_EQ(*echoed_type(2, {4}, 4), TensorType::u8) << "old witx: 2 = u8";
  EXPECT_EQ(*echoed_type(2, {4}, 32), TensorType::f64) << "current witx: 2 = f64";
  EXPECT_EQ(*echoed_type(3, {4}, 16), TensorType::i32) << "old witx: 3 = i32";
  EXPECT_EQ(*echoed_type(3, {4}, 4), TensorType::u8) << "current witx: 3 = u8";
  EXPECT_EQ(*echoed_type(4, {4}, 16), TensorType::i32);
  EXPECT_EQ(*echoed_type(5, {2}, 16), TensorType::i64);
  EXPECT_TRUE(has_errno(echoed_type(2, {4}, 16), 1, "f64 [4] needs 32 bytes of data, got 16"))
      << "neither reading fits: the current meaning is reported";
  EXPECT_TRUE(has_errno(echoed_type(3, {4}, 8), 1, "u8 [4] needs 4 bytes of data, got 8"));
}

}  // namespace
}  // namespace wasinn::unit
