// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A witx guest computes through a remote model on a real server (Triton or MLServer, started by
// a ctest fixture on loopback; WASINN_REMOTE_STATE names its state file), over each transport:
// add/sub over every witx type checked against the same arithmetic done here, the digits model
// checked against the same ONNX model on the local ONNX Runtime backend, names/types/shapes from
// metadata, and the failures a real server can be made to produce.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "oip/oip_types.h"
#include "plugin_harness.h"
#include "remote_test_support.h"

namespace {

using namespace wasinn_remote_test;
using wasinn_test::run_guest;
using wasinn_test::run_wasinn;
using wasinn_test::scratch_dir;

class RemoteServer : public ::testing::TestWithParam<std::string> {
 public:
  void SetUp() override {
    server_ = server_from_env("WASINN_REMOTE_STATE");
    if (!server_.skip.empty()) GTEST_SKIP() << server_.skip;
    transport_ = {GetParam()};
    dir_ = scratch_dir(server_.kind + "_" + GetParam() + "_" +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  std::vector<std::string> args(const std::string& model) {
    auto a = transport_.host_args(server_, "m", model);
    a.insert(a.end(), {"--dir", dir_ + "::/w"});
    return a;
  }
  Server server_;
  Transport transport_;
  std::string dir_;
};

// a + b and a - b as numpy computes them in each dtype (wrapping for u8; f16 rounded from f32).
template <typename T>
void check_add_sub(RemoteServer& t, const std::string& model, const std::string& witx_type) {
  const std::vector<double> av = {1.5, -2.0, 3.25, 100.0}, bv = {0.5, 4.0, -1.0, 27.0};
  std::vector<T> a, b, sum, diff;
  for (size_t i = 0; i < 4; ++i) {
    if constexpr (std::is_same_v<T, uint16_t>) {  // f16
      const float x = wasinn::remote::half_to_float(wasinn::remote::float_to_half(static_cast<float>(av[i])));
      const float y = wasinn::remote::half_to_float(wasinn::remote::float_to_half(static_cast<float>(bv[i])));
      a.push_back(wasinn::remote::float_to_half(x));
      b.push_back(wasinn::remote::float_to_half(y));
      sum.push_back(wasinn::remote::float_to_half(x + y));
      diff.push_back(wasinn::remote::float_to_half(x - y));
    } else if constexpr (std::is_integral_v<T>) {
      const T x = static_cast<T>(static_cast<int64_t>(av[i]) & (std::is_same_v<T, uint8_t> ? 0x7f : -1));
      const T y = static_cast<T>(static_cast<int64_t>(bv[i]) & (std::is_same_v<T, uint8_t> ? 0x7f : -1));
      a.push_back(x);
      b.push_back(y);
      sum.push_back(static_cast<T>(x + y));
      diff.push_back(static_cast<T>(x - y));
    } else {
      a.push_back(static_cast<T>(av[i]));
      b.push_back(static_cast<T>(bv[i]));
      sum.push_back(static_cast<T>(a[i] + b[i]));
      diff.push_back(static_cast<T>(a[i] - b[i]));
    }
  }
  write_file(t.dir_ + "/a", a);
  write_file(t.dir_ + "/b", b);
  std::filesystem::remove(t.dir_ + "/sum");
  std::filesystem::remove(t.dir_ + "/diff");
  auto run = run_guest(t.args(model), "run_model",
                       {"--name", "m", "--input", "0:" + witx_type + ":4:/w/a", "--input", "1:" + witx_type + ":4:/w/b",
                        "--output", "0:/w/sum", "--output", "1:/w/diff"});
  ASSERT_EQ(run.exit_code, 0) << model << ": " << run.output;
  EXPECT_EQ(read_file<T>(t.dir_ + "/sum"), sum) << model;
  EXPECT_EQ(read_file<T>(t.dir_ + "/diff"), diff) << model;
}

TEST_P(RemoteServer, AddSubInEveryWitxType) {
  check_add_sub<float>(*this, "add_sub_fp32", "f32");
  check_add_sub<double>(*this, "add_sub_fp64", "f64");
  if (server_.kind == "triton" && GetParam() == "rest_json") {
    // Triton takes FP16 only as binary data: a clear unsupported_operation with its words.
    write_file(dir_ + "/h", std::vector<uint16_t>(4, 0x3c00));
    auto run = run_guest(args("add_sub_fp16"), "run_model",
                         {"--name", "m", "--input", "0:f16:4:/w/h", "--input", "1:f16:4:/w/h", "--output", "0:/w/o"});
    EXPECT_EQ(run.exit_code, 6) << run.output;  // witx unsupported_operation
    EXPECT_NE(run.output.find("FP16 data via JSON is not supported"), std::string::npos) << run.output;
  } else {
    check_add_sub<uint16_t>(*this, "add_sub_fp16", "f16");
  }
  check_add_sub<uint8_t>(*this, "add_sub_uint8", "u8");
  check_add_sub<int32_t>(*this, "add_sub_int32", "i32");
  check_add_sub<int64_t>(*this, "add_sub_int64", "i64");
}

TEST_P(RemoteServer, DigitsEqualLocalOnnxRuntime) {
  const std::string fixtures = wasinn_test::fixtures_dir();
  const std::string model = fixtures + "/digits/model.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model << " (scripts/make_fixtures.py)";
  // The first 8 held-out digits, 8 x 64 floats.
  auto x = read_file<float>(fixtures + "/digits/test_x.f32");
  ASSERT_GE(x.size(), 8u * 64);
  x.resize(8 * 64);
  write_file(dir_ + "/x", x);
  const std::vector<std::string> guest = {"--name", "m", "--input", "0:f32:8x64:/w/x", "--output", "0:/w/logits"};
  auto remote = run_guest(args("digits"), "run_model", guest);
  ASSERT_EQ(remote.exit_code, 0) << remote.output;
  const auto remote_logits = read_file<float>(dir_ + "/logits");
  auto local = run_guest({"--nn-preload", "m:onnx:cpu:" + model, "--dir", dir_ + "::/w"}, "run_model", guest);
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const auto local_logits = read_file<float>(dir_ + "/logits");
  ASSERT_EQ(remote_logits.size(), 8u * 10);
  ASSERT_EQ(local_logits.size(), 8u * 10);
  for (size_t i = 0; i < local_logits.size(); ++i)
    EXPECT_NEAR(remote_logits[i], local_logits[i], 1e-4f * (1 + std::fabs(local_logits[i]))) << "logit " << i;
}

TEST_P(RemoteServer, InspectShowsMetadataNamesTypesShapes) {
  std::vector<std::string> a = {"models",           "inspect", "--backend-dir",
                                WASINN_BACKEND_DIR, "--json",  transport_.url(server_, "digits")};
  if (GetParam() == "rest_json") a.push_back("--nn-remote-json");
  auto run = run_wasinn(a, "inspect_" + GetParam());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto j = nlohmann::json::parse(run.output.substr(run.output.find('{')));
  EXPECT_EQ(j["backend"], "remote");
  ASSERT_EQ(j["inputs"].size(), 1u);
  EXPECT_EQ(j["inputs"][0]["name"], "input");
  EXPECT_EQ(j["inputs"][0]["type"], "f32");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::array({-1, 64}));
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["name"], "logits");
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json::array({-1, 10}));
  // Which encoding the REST transport chose: binary only where the server lists the extension.
  const std::string placement = j["placement"];
  if (GetParam() == "grpc")
    EXPECT_NE(placement.find("gRPC"), std::string::npos) << placement;
  else if (GetParam() == "rest_binary" && server_.kind == "triton")
    EXPECT_NE(placement.find("REST binary"), std::string::npos) << placement;
  else
    EXPECT_NE(placement.find("REST JSON"), std::string::npos) << placement;
}

// wasinn's extensions on a remote model (docs/compatibility.md, "Beyond the spec"): both describe
// guests read the served model's description as `models inspect` prints it, build their input
// from it alone and compute; the logits equal the same input on the local ONNX Runtime backend.
TEST_P(RemoteServer, GuestsDescribeTheServedModelAndComputeFromIt) {
  const std::string model = (wasinn_test::fixtures_dir() / "digits/model.onnx").string();
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no " << model << " (scripts/make_fixtures.py)";
  std::vector<std::string> inspect = {"models",           "inspect", "--backend-dir",
                                      WASINN_BACKEND_DIR, "--json",  transport_.url(server_, "digits")};
  if (GetParam() == "rest_json") inspect.push_back("--nn-remote-json");
  auto info = run_wasinn(inspect, "inspect_ext_" + GetParam());
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const auto expected = nlohmann::json::parse(info.output.substr(info.output.find('{')));
  for (const std::string guest : {"describe_io", "wit_describe_io.component"}) {
    std::filesystem::remove(dir_ + "/output_0.bin");
    auto run = run_guest(args("digits"), guest, {"--name", "m", "--out", "/w"});
    ASSERT_EQ(run.exit_code, 0) << guest << ": " << run.output;
    const auto described = nlohmann::json::parse(run.output.substr(run.output.find('{')), nullptr, false);
    ASSERT_FALSE(described.is_discarded()) << guest << ": " << run.output;
    for (const char* side : {"inputs", "outputs"}) {
      ASSERT_EQ(described[side].size(), expected[side].size()) << guest << " " << side;
      for (size_t i = 0; i < expected[side].size(); ++i) {
        for (const char* field : {"name", "type", "shape"}) {
          EXPECT_EQ(described[side][i][field], expected[side][i][field])
              << guest << " " << side << "[" << i << "]." << field;
        }
      }
    }
    const auto remote_logits = read_file<float>(dir_ + "/output_0.bin");
    auto local = run_guest({"--nn-preload", "m:onnx:cpu:" + model, "--dir", dir_ + "::/w"}, "run_model",
                           {"--name", "m", "--input", "0:f32:1x64:/w/input_0.bin", "--output", "0:/w/local"});
    ASSERT_EQ(local.exit_code, 0) << local.output;
    const auto local_logits = read_file<float>(dir_ + "/local");
    ASSERT_EQ(remote_logits.size(), 10u) << guest;
    ASSERT_EQ(local_logits.size(), 10u);
    for (size_t i = 0; i < 10; ++i)
      EXPECT_NEAR(remote_logits[i], local_logits[i], 1e-4f * (1 + std::fabs(local_logits[i])))
          << guest << " logit " << i;
  }
}

TEST_P(RemoteServer, UnknownModelIsNotFound) {
  auto run = run_guest(args("no_such_model"), "run_model", {"--name", "m"});
  EXPECT_EQ(run.exit_code, 8) << run.output;  // witx not_found
  EXPECT_NE(run.output.find("errno 8 in load_by_name"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("no_such_model"), std::string::npos) << run.output;
}

TEST_P(RemoteServer, BadShapeIsInvalidArgumentFromMetadata) {
  write_file(dir_ + "/a", std::vector<float>(5, 1.0f));
  auto run = run_guest(args("add_sub_fp32"), "run_model",
                       {"--name", "m", "--input", "0:f32:5:/w/a", "--input", "1:f32:5:/w/a"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("expected f32 [4]"), std::string::npos) << run.output;
}

TEST_P(RemoteServer, ServerSideFailureCarriesTheServersText) {
  // pair_add: lengths 4 and 2 do not broadcast; the model raises, the server reports it.
  write_file(dir_ + "/a", std::vector<float>(4, 1.0f));
  write_file(dir_ + "/c", std::vector<float>(2, 1.0f));
  auto run = run_guest(args("pair_add_fp32"), "run_model",
                       {"--name", "m", "--input", "0:f32:4:/w/a", "--input", "1:f32:2:/w/c", "--output", "0:/w/o"});
  EXPECT_EQ(run.exit_code, 5) << run.output;  // runtime_error
  EXPECT_NE(run.output.find("errno 5 in compute"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("pair_add_fp32"), std::string::npos) << run.output;
}

TEST_P(RemoteServer, SlowModelStopsAtMaxComputeMs) {
  write_file(dir_ + "/a", std::vector<float>(4, 1.0f));
  auto a = args("sleep_fp32");
  a.insert(a.end(), {"--max-compute-ms", "500"});
  const auto t0 = std::chrono::steady_clock::now();
  auto run = run_guest(a, "run_model", {"--name", "m", "--input", "0:f32:4:/w/a", "--output", "0:/w/o"});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(run.exit_code, 5) << run.output;
  EXPECT_NE(run.output.find("errno 5 in compute"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("timeout"), std::string::npos) << run.output;
  EXPECT_LT(s, 2.5) << "the model sleeps 3 s: the compute was not stopped at its deadline";
}

TEST_P(RemoteServer, RequestTimeoutIsTimeout) {
  write_file(dir_ + "/a", std::vector<float>(4, 1.0f));
  auto a = args("sleep_fp32");
  a.insert(a.end(), {"--nn-remote-timeout-ms", "400"});
  auto run = run_guest(a, "run_model", {"--name", "m", "--input", "0:f32:4:/w/a", "--output", "0:/w/o"});
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("timeout"), std::string::npos) << run.output;
}

TEST_P(RemoteServer, ManyComputesOnOneContext) {
  // The loop guest checks each output equals its input; 20 computes reuse pooled connections.
  auto run = run_guest(transport_.host_args(server_, "m", "identity_fp32"), "remote_loop", {"m", "20", "0", "1000"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("ok 20 failed 0"), std::string::npos) << run.output;
}

// Two contexts of one graph computing at once, in the plugin driven through its C table as the
// host drives it: each request sleeps 2 s on the server (which runs two at a time), so together
// they take about 2 s unless the client serializes them on one connection (4 s).
TEST_P(RemoteServer, ContextsInFlightDoNotSerialize) {
  wasinn_test::TestBackend b;
  wasinn_test::Graph g;
  wasinn_test::Diag d;
  const std::string spec = nlohmann::json{{"url", transport_.url(server_, "sleep2_fp32")},
                                          {"binary_tensors", GetParam() == "rest_json" ? "never" : "auto"}}
                               .dump();
  ASSERT_EQ(
      wasinn_test::load(b, {std::vector<uint8_t>(spec.begin(), spec.end())}, g, d, WASINN_TARGET_CPU, "", "remote"),
      WASINN_OK)
      << d.detail;
  wasinn_test::TestContext c1(g.ptr), c2(g.ptr);
  const std::vector<float> x1 = {1, 2, 3, 4}, x2 = {5, 6, 7, 8};
  ASSERT_EQ(wasinn_test::set_input(c1.ptr, wasinn_test::by_name("INPUT0"), WASINN_TYPE_F32, {4}, x1, d), WASINN_OK)
      << d.detail;
  ASSERT_EQ(wasinn_test::set_input(c2.ptr, wasinn_test::by_index(0), WASINN_TYPE_F32, {4}, x2, d), WASINN_OK)
      << d.detail;
  int st1 = -1, st2 = -1;
  std::string d1, d2;
  const auto t0 = std::chrono::steady_clock::now();
  std::thread a([&] {
    wasinn_test::Diag dd;
    st1 = wasinn_test::api().compute(c1.ptr, &dd);
    d1 = dd.detail;
  });
  std::thread bt([&] {
    wasinn_test::Diag dd;
    st2 = wasinn_test::api().compute(c2.ptr, &dd);
    d2 = dd.detail;
  });
  a.join();
  bt.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(st1, WASINN_OK) << d1;
  ASSERT_EQ(st2, WASINN_OK) << d2;
  EXPECT_LT(s, 3.5) << "two 2 s requests took " << s << " s: they ran one after the other";
  EXPECT_EQ(wasinn_test::output_as<float>(c1.ptr, wasinn_test::by_name("OUTPUT0"), WASINN_TYPE_F32), x1);
  EXPECT_EQ(wasinn_test::output_as<float>(c2.ptr, wasinn_test::by_index(0), WASINN_TYPE_F32), x2);
}

INSTANTIATE_TEST_SUITE_P(Transports, RemoteServer, ::testing::Values("rest_json", "rest_binary", "grpc"),
                         [](const auto& info) { return info.param; });

}  // namespace
