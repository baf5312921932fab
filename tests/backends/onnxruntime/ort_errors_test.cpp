// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every documented error path returns its status with a non-empty, useful detail.
#include "onnx_proto_writer.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

// gmock is not installed, so no substring matcher.
#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "detail: " << (haystack)

#define EXPECT_FAILS(call, status, substr)   \
  do {                                       \
    Diag d_;                                 \
    Diag& d = d_;                            \
    EXPECT_EQ((call), (status)) << d.detail; \
    EXPECT_CONTAINS(d.detail, substr);       \
  } while (0)

TEST(OrtPluginErrors, BackendConfig) {
  struct Case {
    const char* config;
    const char* substr;
  } cases[] = {
      {"{not json", "malformed JSON"},
      {"[1, 2]", "JSON object"},
      {R"({"intra_op_threads": "4"})", "intra_op_threads"},
      {R"({"intra_op_threads": 1.5})", "intra_op_threads"},
      {R"({"inter_op_threads": -1})", "inter_op_threads"},
      {R"({"inter_op_threads": 99999999999})", "inter_op_threads"},
      {R"({"graph_optimization_level": 3})", "graph_optimization_level"},
      {R"({"graph_optimization_level": "fast"})", "graph_optimization_level"},
  };
  for (const Case& c : cases) {
    wasinn_backend* b = nullptr;
    Diag d;
    EXPECT_EQ(api().backend_create(c.config, strlen(c.config), &b, &d), WASINN_INVALID_ARGUMENT) << c.config;
    EXPECT_CONTAINS(d.detail, c.substr) << c.config;
    EXPECT_EQ(b, nullptr);
  }
}

TEST(OrtPluginErrors, GraphConfig) {
  TestBackend b;
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture("tiny/model.onnx")}, g, d, WASINN_TARGET_CPU, R"({"intra_op_threads": true})"),
            WASINN_INVALID_ARGUMENT);
  EXPECT_CONTAINS(d.detail, "intra_op_threads");
  EXPECT_EQ(g.ptr, nullptr);
}

TEST(OrtPluginErrors, BuilderCount) {
  TestBackend b;
  const auto tiny = read_fixture("tiny/model.onnx");
  Graph g0, g2;
  EXPECT_FAILS(load(b, std::vector<std::vector<uint8_t>>{}, g0, d), WASINN_INVALID_ARGUMENT, "exactly one");
  EXPECT_FAILS(load(b, std::vector<std::vector<uint8_t>>{}, g0, d), WASINN_INVALID_ARGUMENT, "got 0");
  EXPECT_FAILS(load(b, {tiny, tiny}, g2, d), WASINN_INVALID_ARGUMENT, "got 2");
}

TEST(OrtPluginErrors, CorruptModels) {
  TestBackend b;
  for (const char* name : {"corrupt/garbage.onnx", "corrupt/truncated.onnx", "corrupt/empty.onnx"}) {
    Graph g;
    Diag d;
    const int st = load(b, {read_fixture(name)}, g, d);
    EXPECT_TRUE(st == WASINN_INVALID_ARGUMENT || st == WASINN_RUNTIME_ERROR)
        << name << ": status " << st << ", " << d.detail;
    EXPECT_FALSE(d.detail.empty()) << name;
    EXPECT_EQ(g.ptr, nullptr);
  }
}

TEST(OrtPluginErrors, AcceleratorTargets) {
  TestBackend b;
  const auto tiny = read_fixture("tiny/model.onnx");
  // This process linked the default, CPU-only ORT, so the plugin has no CUDA provider beside it
  // (ort_cuda_test.cpp covers the CUDA variant).
  Graph gpu, tpu;
  EXPECT_FAILS(load(b, {tiny}, gpu, d, WASINN_TARGET_GPU), WASINN_UNSUPPORTED_OPERATION,
               "target gpu is not available: this ONNX Runtime has no CUDA execution provider");
  EXPECT_FAILS(load(b, {tiny}, gpu, d, WASINN_TARGET_GPU), WASINN_UNSUPPORTED_OPERATION, "--gpu");
  EXPECT_FAILS(load(b, {tiny}, tpu, d, WASINN_TARGET_TPU), WASINN_UNSUPPORTED_OPERATION, "target tpu is not available");
  EXPECT_EQ(gpu.ptr, nullptr);
  EXPECT_EQ(tpu.ptr, nullptr);
  Graph g;
  EXPECT_FAILS(load(b, {tiny}, g, d, 77), WASINN_INVALID_ARGUMENT, "77");
}

TEST(OrtPluginErrors, IoInfoOutOfRange) {
  TestBackend b;
  Graph g = load_fixture(b, "tiny/model.onnx");
  wasinn_io_info info{};
  EXPECT_EQ(api().graph_io_info(g.ptr, 0, 1, &info), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(api().graph_io_info(g.ptr, 1, 5, &info), WASINN_INVALID_ARGUMENT);
}

class DigitsErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = load_fixture(b_, "digits/model.onnx");
    ASSERT_NE(g_.ptr, nullptr);
    c_ = std::make_unique<TestContext>(g_.ptr);
  }
  wasinn_context* ctx() { return c_->ptr; }
  TestBackend b_;
  Graph g_;
  std::unique_ptr<TestContext> c_;
  const std::vector<float> row_ = std::vector<float>(64, 0.5f);
};

TEST_F(DigitsErrors, WrongType) {
  const std::vector<int32_t> ints(64, 1);
  Diag d;
  EXPECT_EQ(set_input(ctx(), by_index(0), WASINN_TYPE_I32, {1, 64}, ints, d), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(d.detail, R"(input 0 ("input"): expected f32 [?, 64], got i32 [1, 64])");
}

TEST_F(DigitsErrors, WrongShape) {
  const std::vector<float> short_row(63, 0.5f);
  EXPECT_FAILS(set_input(ctx(), by_index(0), WASINN_TYPE_F32, {1, 63}, short_row, d), WASINN_INVALID_ARGUMENT,
               "expected f32 [?, 64], got f32 [1, 63]");
  EXPECT_FAILS(set_input(ctx(), by_index(0), WASINN_TYPE_F32, {64}, row_, d), WASINN_INVALID_ARGUMENT, "got f32 [64]");
  EXPECT_FAILS(set_input(ctx(), by_index(0), WASINN_TYPE_F32, {1, 1, 64}, row_, d), WASINN_INVALID_ARGUMENT,
               "got f32 [1, 1, 64]");
}

TEST_F(DigitsErrors, RejectedInputKeepsPrevious) {
  Diag d0;
  ASSERT_EQ(set_input(ctx(), by_index(0), WASINN_TYPE_F32, {1, 64}, row_, d0), WASINN_OK);
  const std::vector<float> wrong(63, 0.f);
  EXPECT_EQ(set_input(ctx(), by_index(0), WASINN_TYPE_F32, {1, 63}, wrong, d0), WASINN_INVALID_ARGUMENT);
  ASSERT_EQ(api().compute(ctx(), &d0), WASINN_OK) << d0.detail;
  std::vector<uint32_t> dims;
  output_as<float>(ctx(), by_index(0), WASINN_TYPE_F32, &dims);
  EXPECT_EQ(dims, (std::vector<uint32_t>{1, 10}));
}

TEST_F(DigitsErrors, BadInputId) {
  EXPECT_FAILS(set_input(ctx(), by_index(1), WASINN_TYPE_F32, {1, 64}, row_, d), WASINN_INVALID_ARGUMENT,
               "the only valid index is 0");
  EXPECT_FAILS(set_input(ctx(), by_name("inputs"), WASINN_TYPE_F32, {1, 64}, row_, d), WASINN_INVALID_ARGUMENT,
               R"(no input named "inputs": the model's inputs are "input")");
  // A name is matched by its length, not a NUL: "inputXYZ" cut to 5 bytes is "input".
  const std::string longer = "inputXYZ";
  const wasinn_tensor_id prefix{0, longer.data(), 5};
  const std::vector<uint32_t> dims = {1, 64};
  const wasinn_tensor t = tensor(WASINN_TYPE_F32, dims, row_.data(), row_.size() * 4);
  Diag d;
  EXPECT_EQ(api().set_input(ctx(), &prefix, &t, &d), WASINN_OK) << d.detail;
}

TEST_F(DigitsErrors, ComputeBeforeSetInput) {
  EXPECT_FAILS(api().compute(ctx(), &d), WASINN_INVALID_ARGUMENT, R"(input 0 ("input"))");
}

TEST_F(DigitsErrors, GetOutputBeforeCompute) {
  wasinn_tensor out{};
  const auto id = by_index(0);
  EXPECT_FAILS(api().get_output(ctx(), &id, &out, &d), WASINN_INVALID_ARGUMENT, "no outputs yet: call compute first");
}

TEST_F(DigitsErrors, BadOutputId) {
  Diag d0;
  ASSERT_EQ(set_input(ctx(), by_index(0), WASINN_TYPE_F32, {1, 64}, row_, d0), WASINN_OK);
  ASSERT_EQ(api().compute(ctx(), &d0), WASINN_OK) << d0.detail;
  wasinn_tensor out{};
  const auto idx = by_index(3);
  EXPECT_FAILS(api().get_output(ctx(), &idx, &out, &d), WASINN_INVALID_ARGUMENT, "out of range");
  const std::string nm = "probs";
  const auto name = by_name(nm);
  EXPECT_FAILS(api().get_output(ctx(), &name, &out, &d), WASINN_INVALID_ARGUMENT, R"("logits")");
}

TEST(OrtPluginErrors, MissingInputsAreNamed) {
  TestBackend b;
  Graph g = load_fixture(b, "types/two_inputs.onnx");
  TestContext c(g.ptr);
  Diag d;
  ASSERT_EQ(set_input(c.ptr, by_name("a"), WASINN_TYPE_F32, {1, 3}, std::vector<float>{1, 2, 3}, d), WASINN_OK);
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(d.detail, R"(inputs not set: input 1 ("b"))");
}

// A model with what wasinn cannot express: a bool output, a sequence output, and an input
// declared without a shape (which must accept any shape).
std::vector<uint8_t> odd_outputs_model() {
  using namespace onnx_proto;
  return model({node("Greater", {"x", "y"}, {"gt"}), node("SequenceConstruct", {"x", "y"}, {"seq"}),
                node("Add", {"x", "y"}, {"sum"})},
               {value_info("x", tensor_type(FLOAT, {2})), value_info("y", tensor_type(FLOAT, {}, /*has_shape=*/false))},
               {value_info("gt", tensor_type(BOOL, {2})), value_info("seq", sequence_of(tensor_type(FLOAT, {}, false))),
                value_info("sum", tensor_type(FLOAT, {2}))});
}

TEST(OrtPluginErrors, UnexpressibleOutputs) {
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {odd_outputs_model()}, g, d), WASINN_OK) << d.detail;
  wasinn_io_info info{};
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 1, &info), WASINN_OK);
  EXPECT_EQ(info.type, WASINN_TYPE_F32);
  EXPECT_EQ(info.rank, -1);  // no shape declared
  ASSERT_EQ(api().graph_io_info(g.ptr, 1, 0, &info), WASINN_OK);
  EXPECT_EQ(info.type, WASINN_TYPE_UNKNOWN);  // bool
  ASSERT_EQ(api().graph_io_info(g.ptr, 1, 1, &info), WASINN_OK);
  EXPECT_EQ(info.type, WASINN_TYPE_UNKNOWN);  // sequence
  EXPECT_EQ(info.rank, -1);

  TestContext c(g.ptr);
  const std::vector<float> x = {1, 5}, y = {2, 3};
  ASSERT_EQ(set_input(c.ptr, by_name("x"), WASINN_TYPE_F32, {2}, x, d), WASINN_OK) << d.detail;
  // Any shape goes for y; [1, 2] broadcasts against x's [2].
  ASSERT_EQ(set_input(c.ptr, by_name("y"), WASINN_TYPE_F32, {1, 2}, y, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;

  wasinn_tensor out{};
  const auto gt = by_index(0), seq = by_index(1);
  EXPECT_FAILS(api().get_output(c.ptr, &gt, &out, &d), WASINN_UNSUPPORTED_OPERATION, "bool");
  EXPECT_FAILS(api().get_output(c.ptr, &seq, &out, &d), WASINN_UNSUPPORTED_OPERATION, "sequence");
  std::vector<uint32_t> dims;
  EXPECT_EQ(output_as<float>(c.ptr, by_name("sum"), WASINN_TYPE_F32, &dims), (std::vector<float>{3, 8}));
  EXPECT_EQ(dims, (std::vector<uint32_t>{1, 2}));
}

TEST(OrtPluginErrors, UnexpressibleInput) {
  using namespace onnx_proto;
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load(b,
                 {model({node("Not", {"flag"}, {"out"})}, {value_info("flag", tensor_type(BOOL, {2}))},
                        {value_info("out", tensor_type(BOOL, {2}))})},
                 g, d),
            WASINN_OK)
      << d.detail;
  TestContext c(g.ptr);
  const std::vector<uint8_t> flags = {0, 1};
  EXPECT_FAILS(set_input(c.ptr, by_index(0), WASINN_TYPE_U8, {2}, flags, d), WASINN_UNSUPPORTED_OPERATION, "bool");
}

TEST(OrtPluginErrors, RunFailureIsRuntimeError) {
  // Shapes that pass the declaration check ([2] vs undeclared) but cannot broadcast in Add.
  TestBackend b;
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, {odd_outputs_model()}, g, d), WASINN_OK) << d.detail;
  TestContext c(g.ptr);
  ASSERT_EQ(set_input(c.ptr, by_name("x"), WASINN_TYPE_F32, {2}, std::vector<float>{1, 2}, d), WASINN_OK);
  ASSERT_EQ(set_input(c.ptr, by_name("y"), WASINN_TYPE_F32, {3}, std::vector<float>{1, 2, 3}, d), WASINN_OK);
  EXPECT_FAILS(api().compute(c.ptr, &d), WASINN_RUNTIME_ERROR, "running the model");
  // A failed run leaves no outputs behind.
  wasinn_tensor out{};
  const auto id = by_index(2);
  EXPECT_FAILS(api().get_output(c.ptr, &id, &out, &d), WASINN_INVALID_ARGUMENT, "no outputs yet");
}

}  // namespace
}  // namespace wasinn_test
