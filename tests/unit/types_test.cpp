// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Value types: element sizes, byte sizes with overflow detection, names and their parsing.
#include "core/types.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

TEST(Types, ElementSizesMatchThePluginAbi) {
  EXPECT_EQ(element_size(TensorType::f16), 2u);
  EXPECT_EQ(element_size(TensorType::f32), 4u);
  EXPECT_EQ(element_size(TensorType::f64), 8u);
  EXPECT_EQ(element_size(TensorType::bf16), 2u);
  EXPECT_EQ(element_size(TensorType::u8), 1u);
  EXPECT_EQ(element_size(TensorType::i32), 4u);
  EXPECT_EQ(element_size(TensorType::i64), 8u);
  EXPECT_EQ(element_size(TensorType::i8), 1u);
  // Same numbering as wasinn_tensor_type, so crossing the plugin boundary is a cast.
  EXPECT_EQ(static_cast<int>(TensorType::bf16), WASINN_TYPE_BF16);
  EXPECT_EQ(static_cast<int>(TensorType::i8), WASINN_TYPE_I8);
  EXPECT_TRUE(is_valid_type(7));
  EXPECT_FALSE(is_valid_type(8));
  EXPECT_FALSE(is_valid_type(WASINN_TYPE_UNKNOWN));
}

TEST(Types, TensorByteSize) {
  const uint32_t d23[] = {2, 3};
  EXPECT_EQ(*tensor_byte_size(d23, TensorType::f32), 24u);
  EXPECT_EQ(*tensor_byte_size({}, TensorType::f64), 8u) << "rank 0 is one element";
  const uint32_t d05[] = {0, 5};
  EXPECT_EQ(*tensor_byte_size(d05, TensorType::f32), 0u);
  const uint32_t big2[] = {UINT32_MAX, UINT32_MAX};
  EXPECT_EQ(*tensor_byte_size(big2, TensorType::u8), uint64_t{UINT32_MAX} * UINT32_MAX) << "fits in 64 bits";
}

TEST(Types, TensorByteSizeOverflow) {
  const uint32_t big2[] = {UINT32_MAX, UINT32_MAX};
  EXPECT_TRUE(has_errno(tensor_byte_size(big2, TensorType::f32), 1, "f32 [4294967295, 4294967295] overflow 64 bits"));
  const uint32_t big3[] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  EXPECT_TRUE(has_errno(tensor_byte_size(big3, TensorType::u8), 1, "overflow 64 bits"));
  const uint32_t just[] = {1u << 31, 1u << 30};  // 2^61 elements * 8 bytes = 2^64
  EXPECT_TRUE(has_errno(tensor_byte_size(just, TensorType::i64), 1, "overflow"));
  EXPECT_EQ(*tensor_byte_size(just, TensorType::f32), uint64_t{1} << 63);
}

TEST(Types, ParseEncodingIsCaseInsensitiveWithWasmEdgeSpellings) {
  EXPECT_EQ(parse_encoding("GGML"), Encoding::ggml);
  EXPECT_EQ(parse_encoding("PyTorch"), Encoding::pytorch);
  EXPECT_EQ(parse_encoding("ONNX"), Encoding::onnx);
  EXPECT_EQ(parse_encoding("OpenVINO"), Encoding::openvino);
  EXPECT_EQ(parse_encoding("Tensorflow"), Encoding::tensorflow);
  EXPECT_EQ(parse_encoding("TensorflowLite"), Encoding::tensorflowlite);
  EXPECT_EQ(parse_encoding("tflite"), Encoding::tensorflowlite);
  EXPECT_EQ(parse_encoding("torch"), Encoding::pytorch);
  EXPECT_EQ(parse_encoding("AUTO"), Encoding::autodetect);
  EXPECT_EQ(parse_encoding("Autodetect"), Encoding::autodetect);
  EXPECT_EQ(parse_encoding("caffe"), std::nullopt);
  EXPECT_EQ(parse_encoding(""), std::nullopt);
  EXPECT_EQ(parse_encoding("onnx "), std::nullopt);
}

TEST(Types, ParseTarget) {
  EXPECT_EQ(parse_target("CPU"), Target::cpu);
  EXPECT_EQ(parse_target("Gpu"), Target::gpu);
  EXPECT_EQ(parse_target("TPU"), Target::tpu);
  EXPECT_EQ(parse_target("npu"), Target::tpu);
  EXPECT_EQ(parse_target("AUTO"), Target::autodetect);
  EXPECT_EQ(parse_target("fpga"), std::nullopt);
  EXPECT_EQ(parse_target(""), std::nullopt);
}

TEST(Types, Descriptions) {
  const uint32_t dims[] = {1, 64};
  EXPECT_EQ(describe_tensor(TensorType::f32, dims), "f32 [1, 64]");
  EXPECT_EQ(describe_tensor(TensorType::u8, {}), "u8 []");
  EXPECT_EQ((TensorId{3, std::nullopt}.describe()), "3");
  EXPECT_EQ((TensorId{0, std::string_view("input")}.describe()), "\"input\"");
}

}  // namespace
}  // namespace wasinn::unit
