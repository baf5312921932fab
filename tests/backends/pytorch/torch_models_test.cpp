// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Happy paths through the plugin's C table: io info from forward's schema, the digits
// classifier and the multi-type models against native libtorch, output ordering, every dtype,
// and one forward per compute.
#include <filesystem>
#include <random>

#include "native_torch.h"

namespace wasinn_test {
namespace {

std::string fixture_path(const std::string& rel) { return (fixtures_dir() / rel).string(); }

// Bitwise equality of type, dims and bytes, reported per element index on failure.
void expect_same(const HostTensor& got, const HostTensor& want, const std::string& what) {
  EXPECT_EQ(got.type, want.type) << what;
  EXPECT_EQ(got.dims, want.dims) << what;
  ASSERT_EQ(got.bytes.size(), want.bytes.size()) << what;
  for (size_t i = 0; i < got.bytes.size(); ++i)
    if (got.bytes[i] != want.bytes[i]) {
      ADD_FAILURE() << what << ": byte " << i << " differs (" << int(got.bytes[i]) << " vs " << int(want.bytes[i])
                    << ")";
      return;
    }
}

TEST(TorchPlugin, ApiTable) {
  const wasinn_backend_api& a = api();
  EXPECT_EQ(a.abi_version, WASINN_PLUGIN_ABI_VERSION);
  EXPECT_EQ(a.struct_size, sizeof(wasinn_backend_api));
  EXPECT_STREQ(a.name, "pytorch");
  EXPECT_STREQ(a.framework_version(), "1.13.0");  // what Debian's 1.13.1 headers say
  EXPECT_EQ(a.compute_single, nullptr);
  EXPECT_EQ(a.cancel, nullptr);
  const std::string manifest = std::string(WASINN_BACKEND_DIR) + "/pytorch.json";
  const auto text = read_file(manifest);
  EXPECT_NE(std::string(text.begin(), text.end()).find("\"encodings\": [\"pytorch\"]"), std::string::npos);
}

TEST(TorchPlugin, IoInfoFromForwardSchema) {
  Backend b(api());
  Graph g = load_model(b, "types/two_in_three_out.pt");
  ASSERT_NE(g.ptr, nullptr);
  ASSERT_EQ(api().graph_io_count(g.ptr, 0), 2u);
  const char* names[] = {"a", "b"};
  for (size_t i = 0; i < 2; ++i) {
    wasinn_io_info info{};
    ASSERT_EQ(api().graph_io_info(g.ptr, 0, i, &info), WASINN_OK);
    EXPECT_STREQ(info.name, names[i]);
    EXPECT_EQ(info.type, WASINN_TYPE_UNKNOWN);  // TorchScript declares no dtypes
    EXPECT_EQ(info.rank, -1);
  }
  EXPECT_EQ(api().graph_io_count(g.ptr, 1), 3u);  // Tuple[Tensor, Tensor, Tensor]
  wasinn_io_info info{};
  EXPECT_EQ(api().graph_io_info(g.ptr, 1, 3, &info), WASINN_INVALID_ARGUMENT);

  Graph dict = load_model(b, "types/dict_out.pt");
  EXPECT_EQ(api().graph_io_count(dict.ptr, 1), 0u);  // a dict's size is known only after compute
  Graph digits = load_model(b, "digits/model.pt");
  ASSERT_EQ(api().graph_io_count(digits.ptr, 0), 1u);
  ASSERT_EQ(api().graph_io_info(digits.ptr, 0, 0, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "input");
  EXPECT_EQ(api().graph_io_count(digits.ptr, 1), 1u);
}

HostTensor digits_batch(size_t first, size_t count) {
  const auto all = read_fixture("digits/test_x.f32");
  const size_t row = 64 * sizeof(float);
  HostTensor t;
  t.type = WASINN_TYPE_F32;
  t.dims = {static_cast<uint32_t>(count), 64};
  t.bytes.assign(all.begin() + first * row, all.begin() + (first + count) * row);
  return t;
}

TEST(TorchPlugin, DigitsMatchNativeBitExact) {
  native_set_threads(1);
  Backend b(api());
  Graph g = load_model(b, "digits/model.pt");
  ASSERT_NE(g.ptr, nullptr);
  Context c(api(), g.ptr);
  const HostTensor x = digits_batch(0, 450);
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_name("input"), x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  const HostTensor got = output(c.ptr, by_index(0));
  const auto want = native_forward(fixture_path("digits/model.pt"), {x});
  ASSERT_EQ(want.size(), 1u);
  expect_same(got, want[0], "digits logits");

  const auto labels = read_fixture("digits/test_y.u8");
  const auto logits = got.as<float>();
  ASSERT_EQ(logits.size(), 450u * 10);
  size_t correct = 0;
  for (size_t i = 0; i < 450; ++i) {
    size_t best = 0;
    for (size_t k = 1; k < 10; ++k)
      if (logits[i * 10 + k] > logits[i * 10 + best]) best = k;
    correct += best == labels[i];
  }
  EXPECT_GE(correct / 450.0, 0.95) << correct << " of 450";
}

// The batch size changes between computes: each answer must still equal native's.
TEST(TorchPlugin, ShapeChangesBetweenComputes) {
  native_set_threads(1);
  Backend b(api());
  Graph g = load_model(b, "digits/model.pt");
  Context c(api(), g.ptr);
  for (auto [first, count] : {std::pair<size_t, size_t>{0, 1}, {10, 450 - 10}, {3, 1}, {7, 1}}) {
    const HostTensor x = digits_batch(first, count);
    Diag d;
    ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
    ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
    expect_same(output(c.ptr, by_index(0)), native_forward(fixture_path("digits/model.pt"), {x})[0],
                "batch of " + std::to_string(count));
  }
}

TEST(TorchPlugin, TwoInputsThreeOutputsMatchNative) {
  Backend b(api());
  Graph g = load_model(b, "types/two_in_three_out.pt");
  Context c(api(), g.ptr);
  const HostTensor a = make_tensor<float>(WASINN_TYPE_F32, {2, 3}, {1.5f, -2, 0, 3.25f, -0.5f, 7});
  const HostTensor bb = make_tensor<int64_t>(WASINN_TYPE_I64, {2, 3}, {1, 2, 3, -4, 5, 60});
  Diag d;
  // By name for a, by index for b: both address forward's arguments.
  ASSERT_EQ(set_input(c.ptr, by_name("a"), a, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(c.ptr, by_index(1), bb, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  const auto want = native_forward(fixture_path("types/two_in_three_out.pt"), {a, bb});
  ASSERT_EQ(want.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) expect_same(output(c.ptr, by_index(i)), want[i], "output " + std::to_string(i));

  // Known answers, element by element, so native itself is checked too.
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{4, -2, 3, 2.5f, 4, 74}));
  EXPECT_EQ(output(c.ptr, by_index(1)).as<int64_t>(), (std::vector<int64_t>{17, 182}));
  const HostTensor pos = output(c.ptr, by_index(2));
  EXPECT_EQ(pos.type, WASINN_TYPE_U8);
  EXPECT_EQ(pos.bytes, (std::vector<uint8_t>{1, 0, 0, 1, 0, 1}));
}

TEST(TorchPlugin, DictOutputsInSortedKeyOrder) {
  Backend b(api());
  Graph g = load_model(b, "types/dict_out.pt");
  Context c(api(), g.ptr);
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {3}, {1, 2, 4});
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  // The module builds {"zeta", "alpha", "mid"}; outputs come sorted: alpha, mid, zeta.
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{2, 3, 5}));
  EXPECT_EQ(output(c.ptr, by_index(1)).as<float>(), (std::vector<float>{7}));
  EXPECT_EQ(output(c.ptr, by_index(2)).as<float>(), (std::vector<float>{2, 4, 8}));
  EXPECT_EQ(output(c.ptr, by_name("zeta")).as<float>(), (std::vector<float>{2, 4, 8}));
  const auto want = native_forward(fixture_path("types/dict_out.pt"), {x});
  ASSERT_EQ(want.size(), 3u);
  const char* keys[] = {"alpha", "mid", "zeta"};
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(want[i].name, keys[i]);
    expect_same(output(c.ptr, by_index(i)), want[i], keys[i]);
  }
  wasinn_tensor t{};
  wasinn_tensor_id past = by_index(3);
  EXPECT_EQ(api().get_output(c.ptr, &past, &t, &d), WASINN_INVALID_ARGUMENT);
}

TEST(TorchPlugin, ListOutputsInListOrder) {
  Backend b(api());
  Graph g = load_model(b, "types/list_out.pt");
  Context c(api(), g.ptr);
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2}, {1, -2});
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{1, -2}));
  EXPECT_EQ(output(c.ptr, by_index(1)).as<float>(), (std::vector<float>{3, -6}));
}

// Random bytes of every type through `return x, x + 1`: output 0 must be the input bit for bit
// (NaN payloads and subnormals included), output 1 what native torch computes for that dtype.
TEST(TorchPlugin, EveryDtypePassesThrough) {
  Backend b(api());
  Graph g = load_model(b, "types/identity_types.pt");
  Context c(api(), g.ptr);
  const std::pair<int32_t, size_t> types[] = {{WASINN_TYPE_F16, 2}, {WASINN_TYPE_BF16, 2}, {WASINN_TYPE_F32, 4},
                                              {WASINN_TYPE_F64, 8}, {WASINN_TYPE_U8, 1},   {WASINN_TYPE_I32, 4},
                                              {WASINN_TYPE_I64, 8}, {WASINN_TYPE_I8, 1}};
  std::mt19937 rng(7);
  for (auto [type, size] : types) {
    HostTensor x;
    x.type = type;
    x.dims = {2, 3};
    x.bytes.resize(6 * size);
    for (auto& byte : x.bytes) byte = static_cast<uint8_t>(rng());
    Diag d;
    ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << type << ": " << d.detail;
    ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << type << ": " << d.detail;
    expect_same(output(c.ptr, by_index(0)), x, "identity of type " + std::to_string(type));
    const auto want = native_forward(fixture_path("types/identity_types.pt"), {x});
    ASSERT_EQ(want.size(), 2u);
    expect_same(output(c.ptr, by_index(1)), want[1], "x + 1 of type " + std::to_string(type));
  }
}

// counter.pt returns how often its forward ran: reading outputs, however many times, must not
// run it again; each compute runs it exactly once.
TEST(TorchPlugin, ForwardRunsOncePerCompute) {
  Backend b(api());
  Graph g = load_model(b, "types/counter.pt");
  Context c(api(), g.ptr);
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2}, {1, 2});
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
  for (int64_t run = 1; run <= 3; ++run) {
    ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
    for (int read = 0; read < 3; ++read) {
      EXPECT_EQ(output(c.ptr, by_index(1)).as<int64_t>(), std::vector<int64_t>{run});
      EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{2, 4}));
    }
  }
}

TEST(TorchPlugin, OptionalInputsUseTheirDefaults) {
  Backend b(api());
  Graph g = load_model(b, "types/optional_input.pt");
  ASSERT_EQ(api().graph_io_count(g.ptr, 0), 3u);  // x, bias, scale
  Context c(api(), g.ptr);
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {2}, {1, 2});
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;  // bias None, scale 2
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{2, 4}));
  const HostTensor bias = make_tensor<float>(WASINN_TYPE_F32, {2}, {10, 20});
  ASSERT_EQ(set_input(c.ptr, by_name("bias"), bias, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(c.ptr, by_index(0)).as<float>(), (std::vector<float>{12, 24}));
}

TEST(TorchPlugin, PreloadPathAndThreadConfigAccepted) {
  Backend b(api(), "{\"num_threads\": 1, \"unrelated_key\": true}");
  ASSERT_NE(b.ptr, nullptr);
  LoadArgs args = model_args("pytorch", {read_fixture("digits/model.pt")});
  args.paths = {fixture_path("digits/model.pt")};
  args.target = WASINN_TARGET_AUTO;  // CPU on this CUDA-less libtorch
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, args, g, d), WASINN_OK) << d.detail;
}

}  // namespace
}  // namespace wasinn_test
