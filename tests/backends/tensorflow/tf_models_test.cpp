// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// TensorFlow models through real wasm guests, compared with TensorFlow's C API called directly
// in this process and with the answers TensorFlow's Python API gave when the fixtures were made.
#include <gtest/gtest.h>
#include <tensorflow/c/tf_datatype.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "guest_runner.h"
#include "native_tensorflow.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

const wasinn_backend_api& api() { return plugin_api("tensorflow"); }

std::vector<std::string> dirs(const std::string& out) {
  return {"--dir", fixtures_dir().string() + "::/f", "--dir", out + "::/o"};
}

std::string fixture_path(const std::string& rel) { return (fixtures_dir() / rel).string(); }

nlohmann::json signature(const std::string& rel) {
  std::ifstream f(fixtures_dir() / rel);
  EXPECT_TRUE(f.good()) << "missing fixture " << rel;
  return nlohmann::json::parse(f, nullptr, false);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, static_cast<double>(std::abs(a[i] - b[i])));
  return m;
}

TEST(TensorflowModels, IoInfoIsSortedByName) {
  Backend b(api());
  Graph g;
  Diag d;
  LoadArgs args = model_args("tensorflow", {read_fixture("tensorflow/two_io/saved_model.pb")});
  args.paths = {fixture_path("tensorflow/two_io/saved_model.pb")};
  ASSERT_EQ(load(b, args, g, d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().graph_io_count(g.ptr, 0), 2u);
  ASSERT_EQ(api().graph_io_count(g.ptr, 1), 2u);
  wasinn_io_info i0{}, i1{}, o0{}, o1{};
  api().graph_io_info(g.ptr, 0, 0, &i0);
  api().graph_io_info(g.ptr, 0, 1, &i1);
  api().graph_io_info(g.ptr, 1, 0, &o0);
  api().graph_io_info(g.ptr, 1, 1, &o1);
  // Declared (x, offset) -> (total, count); wasinn's indices follow the sorted names.
  EXPECT_STREQ(i0.name, "offset");
  EXPECT_EQ(i0.type, WASINN_TYPE_I32);
  ASSERT_EQ(i0.rank, 1);
  EXPECT_EQ(i0.dims[0], 3);
  EXPECT_STREQ(i1.name, "x");
  EXPECT_EQ(i1.type, WASINN_TYPE_F32);
  ASSERT_EQ(i1.rank, 2);
  EXPECT_EQ(i1.dims[0], -1);
  EXPECT_EQ(i1.dims[1], 3);
  EXPECT_STREQ(o0.name, "count");
  EXPECT_EQ(o0.type, WASINN_TYPE_I64);
  EXPECT_EQ(o0.rank, 0);
  EXPECT_STREQ(o1.name, "total");
  EXPECT_EQ(o1.type, WASINN_TYPE_F32);
}

TEST(TensorflowModels, SavedModelTwoInputsTwoOutputsMatchesNative) {
  const std::string out = scratch_dir("two_io");
  auto host = dirs(out);
  host.insert(host.end(), {"--nn-preload", "two:tensorflow:cpu:" + fixture_path("tensorflow/two_io/saved_model.pb")});
  const GuestRun run =
      run_guest(host, "run_model",
                {"--name", "two", "--input", "0:i32:3:/f/tensorflow/two_io_offset.i32", "--input",
                 "1:f32:4x3:/f/tensorflow/two_io_x.f32", "--output", "0:/o/count.i64", "--output", "1:/o/total.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto count = read_file(out + "/count.i64");
  const auto total = read_file(out + "/total.f32");

  const auto sig = signature("tensorflow/two_io_signature.json");
  auto native = NativeTensorFlow::saved_model(fixture_path("tensorflow/two_io"));
  ASSERT_EQ(native->error(), "");
  const auto o = native->run({{sig["inputs"]["x"], {TF_FLOAT, {4, 3}, read_fixture("tensorflow/two_io_x.f32")}},
                              {sig["inputs"]["offset"], {TF_INT32, {3}, read_fixture("tensorflow/two_io_offset.i32")}}},
                             {sig["outputs"]["count"], sig["outputs"]["total"]});
  ASSERT_EQ(o.size(), 2u) << native->error();
  EXPECT_EQ(count, o[0].bytes);
  EXPECT_EQ(total, o[1].bytes);
  // And what TensorFlow's Python API answered: x * 2 + offset, and 12 elements.
  EXPECT_EQ(count, read_fixture("tensorflow/two_io_count.i64"));
  EXPECT_EQ(total, read_fixture("tensorflow/two_io_total.f32"));
  EXPECT_EQ(as_vector<int64_t>(count), std::vector<int64_t>{12});
}

TEST(TensorflowModels, ReadingOutputsNeverReruns) {
  // sample = uniform() * scale and doubled = sample * 2 come from an unseeded random op: only
  // outputs of one and the same run satisfy doubled == 2 * sample.
  const auto& a = api();
  Backend b(a);
  Graph g;
  Diag d;
  ASSERT_EQ(load(b, model_args("tensorflow", {read_fixture("tensorflow/random_pair.pb")}), g, d), WASINN_OK)
      << d.detail;
  Context c(a, g.ptr);
  const float scale = 10.0f;
  ASSERT_EQ(set_input(a, c.ptr, by_name("scale"), WASINN_TYPE_F32, {1}, as_bytes(std::vector<float>{scale}), d),
            WASINN_OK)
      << d.detail;
  std::vector<float> first_sample;
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(a.compute(c.ptr, &d), WASINN_OK) << d.detail;
    // Output 0 is "doubled", 1 is "sample" (sorted names); read each twice, in both orders.
    const auto sample = as_vector<float>(output_bytes(a, c.ptr, by_index(1), WASINN_TYPE_F32));
    const auto doubled = as_vector<float>(output_bytes(a, c.ptr, by_index(0), WASINN_TYPE_F32));
    EXPECT_EQ(as_vector<float>(output_bytes(a, c.ptr, by_name("sample"), WASINN_TYPE_F32)), sample);
    ASSERT_EQ(sample.size(), 4u);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(doubled[i], sample[i] * 2.0f);
    if (run == 0)
      first_sample = sample;
    else
      EXPECT_NE(sample, first_sample) << "each compute is a new run";
  }

  // The same through a guest.
  const std::string out = scratch_dir("random_pair");
  write_file(out + "/scale.f32", as_bytes(std::vector<float>{scale}));
  const GuestRun run =
      run_guest(dirs(out), "run_model",
                {"--model", "/f/tensorflow/random_pair.pb", "--encoding", "2", "--input", "0:f32:1:/o/scale.f32",
                 "--output", "1:/o/sample.f32", "--output", "0:/o/doubled.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto sample = as_vector<float>(read_file(out + "/sample.f32"));
  const auto doubled = as_vector<float>(read_file(out + "/doubled.f32"));
  ASSERT_EQ(sample.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(doubled[i], sample[i] * 2.0f);
}

TEST(TensorflowModels, FrozenGraphDefLoadedByAGuestMatchesNative) {
  const std::string out = scratch_dir("digits_frozen");
  const GuestRun run = run_guest(dirs(out), "run_model",
                                 {"--model", "/f/tensorflow/digits_frozen.pb", "--encoding", "2", "--input",
                                  "0:f32:450x64:/f/digits/test_x.f32", "--output", "0:/o/logits.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<float>(read_file(out + "/logits.f32"));
  auto native = NativeTensorFlow::graph_def(read_fixture("tensorflow/digits_frozen.pb"));
  const auto o = native->run({{"input", {TF_FLOAT, {450, 64}, read_fixture("digits/test_x.f32")}}}, {"logits"});
  ASSERT_EQ(o.size(), 1u) << native->error();
  EXPECT_EQ(guest, as_vector<float>(o[0].bytes));
  EXPECT_LT(max_abs_diff(guest, read_fixture_as<float>("tensorflow/digits_frozen_expected.f32")), 1e-5);
}

TEST(TensorflowModels, MobilenetV2SavedModelMatchesNative) {
  const std::string out = scratch_dir("mobilenet_tf");
  auto host = dirs(out);
  host.insert(host.end(),
              {"--nn-preload", "mnv2:tensorflow:cpu:" + fixture_path("tensorflow/mobilenet_v2/saved_model.pb")});
  const GuestRun run = run_guest(host, "run_model",
                                 {"--name", "mnv2", "--input", "0:f32:1x224x224x3:/f/tensorflow/mobilenet_v2_input.f32",
                                  "--output", "0:/o/logits.f32"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto guest = as_vector<float>(read_file(out + "/logits.f32"));
  const auto sig = signature("tensorflow/mobilenet_v2_signature.json");
  auto native = NativeTensorFlow::saved_model(fixture_path("tensorflow/mobilenet_v2"));
  const auto o = native->run(
      {{sig["inputs"]["input"], {TF_FLOAT, {1, 224, 224, 3}, read_fixture("tensorflow/mobilenet_v2_input.f32")}}},
      {sig["outputs"]["output"]});
  ASSERT_EQ(o.size(), 1u) << native->error();
  ASSERT_EQ(guest.size(), 1000u);
  // Same library, same graph; a multi-threaded reduction may still round differently.
  EXPECT_LT(max_abs_diff(guest, as_vector<float>(o[0].bytes)), 1e-4);
  const auto tf_python = read_fixture_as<float>("tensorflow/mobilenet_v2_expected.f32");
  EXPECT_LT(max_abs_diff(guest, tf_python), 1e-3);
  EXPECT_EQ(std::max_element(guest.begin(), guest.end()) - guest.begin(),
            std::max_element(tf_python.begin(), tf_python.end()) - tf_python.begin());
}

}  // namespace
}  // namespace wasinn_test
