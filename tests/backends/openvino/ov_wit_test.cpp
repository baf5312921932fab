// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors through WIT components (wasi:nn@0.2.0-rc-2024-10-28) on real OpenVINO: the
// component guests wit_run_model and wit_classify_digits on `wasinn run`, outputs compared by
// name with OpenVINO's C++ API called directly, names with `wasinn models inspect`, and the
// digits answers with the witx guest classify_digits. A port's name is OpenVINO's
// get_any_name(); any other of its names is accepted too.
#include <random>

#include "ov_test_support.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

using ::testing::ElementsAre;

const char* const kWitTypes[] = {"fp16", "fp32", "fp64", "bf16", "u8", "i32", "i64"};
const char* const kSuffixes[] = {"f16", "f32", "f64", "bf16", "u8", "i32", "i64"};
const ov::element::Type kOvTypes[] = {ov::element::f16, ov::element::f32, ov::element::f64, ov::element::bf16,
                                      ov::element::u8,  ov::element::i32, ov::element::i64};
const size_t kElemSizes[] = {2, 4, 8, 2, 1, 4, 8};

// identity_all: seven inputs in_<type> -> seven outputs out_<type>, [2, 3] each. Given by name in
// reverse order, the outputs come back under out_<type> in the model's order, equal to native
// OpenVINO's (i64 within the i32 range: the CPU plugin runs i64 as i32).
TEST(OvWit, IdentityAllTypesByNameMatchNative) {
  const std::string xml = fixture_path("types/openvino/identity_all.xml");
  const InspectedIo io = inspect_io({xml});
  ASSERT_EQ(io.error, "");
  ASSERT_EQ(io.inputs.size(), 7u);
  ASSERT_EQ(io.outputs.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(io.inputs[i], std::string("in_") + kSuffixes[i]);
    EXPECT_EQ(io.outputs[i], std::string("out_") + kSuffixes[i]);
  }

  const std::string in = scratch_dir("identity_all_in");
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> data(7);
  std::vector<std::string> guest = {
      "--model", "/fx/types/openvino/identity_all.xml,/fx/types/openvino/identity_all.bin", "--encoding", "openvino"};
  ov::CompiledModel native = native_compile(xml, 1);
  ov::InferRequest req = native.create_infer_request();
  for (int i = 6; i >= 0; --i) {
    data[i].resize(6 * kElemSizes[i]);
    for (auto& byte : data[i]) byte = static_cast<uint8_t>(rng() % 100);  // no NaN or infinity
    if (kOvTypes[i] == ov::element::i64)                                  // within the i32 range: high halves zero
      for (size_t k = 0; k < 6; ++k) std::memset(data[i].data() + k * 8 + 4, 0, 4);
    const std::string file = std::string("/in/") + kSuffixes[i] + ".bin";
    write_file(in + "/" + kSuffixes[i] + ".bin", data[i]);
    guest.insert(guest.end(), {"--input", wit_input(io.inputs[i], kWitTypes[i], {2, 3}, file)});
    ov::Tensor t(kOvTypes[i], ov::Shape{2, 3});
    std::memcpy(t.data(), data[i].data(), data[i].size());
    req.set_tensor(io.inputs[i], t);
  }
  req.infer();
  const WitModelRun r = run_wit_model(
      "identity_all",
      {"--dir", fixtures_dir().string() + "::/fx", "--dir", in + "::/in", "--backend-config", "openvino=" + kF32},
      guest);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  EXPECT_EQ(r.names(), io.outputs);
  ASSERT_EQ(r.outputs.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    const ov::Tensor want = req.get_tensor(io.outputs[i]);
    const auto* p = static_cast<const uint8_t*>(want.data());
    EXPECT_EQ(r.outputs[i].type, kWitTypes[i]) << io.outputs[i];
    EXPECT_EQ(r.outputs[i].dims, "2x3") << io.outputs[i];
    EXPECT_EQ(r.outputs[i].data, std::vector<uint8_t>(p, p + want.get_byte_size()))
        << io.outputs[i] << " differs from native OpenVINO";
    EXPECT_EQ(r.outputs[i].data, data[i]) << io.outputs[i] << " is not the identity";
  }
}

// The digits IR through wit_classify_digits and the witx classify_digits: the same stdout and
// logits, byte for byte; its input and output by the names inspect shows.
TEST(OvWit, DigitsComponentMatchesWitxGuest) {
  const std::string xml = fixture_path("digits/openvino/model.xml");
  InspectedIo io;
  expect_digits_component_matches_witx("digits_ov",
                                       "digits:openvino:cpu:" + xml + ":" + fixture_path("digits/openvino/model.bin"),
                                       {xml}, {"--backend-config", "openvino=" + kF32}, &io);
  EXPECT_THAT(io.inputs, ElementsAre("input"));
  EXPECT_THAT(io.outputs, ElementsAre("logits"));
}

}  // namespace
}  // namespace wasinn_test
