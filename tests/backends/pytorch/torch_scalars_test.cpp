// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// TorchScript int, float and bool arguments and results through the plugin's C table: scalar
// arguments from one-element tensors, defaults for unset ones, refusals with their details,
// scalar and nested-tuple outputs, and the io info (types, ranks, framework types) that
// forward's schema declares. Reference: native libtorch on the same file, and known answers.
#include "native_torch.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

std::string fixture_path(const std::string& rel) { return (fixtures_dir() / rel).string(); }

// A one-element tensor of `type` holding `value`, with the given dims (rank 0 by default).
template <typename T>
HostTensor one(int32_t type, T value, std::vector<uint32_t> dims = {}) {
  return make_tensor<T>(type, std::move(dims), {value});
}

void expect_same(const HostTensor& got, const HostTensor& want, const std::string& what) {
  EXPECT_EQ(got.type, want.type) << what;
  EXPECT_EQ(got.dims, want.dims) << what;
  EXPECT_TRUE(got.bytes == want.bytes) << what << " differs from native libtorch";
}

std::vector<HostTensor> outputs(wasinn_context* c, uint32_t n) {
  std::vector<HostTensor> out;
  for (uint32_t i = 0; i < n; ++i) out.push_back(output(c, by_index(i)));
  return out;
}

// The four outputs of scalar_args.pt: y, offset * 3, scale / 4, not flip.
void expect_scalar_args_outputs(wasinn_context* c, const std::vector<NativeArg>& args, const std::string& what) {
  const auto got = outputs(c, 4);
  const auto want = native_forward_args(fixture_path("types/scalar_args.pt"), args);
  ASSERT_EQ(want.size(), 4u) << what;
  for (size_t i = 0; i < 4; ++i) expect_same(got[i], want[i], what + ", output " + std::to_string(i));
  for (size_t i = 1; i < 4; ++i) EXPECT_TRUE(got[i].dims.empty()) << what << ": rank 0";
  EXPECT_EQ(got[1].type, WASINN_TYPE_I64) << what;
  EXPECT_EQ(got[2].type, WASINN_TYPE_F64) << what;
  EXPECT_EQ(got[3].type, WASINN_TYPE_U8) << what;
}

const HostTensor kX = make_tensor<float>(WASINN_TYPE_F32, {2, 2}, {1, -2, 0.5f, 4});

TEST(TorchScalars, ArgumentsFromOneElementTensorsMatchNative) {
  Backend b(api());
  Graph g = load_model(b, "types/scalar_args.pt");
  Context c(api(), g.ptr);
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_name("x"), kX, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(c.ptr, by_name("scale"), one<double>(WASINN_TYPE_F64, 2.5), d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(c.ptr, by_index(2), one<int64_t>(WASINN_TYPE_I64, 3), d), WASINN_OK) << d.detail;
  // flip is left unset: its default, False.
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  expect_scalar_args_outputs(c.ptr, {kX, 2.5, int64_t{3}}, "flip at its default");
  // Known answers: x * 2.5 + 3, 3 * 3, 2.5 / 4, not False.
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{5.5f, -2, 4.25f, 13}));
  EXPECT_EQ(output(c.ptr, by_index(1)).as<int64_t>(), std::vector<int64_t>{9});
  EXPECT_EQ(output(c.ptr, by_index(2)).as<double>(), std::vector<double>{0.625});
  EXPECT_EQ(output(c.ptr, by_index(3)).bytes, std::vector<uint8_t>{1});

  ASSERT_EQ(set_input(c.ptr, by_name("flip"), one<uint8_t>(WASINN_TYPE_U8, 1), d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  expect_scalar_args_outputs(c.ptr, {kX, 2.5, int64_t{3}, true}, "flipped");
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{-5.5f, 2, -4.25f, -13}));
  EXPECT_EQ(output(c.ptr, by_index(3)).bytes, std::vector<uint8_t>{0});
}

// Every compatible type and any shape of one element gives the same exact value.
TEST(TorchScalars, EveryCompatibleTypeAndOneElementShape) {
  Backend b(api());
  Graph g = load_model(b, "types/scalar_args.pt");
  Context c(api(), g.ptr);
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), kX, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(c.ptr, by_index(3), one<uint8_t>(WASINN_TYPE_U8, 0, {1}), d), WASINN_OK);
  const HostTensor scales[] = {
      one<double>(WASINN_TYPE_F64, -1.25, {1}), one<float>(WASINN_TYPE_F32, -1.25f, {1, 1, 1}),
      one<uint16_t>(WASINN_TYPE_F16, 0xBD00),   // -1.25 in IEEE half
      one<uint16_t>(WASINN_TYPE_BF16, 0xBFA0),  // -1.25 in bfloat16
  };
  const HostTensor offsets[] = {one<int64_t>(WASINN_TYPE_I64, -7, {1}), one<int32_t>(WASINN_TYPE_I32, -7, {1, 1}),
                                one<int8_t>(WASINN_TYPE_I8, -7), one<uint8_t>(WASINN_TYPE_U8, 200)};
  for (const HostTensor& scale : scales)
    for (const HostTensor& offset : offsets) {
      const std::string what = "scale " + std::to_string(scale.type) + ", offset " + std::to_string(offset.type);
      ASSERT_EQ(set_input(c.ptr, by_index(1), scale, d), WASINN_OK) << what << ": " << d.detail;
      ASSERT_EQ(set_input(c.ptr, by_index(2), offset, d), WASINN_OK) << what << ": " << d.detail;
      ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << what << ": " << d.detail;
      const int64_t off = offset.type == WASINN_TYPE_U8 ? 200 : -7;
      expect_scalar_args_outputs(c.ptr, {kX, -1.25, off, false}, what);
      EXPECT_EQ(output(c.ptr, by_index(1)).as<int64_t>(), std::vector<int64_t>{off * 3}) << what;
      EXPECT_EQ(output(c.ptr, by_index(2)).as<double>(), std::vector<double>{-0.3125}) << what;
    }
}

TEST(TorchScalars, WrongTypeCountOrValueIsInvalidArgument) {
  Backend b(api());
  Graph g = load_model(b, "types/scalar_args.pt");
  Context c(api(), g.ptr);
  Diag d;
  struct Case {
    uint32_t index;
    HostTensor tensor;
    const char* detail;
  } cases[] = {
      {1, one<int64_t>(WASINN_TYPE_I64, 2),
       "input 1 (\"scale\") is a TorchScript float, which takes one f64, f32, f16 or bf16 "
       "element, got i64 []"},
      {2, one<float>(WASINN_TYPE_F32, 3),
       "input 2 (\"offset\") is a TorchScript int, which takes one i64, i32, i8 or u8 element, "
       "got f32 []"},
      {2, make_tensor<int64_t>(WASINN_TYPE_I64, {2}, {3, 4}),
       "input 2 (\"offset\") is a TorchScript int, which takes one i64, i32, i8 or u8 element, "
       "got i64 [2] (2 elements)"},
      {2, make_tensor<int64_t>(WASINN_TYPE_I64, {1, 0}, {}), "got i64 [1, 0] (0 elements)"},
      {1, make_tensor<double>(WASINN_TYPE_F64, {2, 3}, std::vector<double>(6, 1)), "got f64 [2, 3] (6 elements)"},
      {3, one<uint8_t>(WASINN_TYPE_U8, 2),
       "input 3 (\"flip\") is a TorchScript bool, which takes one u8 element, 0 or 1, got u8 2"},
      {3, one<int64_t>(WASINN_TYPE_I64, 1), "input 3 (\"flip\") is a TorchScript bool"},
  };
  for (const Case& k : cases) {
    EXPECT_EQ(set_input(c.ptr, by_index(k.index), k.tensor, d), WASINN_INVALID_ARGUMENT) << k.detail;
    EXPECT_THAT(d.detail, HasSubstr(k.detail));
  }
  // The byte count is checked before the element: 4 bytes cannot be an i64.
  HostTensor short_i64 = one<int32_t>(WASINN_TYPE_I32, 3);
  short_i64.type = WASINN_TYPE_I64;
  EXPECT_EQ(set_input(c.ptr, by_index(2), short_i64, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("i64 [] needs 8 bytes, got 4"));

  // Refused values set nothing: scale and offset are missing; flip, with a default, is not.
  ASSERT_EQ(set_input(c.ptr, by_index(0), kX, d), WASINN_OK) << d.detail;
  EXPECT_EQ(compute(c.ptr, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("inputs not set: input 1 (\"scale\"), input 2 (\"offset\")"));
  EXPECT_THAT(d.detail, ::testing::Not(HasSubstr("flip")));

  // A refused value keeps the one set before it.
  ASSERT_EQ(set_input(c.ptr, by_index(1), one<double>(WASINN_TYPE_F64, 2.5), d), WASINN_OK);
  ASSERT_EQ(set_input(c.ptr, by_index(2), one<int64_t>(WASINN_TYPE_I64, 3), d), WASINN_OK);
  EXPECT_EQ(set_input(c.ptr, by_index(2), one<float>(WASINN_TYPE_F32, 100), d), WASINN_INVALID_ARGUMENT);
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(c.ptr, by_index(1)).as<int64_t>(), std::vector<int64_t>{9});
}

// A failing forward names the scalars it was given, as it names tensors.
TEST(TorchScalars, ForwardFailureDetailNamesScalarArguments) {
  Backend b(api());
  const auto archive = native_script_archive(R"(
def forward(self, x: Tensor, n: int, f: float, b: bool) -> Tensor:
    return x.reshape(n) * f
)");
  Graph g;
  Diag d;
  ASSERT_EQ(load_bytes(b, {archive}, g, d), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  ASSERT_EQ(set_input(c.ptr, by_index(0), kX, d), WASINN_OK);
  ASSERT_EQ(set_input(c.ptr, by_index(1), one<int64_t>(WASINN_TYPE_I64, 5), d), WASINN_OK);
  ASSERT_EQ(set_input(c.ptr, by_index(2), one<double>(WASINN_TYPE_F64, 0.5), d), WASINN_OK);
  ASSERT_EQ(set_input(c.ptr, by_index(3), one<uint8_t>(WASINN_TYPE_U8, 1), d), WASINN_OK);
  EXPECT_EQ(compute(c.ptr, d), WASINN_RUNTIME_ERROR);
  EXPECT_THAT(d.detail, HasSubstr("shape '[5]' is invalid for input of size 4"));
  EXPECT_THAT(d.detail, HasSubstr("(inputs: input 0 (\"x\") f32 [2, 2]; input 1 (\"n\") int 5; "
                                  "input 2 (\"f\") float 0.5; input 3 (\"b\") bool true)"));
  // The same arguments with n = 4 compute: x.reshape(4) * 0.5.
  ASSERT_EQ(set_input(c.ptr, by_index(1), one<int64_t>(WASINN_TYPE_I64, 4), d), WASINN_OK);
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{0.5f, -1, 0.25f, 2}));
}

TEST(TorchScalars, IoInfoDeclaresScalarsAndTorchScriptTypes) {
  ASSERT_NE(api().graph_io_framework_type, nullptr);
  Backend b(api());
  struct Slot {
    const char* name;
    int32_t type;
    int32_t rank;
    const char* framework_type;
  };
  auto expect_io = [&](const char* model, int is_output, std::vector<Slot> want) {
    Graph g = load_model(b, model);
    ASSERT_NE(g.ptr, nullptr) << model;
    ASSERT_EQ(api().graph_io_count(g.ptr, is_output), want.size()) << model;
    for (size_t i = 0; i < want.size(); ++i) {
      const std::string what = std::string(model) + (is_output ? " output " : " input ") + std::to_string(i);
      wasinn_io_info info{};
      ASSERT_EQ(api().graph_io_info(g.ptr, is_output, i, &info), WASINN_OK) << what;
      EXPECT_STREQ(info.name, want[i].name) << what;
      EXPECT_EQ(info.type, want[i].type) << what;
      EXPECT_EQ(info.rank, want[i].rank) << what;
      const char* words = api().graph_io_framework_type(g.ptr, is_output, i);
      ASSERT_NE(words, nullptr) << what;
      EXPECT_STREQ(words, want[i].framework_type) << what;
    }
    EXPECT_EQ(api().graph_io_framework_type(g.ptr, is_output, want.size()), nullptr) << model;
  };
  constexpr int32_t U = WASINN_TYPE_UNKNOWN;
  expect_io("types/scalar_args.pt", 0,
            {{"x", U, -1, "TorchScript Tensor"},
             {"scale", WASINN_TYPE_F64, 0, "TorchScript float"},
             {"offset", WASINN_TYPE_I64, 0, "TorchScript int"},
             {"flip", WASINN_TYPE_U8, 0, "TorchScript bool (optional, default False)"}});
  // Tuple[Tensor, Tuple[int, float], bool], flattened depth-first.
  expect_io("types/scalar_args.pt", 1,
            {{"output0", U, -1, "TorchScript Tensor"},
             {"output1", WASINN_TYPE_I64, 0, "TorchScript int"},
             {"output2", WASINN_TYPE_F64, 0, "TorchScript float"},
             {"output3", WASINN_TYPE_U8, 0, "TorchScript bool"}});
  expect_io("types/named_scalars.pt", 0,
            {{"x", U, -1, "TorchScript Tensor"}, {"limit", WASINN_TYPE_I64, 0, "TorchScript Optional[int]"}});
  // Summary(head: Tensor, stats: Stats(count: int, mean: float, any_negative: bool)): the
  // field paths name the outputs.
  expect_io("types/named_scalars.pt", 1,
            {{"head", U, -1, "TorchScript Tensor"},
             {"stats.count", WASINN_TYPE_I64, 0, "TorchScript int"},
             {"stats.mean", WASINN_TYPE_F64, 0, "TorchScript float"},
             {"stats.any_negative", WASINN_TYPE_U8, 0, "TorchScript bool"}});
  expect_io("types/optional_input.pt", 0,
            {{"x", U, -1, "TorchScript Tensor"},
             {"bias", U, -1, "TorchScript Optional[Tensor]"},
             {"scale", WASINN_TYPE_I64, 0, "TorchScript int (optional, default 2)"}});
  expect_io("types/optional_input.pt", 1, {{"output0", U, -1, "TorchScript Tensor"}});
}

// A NamedTuple nested in a NamedTuple: outputs by field path, with limit None and set.
TEST(TorchScalars, NamedTupleFieldsNameNestedOutputs) {
  Backend b(api());
  Graph g = load_model(b, "types/named_scalars.pt");
  Context c(api(), g.ptr);
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {4}, {3, -1, 2, 8});
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
  // limit unset: None, every element counts.
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  auto want = native_forward_args(fixture_path("types/named_scalars.pt"), {x});
  ASSERT_EQ(want.size(), 4u);
  const char* names[] = {"stats.count", "stats.mean", "stats.any_negative"};
  for (uint32_t i = 0; i < 4; ++i) expect_same(output(c.ptr, by_index(i)), want[i], "limit None");
  EXPECT_EQ(output(c.ptr, by_name(names[0])).as<int64_t>(), std::vector<int64_t>{4});
  EXPECT_EQ(output(c.ptr, by_name(names[1])).as<double>(), std::vector<double>{3.0});
  EXPECT_EQ(output(c.ptr, by_name(names[2])).bytes, std::vector<uint8_t>{1});

  ASSERT_EQ(set_input(c.ptr, by_name("limit"), one<int32_t>(WASINN_TYPE_I32, 1), d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  want = native_forward_args(fixture_path("types/named_scalars.pt"), {x, int64_t{1}});
  ASSERT_EQ(want.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) expect_same(output(c.ptr, by_index(i)), want[i], "limit 1");
  EXPECT_EQ(output(c.ptr, by_name("head")).as<float>(), std::vector<float>{3});
  EXPECT_EQ(output(c.ptr, by_name(names[0])).as<int64_t>(), std::vector<int64_t>{1});
  EXPECT_EQ(output(c.ptr, by_name(names[1])).as<double>(), std::vector<double>{3.0});
  EXPECT_EQ(output(c.ptr, by_name(names[2])).bytes, std::vector<uint8_t>{0});
}

// Scalars only, nested three deep, and a bare float: modules compiled here by libtorch.
TEST(TorchScalars, ScalarOnlyAndDeeplyNestedResults) {
  Backend b(api());
  const auto nested = native_script_archive(R"(
def forward(self, n: int, f: float) -> Tuple[Tuple[int, Tuple[float, bool]], int]:
    return ((n + 1, (f * 2.0, n > 2)), -n)
)");
  Graph g;
  Diag d;
  ASSERT_EQ(load_bytes(b, {nested}, g, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().graph_io_count(g.ptr, 1), 4u);
  Context c(api(), g.ptr);
  ASSERT_EQ(set_input(c.ptr, by_index(0), one<int64_t>(WASINN_TYPE_I64, 5), d), WASINN_OK);
  ASSERT_EQ(set_input(c.ptr, by_index(1), one<float>(WASINN_TYPE_F32, 0.75f), d), WASINN_OK);
  for (int run = 0; run < 3; ++run) {  // outputs reused across computes
    ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
    EXPECT_EQ(output(c.ptr, by_index(0)).as<int64_t>(), std::vector<int64_t>{6});
    EXPECT_EQ(output(c.ptr, by_index(1)).as<double>(), std::vector<double>{1.5});
    EXPECT_EQ(output(c.ptr, by_index(2)).bytes, std::vector<uint8_t>{1});
    EXPECT_EQ(output(c.ptr, by_index(3)).as<int64_t>(), std::vector<int64_t>{-5});
  }

  const auto bare = native_script_archive(R"(
def forward(self, x: Tensor) -> float:
    return float(x.sum())
)");
  Graph g2;
  ASSERT_EQ(load_bytes(b, {bare}, g2, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().graph_io_count(g2.ptr, 1), 1u);
  Context c2(api(), g2.ptr);
  ASSERT_EQ(set_input(c2.ptr, by_index(0), kX, d), WASINN_OK);
  ASSERT_EQ(compute(c2.ptr, d), WASINN_OK) << d.detail;
  const HostTensor sum = output(c2.ptr, by_index(0));
  EXPECT_EQ(sum.type, WASINN_TYPE_F64);
  EXPECT_TRUE(sum.dims.empty());
  EXPECT_EQ(sum.as<double>(), std::vector<double>{3.5});
}

// str, List[int] and Tuple arguments stay unsettable; a list or str inside a returned tuple is
// one output that reports what it is, and the tensor beside it stays readable.
TEST(TorchScalars, OtherTypesStayUnsupported) {
  Backend b(api());
  const auto archive = native_script_archive(R"(
def forward(self, x: Tensor, tags: List[int], label: str = "a") -> Tuple[Tensor, List[int], str]:
    return (x + len(tags), tags, label)
)");
  Graph g;
  Diag d;
  ASSERT_EQ(load_bytes(b, {archive}, g, d), WASINN_OK) << d.detail;
  wasinn_io_info info{};
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 1, &info), WASINN_OK);
  EXPECT_EQ(info.type, WASINN_TYPE_UNKNOWN);
  EXPECT_EQ(info.rank, -1);
  EXPECT_STREQ(api().graph_io_framework_type(g.ptr, 0, 1), "TorchScript List[int]");
  EXPECT_STREQ(api().graph_io_framework_type(g.ptr, 0, 2), "TorchScript str (optional, has a default)");
  ASSERT_EQ(api().graph_io_count(g.ptr, 1), 3u);
  EXPECT_STREQ(api().graph_io_framework_type(g.ptr, 1, 1), "TorchScript List[int]");

  Context c(api(), g.ptr);
  const HostTensor k = one<int64_t>(WASINN_TYPE_I64, 3);
  EXPECT_EQ(set_input(c.ptr, by_name("tags"), k, d), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_THAT(d.detail, HasSubstr("input 1 (\"tags\") is a TorchScript List[int]: wasinn passes "
                                  "only tensors and int, float or bool scalars"));
  EXPECT_EQ(set_input(c.ptr, by_name("label"), k, d), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_THAT(d.detail, HasSubstr("is a TorchScript str: "));
  EXPECT_THAT(d.detail, HasSubstr("(it keeps its default)"));
  ASSERT_EQ(set_input(c.ptr, by_index(0), kX, d), WASINN_OK);
  EXPECT_EQ(compute(c.ptr, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("inputs not set: input 1 (\"tags\")"));
}

// optional_input.pt's `scale: int = 2` was a non-tensor argument; now an i64 sets it.
TEST(TorchScalars, DefaultedIntArgumentCanBeSetOrLeft) {
  Backend b(api());
  Graph g = load_model(b, "types/optional_input.pt");
  Context c(api(), g.ptr);
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2}, {1, 2});
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;  // scale 2
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{2, 4}));
  ASSERT_EQ(set_input(c.ptr, by_name("scale"), one<int64_t>(WASINN_TYPE_I64, -3), d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{-3, -6}));
  expect_same(output(c.ptr, by_index(0)),
              native_forward_args(fixture_path("types/optional_input.pt"), {x, std::monostate{}, int64_t{-3}})[0],
              "scale -3");
}

}  // namespace
}  // namespace wasinn_test
