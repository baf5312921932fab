// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors through WIT components (wasi:nn@0.2.0-rc-2024-10-28) on real libtorch: the
// component guests wit_run_model and wit_classify_digits on `wasinn run`, their outputs compared
// by name with native libtorch, the names with `wasinn models inspect`, and the digits answers
// with the witx guest classify_digits on the same model. TorchScript names no outputs: wasinn
// calls a tuple's element i "output<i>" and a single result "output0".
#include "native_torch.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kOneThread = R"(pytorch={"num_threads": 1})";

std::vector<std::string> host_args(const std::string& out) {
  return {"--dir", fixtures_dir().string() + "::/fx", "--dir", out + "::/in", "--backend-config", kOneThread};
}

// Each output under the name, type and dims native libtorch gives it, byte for byte.
void expect_native_outputs(const WitModelRun& r, const std::vector<HostTensor>& want,
                           const std::vector<std::string>& names, const std::vector<std::string>& types,
                           const std::vector<std::string>& dims) {
  ASSERT_EQ(r.outputs.size(), want.size()) << r.run.output;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.outputs[i].name, names[i]) << i;
    EXPECT_EQ(r.outputs[i].type, types[i]) << names[i];
    EXPECT_EQ(r.outputs[i].dims, dims[i]) << names[i];
    EXPECT_TRUE(r.outputs[i].data == want[i].bytes) << names[i] << " differs from native libtorch";
  }
}

// Tuple[Tensor, Tensor, Tensor] from (a, b): inputs bound by name in either order, outputs
// output0..2 in the tuple's order, as `models inspect` lists them, equal to native libtorch.
TEST(TorchWit, TwoInputsThreeOutputsByNameMatchNative) {
  const std::string model = (fixtures_dir() / "types/two_in_three_out.pt").string();
  const InspectedIo io = inspect_io({"--encoding", "pytorch", model});
  ASSERT_EQ(io.error, "");
  EXPECT_THAT(io.inputs, ElementsAre("a", "b"));
  EXPECT_THAT(io.outputs, ElementsAre("output0", "output1", "output2"));

  const std::string in = scratch_dir("two_in_three_out_in");
  const HostTensor a = make_tensor<float>(WASINN_TYPE_F32, {2, 3}, {0.25f, -1, 3, -7.5f, 2, 0});
  const HostTensor b = make_tensor<int64_t>(WASINN_TYPE_I64, {2, 3}, {9, -8, 7, 100, 0, -1});
  write_file(in + "/a.f32", a.bytes);
  write_file(in + "/b.i64", b.bytes);
  const auto want = native_forward(model, {a, b});
  ASSERT_EQ(want.size(), 3u);
  const std::string in_a = wit_input("a", "fp32", {2, 3}, "/in/a.f32");
  const std::string in_b = wit_input("b", "i64", {2, 3}, "/in/b.i64");
  for (bool reversed : {false, true}) {
    const WitModelRun r = run_wit_model(reversed ? "two_in_three_out_ba" : "two_in_three_out_ab", host_args(in),
                                        {"--model", "/fx/types/two_in_three_out.pt", "--encoding", "pytorch", "--input",
                                         reversed ? in_b : in_a, "--input", reversed ? in_a : in_b});
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    EXPECT_EQ(r.names(), io.outputs);
    expect_native_outputs(r, want, {"output0", "output1", "output2"}, {"fp32", "i64", "u8"}, {"2x3", "2", "2x3"});
  }
}

// The plugin's get_output takes the names `models inspect` shows, as a witx guest would pass them.
TEST(TorchWit, GetOutputByTheNamesInspectShows) {
  Backend b(api());
  Graph g = load_model(b, "types/two_in_three_out.pt");
  Context c(api(), g.ptr);
  Diag d;
  const HostTensor a = make_tensor<float>(WASINN_TYPE_F32, {1, 2}, {1, -2});
  const HostTensor bb = make_tensor<int64_t>(WASINN_TYPE_I64, {1, 2}, {3, 4});
  ASSERT_EQ(set_input(c.ptr, by_name("a"), a, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(c.ptr, by_name("b"), bb, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  for (uint32_t i = 0; i < 3; ++i)
    EXPECT_EQ(output(c.ptr, by_name("output" + std::to_string(i))).bytes, output(c.ptr, by_index(i)).bytes) << i;
  wasinn_tensor t{};
  const wasinn_tensor_id bad = by_name("output3");
  EXPECT_EQ(api().get_output(c.ptr, &bad, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr(R"(the model's outputs are "output0", "output1", "output2")"));

  // A list's elements are named at compute, the same way: List[Tensor] [x, x * 3].
  Graph gl = load_model(b, "types/list_out.pt");
  EXPECT_EQ(api().graph_io_count(gl.ptr, 1), 0u);
  Context cl(api(), gl.ptr);
  ASSERT_EQ(set_input(cl.ptr, by_index(0), a, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(cl.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(cl.ptr, by_name("output0")).as<float>(), (std::vector<float>{1, -2}));
  EXPECT_EQ(output(cl.ptr, by_name("output1")).as<float>(), (std::vector<float>{3, -6}));
}

// forward(x, bias: Optional[Tensor] = None, scale: int = 2): a component may leave out bias and
// scale, which take their defaults, as natively.
TEST(TorchWit, OptionalAndDefaultedInputsMayBeLeftOut) {
  const std::string model = (fixtures_dir() / "types/optional_input.pt").string();
  const InspectedIo io = inspect_io({"--encoding", "pytorch", model});
  ASSERT_EQ(io.error, "");
  EXPECT_THAT(io.inputs, ElementsAre("x", "bias", "scale"));
  EXPECT_THAT(io.input_framework_types[1], HasSubstr("Optional"));
  EXPECT_THAT(io.input_framework_types[2], HasSubstr("optional"));
  EXPECT_THAT(io.outputs, ElementsAre("output0"));

  const std::string in = scratch_dir("optional_in");
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {3}, {1.5f, -2, 4});
  write_file(in + "/x.f32", x.bytes);
  write_file(in + "/scale.i64", as_bytes(std::vector<int64_t>{5}));
  const std::vector<std::string> base = {"--model", "/fx/types/optional_input.pt",           "--encoding", "pytorch",
                                         "--input", wit_input("x", "fp32", {3}, "/in/x.f32")};
  struct Case {
    const char* name;
    std::vector<std::string> more;
    std::vector<NativeArg> native;
  } cases[] = {
      {"bias_left_out", {"--input", wit_input("scale", "i64", {}, "/in/scale.i64")}, {x, std::monostate{}, int64_t{5}}},
      {"bias_and_scale_left_out", {}, {x}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = base;
    args.insert(args.end(), c.more.begin(), c.more.end());
    const WitModelRun r = run_wit_model(c.name, host_args(in), args);
    ASSERT_EQ(r.run.exit_code, 0) << c.name << ": " << r.run.output;
    const auto want = native_forward_args(model, c.native);
    ASSERT_EQ(want.size(), 1u);
    expect_native_outputs(r, want, {"output0"}, {"fp32"}, {"3"});
  }
  // x has no default: leaving it out is the host's invalid-argument naming the inputs.
  const WitModelRun missing =
      run_wit_model("x_left_out", host_args(in), {"--model", "/fx/types/optional_input.pt", "--encoding", "pytorch"});
  EXPECT_THAT(missing.run.output, HasSubstr("error invalid-argument"));
  EXPECT_THAT(missing.run.output, HasSubstr("input 'x' is missing"));
}

// `types/<stem>.pt` of one input x (f32) through wit_run_model, its outputs compared with native
// libtorch's under `names`, each fp32 with `dims`; `models inspect` declares none (a list's or a
// dict's length is known only after a compute).
void expect_x_model_matches_native(const std::string& stem, const HostTensor& x, const std::vector<std::string>& names,
                                   const std::vector<std::string>& dims, std::vector<HostTensor>* native = nullptr) {
  const std::string model = (fixtures_dir() / ("types/" + stem + ".pt")).string();
  const InspectedIo io = inspect_io({"--encoding", "pytorch", model});
  ASSERT_EQ(io.error, "");
  EXPECT_TRUE(io.outputs.empty()) << stem;
  const std::string in = scratch_dir(stem + "_in");
  write_file(in + "/x.f32", x.bytes);
  const WitModelRun r = run_wit_model(stem, host_args(in),
                                      {"--model", "/fx/types/" + stem + ".pt", "--encoding", "pytorch", "--input",
                                       wit_input("x", "fp32", x.dims, "/in/x.f32")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  const auto want = native_forward(model, {x});
  if (native) *native = want;
  expect_native_outputs(r, want, names, std::vector<std::string>(names.size(), "fp32"), dims);
}

// Dict[str, Tensor]: its keys exist only after a compute and the plugin ABI has no call to name
// an output then, so a component gets the entries in sorted key order under output0..2 (a witx
// guest's get_output takes the keys); the values equal native libtorch's.
TEST(TorchWit, DictOutputsComeInSortedKeyOrderAsOutputI) {
  std::vector<HostTensor> native;
  expect_x_model_matches_native("dict_out", make_tensor<float>(WASINN_TYPE_F32, {2}, {3, -1}),
                                {"output0", "output1", "output2"}, {"2", "1", "2"}, &native);
  ASSERT_EQ(native.size(), 3u);
  EXPECT_EQ(native[0].name, "alpha");
  EXPECT_EQ(native[2].name, "zeta");
}

// List[Tensor]: output0, output1 in the list's order, equal to native libtorch.
TEST(TorchWit, ListOutputsComeAsOutputI) {
  expect_x_model_matches_native("list_out", make_tensor<float>(WASINN_TYPE_F32, {3}, {2, -0.5f, 7}),
                                {"output0", "output1"}, {"3", "3"});
}

// The digits MLP through wit_classify_digits (input by the name inspect shows) and through the
// witx classify_digits, both on name:digits: the same stdout and logits, byte for byte.
TEST(TorchWit, DigitsComponentMatchesWitxGuest) {
  // digits/digits_mlp.pt is a state_dict, not TorchScript: model.pt is the digits model.
  const std::string model = (fixtures_dir() / "digits/model.pt").string();
  InspectedIo io;
  expect_digits_component_matches_witx("digits_pt", "digits:pytorch:cpu:" + model, {"--encoding", "pytorch", model},
                                       {"--backend-config", kOneThread}, &io);
  EXPECT_THAT(io.inputs, ElementsAre("input"));
  EXPECT_THAT(io.outputs, ElementsAre("output0"));
}

}  // namespace
}  // namespace wasinn_test
