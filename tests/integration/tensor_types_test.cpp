// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tensors of every witx element type pass through the host untouched, and tensors a model's
// input does not accept are rejected with a detail naming expected and received type/shape.
#include <gtest/gtest.h>

#include <cstring>

#include "onnx_model_writer.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

struct WitxType {
  const char* name;  // run_model's spelling, the witx tensor_type
  int64_t onnx;
  size_t size;
};
// witx has no bf16 code, so bf16 cannot reach a model from a witx guest.
constexpr WitxType kWitxTypes[] = {{"f16", onnx_model::FLOAT16, 2}, {"f32", onnx_model::FLOAT, 4},
                                   {"f64", onnx_model::DOUBLE, 8},  {"u8", onnx_model::UINT8, 1},
                                   {"i32", onnx_model::INT32, 4},   {"i64", onnx_model::INT64, 8}};
constexpr size_t kElements = 6;  // dims 2x3

// Deterministic bytes that include float NaN payloads, infinities and denormals: any
// conversion on the way would change them.
std::vector<uint8_t> pattern(size_t bytes, uint32_t seed) {
  std::vector<uint8_t> out(bytes);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& b : out) {
    s = s * 1103515245u + 12345u;
    b = static_cast<uint8_t>(s >> 16);
  }
  return out;
}

// Runs run_model.wasm with the scratch dir mounted at /s and the given arguments after it.
ChildResult run_model(const ScratchDir& dir, const std::vector<std::string>& model_args) {
  std::vector<std::string> args{"run", "--dir", dir.path().string() + "::/s", guest("run_model")};
  args.insert(args.end(), model_args.begin(), model_args.end());
  return run_wasinn(args);
}

TEST(TensorTypes, EveryWitxTypeRoundTripsBitExactly) {
  ScratchDir dir;
  std::vector<int64_t> types;
  for (const auto& t : kWitxTypes) types.push_back(t.onnx);
  const auto model = onnx_model::identity_model(types, {2, 3});
  write_bytes(dir / "identity.onnx", model.data(), model.size());

  std::vector<std::string> args{"--model", "/s/identity.onnx"};
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < std::size(kWitxTypes); ++i) {
    inputs.push_back(pattern(kElements * kWitxTypes[i].size, static_cast<uint32_t>(i)));
    const std::string in = "in" + std::to_string(i), out = "out" + std::to_string(i);
    write_bytes(dir / in, inputs.back().data(), inputs.back().size());
    args.insert(args.end(), {"--input", std::to_string(i) + ":" + kWitxTypes[i].name + ":2x3:/s/" + in, "--output",
                             std::to_string(i) + ":/s/" + out});
  }
  const ChildResult r = run_model(dir, args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (size_t i = 0; i < std::size(kWitxTypes); ++i) {
    EXPECT_EQ(read_bytes(dir / ("out" + std::to_string(i))), inputs[i]) << kWitxTypes[i].name;
  }
}

TEST(TensorTypes, IdentityAllAcceptsEachWitxTypeAtItsDeclaredIndex) {
  // identity_all.onnx declares f16 f32 f64 bf16 u8 i32 i64 in that order. Index 3 (bf16) has no
  // witx code, so compute must fail naming exactly that input as unset: the other six were
  // accepted with their witx types.
  ScratchDir dir;
  std::vector<std::string> args{"--model", "/f/types/identity_all.onnx"};
  const size_t index_of[] = {0, 1, 2, 4, 5, 6};
  for (size_t i = 0; i < std::size(kWitxTypes); ++i) {
    const auto bytes = pattern(kElements * kWitxTypes[i].size, static_cast<uint32_t>(i));
    write_bytes(dir / kWitxTypes[i].name, bytes.data(), bytes.size());
    args.insert(args.end(),
                {"--input", std::to_string(index_of[i]) + ":" + kWitxTypes[i].name + ":2x3:/s/" + kWitxTypes[i].name});
  }
  std::vector<std::string> cmd{"run",
                               "--dir",
                               fixture("types").parent_path().string() + "::/f",
                               "--dir",
                               dir.path().string() + "::/s",
                               guest("run_model")};
  cmd.insert(cmd.end(), args.begin(), args.end());
  const ChildResult r = run_wasinn(cmd);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("errno 1 in compute"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("inputs not set: input 3 (\"in_bf16\")\n"), std::string::npos) << r.describe();
}

TEST(TensorTypes, OldWitxNumberingIsDecodedByDataLength) {
  // Guests built with wasi-nn <= 0.5 send u8 as 2 and i32 as 3; the data length tells them apart
  // from the current f64 = 2 and u8 = 3.
  ScratchDir dir;
  const auto model = onnx_model::identity_model({onnx_model::UINT8, onnx_model::INT32}, {2, 3});
  write_bytes(dir / "old.onnx", model.data(), model.size());
  const auto u8 = pattern(kElements, 7), i32 = pattern(kElements * 4, 8);
  write_bytes(dir / "u8", u8.data(), u8.size());
  write_bytes(dir / "i32", i32.data(), i32.size());
  const ChildResult r = run_model(dir, {"--model", "/s/old.onnx", "--input", "0:2:2x3:/s/u8", "--input",
                                        "1:3:2x3:/s/i32", "--output", "0:/s/out0", "--output", "1:/s/out1"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(read_bytes(dir / "out0"), u8);
  EXPECT_EQ(read_bytes(dir / "out1"), i32);
}

TEST(TensorTypes, TypeTheInputDoesNotAcceptNamesExpectedAndReceived) {
  ScratchDir dir;
  const auto model = onnx_model::identity_model({onnx_model::FLOAT}, {2, 3});
  write_bytes(dir / "f32.onnx", model.data(), model.size());
  const auto ints = pattern(kElements * 4, 9);
  write_bytes(dir / "ints", ints.data(), ints.size());
  const ChildResult r = run_model(dir, {"--model", "/s/f32.onnx", "--input", "0:i32:2x3:/s/ints"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("errno 1 in set_input"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("expected f32 [2, 3], got i32 [2, 3]"), std::string::npos) << r.describe();
}

TEST(TensorTypes, DataLengthNotMatchingDimsIsInvalidArgument) {
  ScratchDir dir;
  const auto model = onnx_model::identity_model({onnx_model::FLOAT}, {2, 3});
  write_bytes(dir / "f32.onnx", model.data(), model.size());
  const auto short_data = pattern(20, 10);  // f32 [2, 3] needs 24
  write_bytes(dir / "short", short_data.data(), short_data.size());
  const ChildResult r = run_model(dir, {"--model", "/s/f32.onnx", "--input", "0:f32:2x3:/s/short"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("f32 [2, 3] needs 24 bytes of data, got 20"), std::string::npos) << r.describe();
}

TEST(TensorTypes, TwoInputsOfDifferentTypes) {
  // two_inputs.onnx: sum = a + float(b), b_times_2 = b * 2, with a f32 [1, 3] and b i64 [1, 3].
  ScratchDir dir;
  const float a[3] = {1.5f, 2.0f, -3.25f};
  const int64_t b[3] = {4, -5, 1ll << 40};
  write_bytes(dir / "a", a, sizeof a);
  write_bytes(dir / "b", b, sizeof b);
  std::vector<std::string> cmd{"run",
                               "--dir",
                               fixture("types").string() + "::/t",
                               "--dir",
                               dir.path().string() + "::/s",
                               guest("run_model"),
                               "--model",
                               "/t/two_inputs.onnx",
                               "--input",
                               "0:f32:1x3:/s/a",
                               "--input",
                               "1:i64:1x3:/s/b",
                               "--output",
                               "0:/s/sum",
                               "--output",
                               "1:/s/twice"};
  const ChildResult r = run_wasinn(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(read_array<float>(dir / "sum"), (std::vector<float>{5.5f, -3.0f, -3.25f + static_cast<float>(1ll << 40)}));
  EXPECT_EQ(read_array<int64_t>(dir / "twice"), (std::vector<int64_t>{8, -10, 1ll << 41}));
}

TEST(TensorTypes, TinyModelKnownAnswer) {
  // tiny/model.onnx: y = x + [1, 2, 3, 4]; every value below is exact in f32.
  ScratchDir dir;
  const float x[4] = {0.5f, -1.0f, 2.25f, 100.0f};
  write_bytes(dir / "x", x, sizeof x);
  std::vector<std::string> cmd{"run",
                               "--dir",
                               fixture("tiny").string() + "::/t",
                               "--dir",
                               dir.path().string() + "::/s",
                               guest("run_model"),
                               "--model",
                               "/t/model.onnx",
                               "--input",
                               "0:f32:1x4:/s/x",
                               "--output",
                               "0:/s/y"};
  const ChildResult r = run_wasinn(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(read_array<float>(dir / "y"), (std::vector<float>{1.5f, 1.0f, 5.25f, 104.0f}));
  EXPECT_NE(r.out.find("output 0: 16 bytes"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_it
