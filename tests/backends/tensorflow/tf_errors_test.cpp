// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bad models, bad tensors, bad names and unavailable targets: each an error with a detail, never
// a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "guest_runner.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

const wasinn_backend_api& api() { return plugin_api("tensorflow"); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

int load_saved(Backend& b, const std::string& rel, Graph& g, Diag& d, const std::string& config = "",
               int32_t target = WASINN_TARGET_CPU) {
  LoadArgs args = model_args("tensorflow", {read_fixture(rel)});
  args.paths = {(fixtures_dir() / rel).string()};
  args.config = config;
  args.target = target;
  return load(b, args, g, d);
}

TEST(TensorflowErrors, MismatchedTensorsNameBothSides) {
  Backend b(api());
  Graph g;
  Diag d;
  ASSERT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  const std::vector<uint8_t> twelve(12), f32x6(24);
  // Input 0 is "offset", i32 [3].
  EXPECT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_F32, {3}, twelve, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "input 0 (\"offset\")") && has(d.detail, "i32 [3]") && has(d.detail, "f32 [3]"))
      << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_name("x"), WASINN_TYPE_F32, {3, 2}, f32x6, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "f32 [?, 3]") && has(d.detail, "f32 [3, 2]")) << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_index(2), WASINN_TYPE_I32, {3}, twelve, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "0 \"offset\", 1 \"x\"")) << "shows the sorted mapping: " << d.detail;
  EXPECT_EQ(set_input(api(), c.ptr, by_name("y"), WASINN_TYPE_I32, {3}, twelve, d), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(api().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "inputs not set")) << d.detail;
}

// An unknown tensor name is a bad argument, as in every backend, and the detail lists the names
// the model has (in index order: sorted).
TEST(TensorflowErrors, UnknownNamesAreInvalidArgumentsListingTheNames) {
  Backend b(api());
  Graph g;
  Diag d;
  ASSERT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  const auto x = read_fixture("tensorflow/two_io_x.f32");
  const auto offset = read_fixture("tensorflow/two_io_offset.i32");
  EXPECT_EQ(set_input(api(), c.ptr, by_name("offsets"), WASINN_TYPE_I32, {3}, offset, d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "\"offsets\"") && has(d.detail, "\"offset\", \"x\"")) << d.detail;

  ASSERT_EQ(set_input(api(), c.ptr, by_name("offset"), WASINN_TYPE_I32, {3}, offset, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(api(), c.ptr, by_name("x"), WASINN_TYPE_F32, {4, 3}, x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  const std::string unknown = "sum";
  const wasinn_tensor_id id = by_name(unknown);
  wasinn_tensor t{};
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "\"sum\"") && has(d.detail, "\"count\", \"total\"")) << d.detail;
  // The known names still work after the refusals.
  EXPECT_EQ(output_bytes(api(), c.ptr, by_name("total"), WASINN_TYPE_F32), read_fixture("tensorflow/two_io_total.f32"));
}

TEST(TensorflowErrors, SetInputDropsTheLastOutputs) {
  Backend b(api());
  Graph g;
  Diag d;
  ASSERT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  const auto x = read_fixture("tensorflow/two_io_x.f32");
  const auto offset = read_fixture("tensorflow/two_io_offset.i32");
  ASSERT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_I32, {3}, offset, d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_input(api(), c.ptr, by_index(1), WASINN_TYPE_F32, {4, 3}, x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().compute(c.ptr, &d), WASINN_OK) << d.detail;
  EXPECT_EQ(output_bytes(api(), c.ptr, by_name("total"), WASINN_TYPE_F32), read_fixture("tensorflow/two_io_total.f32"));
  ASSERT_EQ(set_input(api(), c.ptr, by_index(0), WASINN_TYPE_I32, {3}, offset, d), WASINN_OK);
  wasinn_tensor t{};
  wasinn_tensor_id id = by_index(0);
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(d.detail, "call compute first")) << d.detail;
}

TEST(TensorflowErrors, GpuAndTpuAreUnsupported) {
  Backend b(api());
  for (int32_t target : {WASINN_TARGET_GPU, WASINN_TARGET_TPU}) {
    Graph g;
    Diag d;
    EXPECT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d, "", target), WASINN_UNSUPPORTED_OPERATION);
    EXPECT_TRUE(has(d.detail, "CPU-only")) << d.detail;
    // The device report gives the same reason.
    const char* why = api().backend_target_unavailable(b.ptr, target);
    ASSERT_NE(why, nullptr);
    EXPECT_TRUE(has(d.detail, why)) << d.detail;
  }
  ASSERT_EQ(api().backend_device_count(b.ptr), 1u);
  wasinn_device dev{};
  ASSERT_EQ(api().backend_device_info(b.ptr, 0, &dev), WASINN_OK);
  EXPECT_EQ(dev.target, WASINN_TARGET_CPU);
}

TEST(TensorflowErrors, BadModelsAndSettings) {
  Backend b(api());
  const auto good = read_fixture("tensorflow/digits_frozen.pb");
  std::vector<uint8_t> garbage(4096);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  struct Case {
    const char* what;
    std::vector<uint8_t> bytes;
  } cases[] = {{"garbage", garbage},
               {"truncated", {good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2)}},
               {"SavedModel proto without its directory", read_fixture("tensorflow/two_io/saved_model.pb")}};
  for (const auto& c : cases) {
    Graph g;
    Diag d;
    EXPECT_EQ(load(b, model_args("tensorflow", {c.bytes}), g, d), WASINN_INVALID_ARGUMENT) << c.what;
    EXPECT_FALSE(d.detail.empty()) << c.what;
  }
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, model_args("tensorflow", {good, good}), g, d), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d, R"({"signature":"train"})"), WASINN_NOT_FOUND);
  EXPECT_TRUE(has(d.detail, "\"serving_default\"")) << d.detail;
  EXPECT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d, R"({"tags":["gpu"]})"), WASINN_NOT_FOUND);
  EXPECT_TRUE(has(d.detail, "gpu")) << d.detail;
  EXPECT_EQ(load_saved(b, "tensorflow/two_io/saved_model.pb", g, d, R"({"threads":1})"), WASINN_INVALID_ARGUMENT);
  // A GraphDef's ends can be named explicitly.
  EXPECT_EQ(load(
                b,
                [&] {
                  auto a = model_args("tensorflow", {good});
                  a.config = R"({"inputs":["input"],"outputs":["nope"]})";
                  return a;
                }(),
                g, d),
            WASINN_NOT_FOUND);
  EXPECT_TRUE(has(d.detail, "\"nope\"")) << d.detail;
  Diag bd;
  wasinn_backend* backend = nullptr;
  const std::string bad = R"({"intra_op_threads":"two"})";
  EXPECT_EQ(api().backend_create(bad.data(), bad.size(), &backend, &bd), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(bd.detail, "intra_op_threads")) << bd.detail;
}

TEST(TensorflowErrors, GuestSeesErrnoAndHostShowsDetail) {
  const std::string out = scratch_dir("tf_errors");
  write_file(out + "/three.f32", std::vector<uint8_t>(12));
  const GuestRun run =
      run_guest({"--dir", fixtures_dir().string() + "::/f", "--dir", out + "::/o", "--nn-preload",
                 "two:tensorflow:cpu:" + (fixtures_dir() / "tensorflow/two_io/saved_model.pb").string()},
                "run_model", {"--name", "two", "--input", "0:f32:3:/o/three.f32"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(has(run.output, "errno 1 in set_input") && has(run.output, "i32 [3]")) << run.output;
}

}  // namespace
}  // namespace wasinn_test
