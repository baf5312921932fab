// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Rust guests built from crates.io against the wasi-nn crates people ship (guest/rust): each
// classifies the 450 held-out digits through `wasinn run` the way its home runtime is driven
// (Wasmtime's -S nn-graph, WasmEdge's --nn-preload), and must print native ONNX Runtime's
// predictions, accuracy and logits.
#include <gtest/gtest.h>

#include "compat_env.h"
#include "guest_report.h"

namespace wasinn_compat {
namespace {

const std::vector<std::string> kF32{"--x", "/data/test_x.f32", "--y", "/data/test_y.u8"};
const std::vector<std::string> kU8{"--u8", "--x", "/data/test_x.u8", "--y", "/data/test_y.u8"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class RustGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rust_guests_built())
      GTEST_SKIP() << "no Rust toolchain at configure time: run scripts/fetch-deps.sh rust-guest";
  }
};

TEST_F(RustGuest, WasiNn06LoadsOnnxBytes) {
  const auto r = run_guest({}, "compat_wasi_nn_06", std::vector<std::string>{"--model", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(parse_report(r.out)["tensor type sent"], "1");
  expect_answer(r.out, native_f32_answer());
}

TEST_F(RustGuest, WasiNn06LoadsByNameFromWasmtimeNnGraph) {
  // Wasmtime's command line: -S nn -S nn-graph=onnx::DIR, the model named after DIR.
  const auto r = run_guest({"-S", "nn", "-S", "nn-graph=onnx::" + fixture("digits").string()}, "compat_wasi_nn_06",
                           std::vector<std::string>{"--name", "digits"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
}

TEST_F(RustGuest, WasiNn06SendsU8AsThree) {
  const auto r = run_guest({"--wasi", "nn-graph=onnx::" + (data_dir() / "digits_u8").string()}, "compat_wasi_nn_06",
                           std::vector<std::string>{"--name", "digits_u8"} + kU8);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(parse_report(r.out)["tensor type sent"], "3");
  expect_answer(r.out, native_u8_answer());
}

TEST_F(RustGuest, WasiNn04ClassifiesF32) {
  const auto r = run_guest({}, "compat_wasi_nn_04", std::vector<std::string>{"--model", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
}

TEST_F(RustGuest, WasiNn04SendsU8AsTwoTheOldNumbering) {
  // In the current numbering 2 is f64; wasinn tells them apart by the data length (one byte
  // per element here).
  const auto r =
      run_guest({}, "compat_wasi_nn_04", std::vector<std::string>{"--model", "/data/digits_u8/model.onnx"} + kU8);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(parse_report(r.out)["tensor type sent"], "2");
  expect_answer(r.out, native_u8_answer());
}

class WasmEdgeGuest : public RustGuest, public ::testing::WithParamInterface<const char*> {};

TEST_P(WasmEdgeGuest, LoadsByNameWithConfigThenUnloads) {
  // WasmEdge's command line: --nn-preload NAME:ENCODING:TARGET:PATH; the crate sends the config
  // with load_by_name_with_config and the ONNX Runtime backend applies it.
  const auto r = run_guest(
      {"--nn-preload", "digits:ONNX:AUTO:" + fixture("digits/model.onnx").string()}, GetParam(),
      std::vector<std::string>{"--name", "digits", "--config", R"({"intra_op_threads":1})", "--cycles", "5"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
  auto report = parse_report(r.out);
  EXPECT_EQ(report["unload"], "ok");
  EXPECT_EQ(report["after unload"], "init_execution_context failed: BackendError(InvalidArgument)") << r.out;
  EXPECT_EQ(report["cycles"], "5 ok");
}

TEST_P(WasmEdgeGuest, ConfigReachesTheBackend) {
  // A config the backend rejects must come back to the guest as an error from the load.
  const auto r =
      run_guest({"--nn-preload", "digits:ONNX:AUTO:" + fixture("digits/model.onnx").string()}, GetParam(),
                std::vector<std::string>{"--name", "digits", "--config", R"({"intra_op_threads":"many"})"} + kF32);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("error in load_by_name_with_config: BackendError(InvalidArgument)"), std::string::npos)
      << r.describe();
  EXPECT_NE(r.err.find("intra_op_threads"), std::string::npos) << "the host's detail names the bad key\n"
                                                               << r.describe();
}

TEST_P(WasmEdgeGuest, LoadsBytesWithAutodetect) {
  // GraphEncoding::Autodetec is 5 in the witx crates; wasinn finds ONNX in the bytes.
  const auto r = run_guest({}, GetParam(), std::vector<std::string>{"--model", "/data/model.onnx"} + kF32);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  expect_answer(r.out, native_f32_answer());
}

TEST_P(WasmEdgeGuest, StreamsTheSameTokensAsOneShotCompute) {
  // WasmEdge's llama-stream flow (compute_single / get_output_single / fini_single) on a GGUF
  // model; greedy sampling, so the stream must add up to compute's answer, which
  // tests/backends/llamacpp compares with native llama.cpp.
  if (!fs::exists(backend_dir() / "libwasinn_backend_llamacpp.so")) GTEST_SKIP() << "the llamacpp backend is not built";
  const fs::path gguf = fixtures_root() / "llama" / "tiny.gguf";
  if (!fs::exists(gguf)) GTEST_SKIP() << gguf << " is missing (scripts/fixtures/export_gguf.py)";
  const auto r = run_guest(
      {"--nn-preload", "default:GGML:AUTO:" + gguf.string()}, GetParam(),
      {"stream", "default", R"({"temp":0,"seed":42,"n-predict":12,"ctx-size":128,"threads":1})", "Once upon a time"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto report = parse_report(r.out);
  EXPECT_GT(report["oneshot"].size(), 2u) << "no text generated:\n" << r.out;
  EXPECT_EQ(report["stream"], report["oneshot"]) << r.out;
  const int tokens = std::stoi(report["stream tokens"].empty() ? "0" : report["stream tokens"]);
  EXPECT_GE(tokens, 1);
  EXPECT_LE(tokens, 12) << "n-predict is 12";
}

INSTANTIATE_TEST_SUITE_P(Crates, WasmEdgeGuest,
                         ::testing::Values("compat_wasmedge_wasi_nn_07", "compat_wasmedge_wasi_nn_08"));

}  // namespace
}  // namespace wasinn_compat
