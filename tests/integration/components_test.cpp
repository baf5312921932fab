// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WebAssembly components (guest/components, built with jco in the build) run by the real
// `wasinn` on the real ONNX Runtime plugin through wasi:nn's WIT interface: the digits answers
// of every rc version equal the witx guest's and native ONNX Runtime's bit for bit, a library
// component runs with --invoke, every error reaches the guest as an error resource followed
// by a right answer, deadlines give `timeout`, and a guest's misbehaving cabi_realloc or too
// many tensors end that guest with a trap, never the host.
#include <gtest/gtest.h>

#include <cstring>
#include <string_view>

#include "digits_reference.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

std::string component(const std::string& name) { return guest(name + ".component"); }

ChildResult run_component(const std::string& name, const std::vector<std::string>& host_args,
                          const std::vector<std::string>& guest_args, const std::string& out_dir = "") {
  std::vector<std::string> args{"run"};
  const auto ort = single_thread_ort();
  args.insert(args.end(), ort.begin(), ort.end());
  args.insert(args.end(), host_args.begin(), host_args.end());
  args.insert(args.end(), {"--dir", fixture("digits").string() + "::/d"});
  if (!out_dir.empty()) args.insert(args.end(), {"--dir", out_dir + "::/out"});
  args.push_back(name.find('/') == std::string::npos ? component(name) : name);
  args.insert(args.end(), guest_args.begin(), guest_args.end());
  return run_wasinn(args);
}

const std::vector<std::string> kDigits{"/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"};

// The witx guest's stdout on the same inputs: what every component must print too.
const std::string& witx_digits_stdout() {
  static const std::string out = [] {
    auto args = kDigits;
    const ChildResult r = run_component(guest("classify_digits"), {}, args);
    if (r.exit_code != 0) throw std::runtime_error("classify_digits.wasm failed: " + r.describe());
    return r.out;
  }();
  return out;
}

void expect_native_logits(const fs::path& file) {
  const auto logits = read_array<float>(file);
  const auto& native = native_digit_logits();
  ASSERT_EQ(logits.size(), native.size());
  EXPECT_EQ(std::memcmp(logits.data(), native.data(), native.size() * sizeof(float)), 0);
}

class EveryRcVersion : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryRcVersion, ClassifiesTheDigitsAsTheWitxGuestAndNativeOnnxRuntime) {
  ScratchDir out;
  auto args = kDigits;
  args.push_back("/out/logits.f32");
  const ChildResult r = run_component(GetParam(), {}, args, out.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, witx_digits_stdout());
  expect_native_logits(out / "logits.f32");
  EXPECT_NE(r.err.find("output: logits dims [1, 10] type FP32"), std::string::npos) << r.describe();
}

// 10-28 (compute with named tensors), 08-19 and 06-25 (set-input, compute, get-output).
TEST(Components, The0625ErrorConstructorRoundTrips) {
  auto args = kDigits;
  const ChildResult r = run_component("wit_digits_0625", {}, args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("error constructor: not-found: probe\n"), std::string::npos) << r.describe();
}

INSTANTIATE_TEST_SUITE_P(Components, EveryRcVersion,
                         ::testing::Values("wit_classify_digits", "wit_digits_0819", "wit_digits_0625"));

TEST(Components, NamedModelsServeComponentsAsModules) {
  const ChildResult r =
      run_component("wit_classify_digits", {"--nn-preload", "digits:onnx:cpu:" + fixture("digits/model.onnx").string()},
                    {"name:digits", "/d/test_x.f32", "/d/test_y.u8"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, witx_digits_stdout());
}

TEST(Components, ALibraryComponentRunsWithInvoke) {
  const auto& native = native_digit_logits();
  const int expected =
      static_cast<int>(std::max_element(native.begin(), native.begin() + kDigitClasses) - native.begin());
  const ChildResult r = run_component(
      "wit_library", {"--nn-preload", "digits:onnx:cpu:" + fixture("digits/model.onnx").string(), "--invoke", "run"},
      {});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, std::to_string(expected) + "\n") << r.describe();
  // Without the model registered, the guest's error resource says not-found (code 6 in its enum).
  const ChildResult missing = run_component("wit_library", {"--invoke", "run"}, {});
  ASSERT_EQ(missing.exit_code, 0) << missing.describe();
  EXPECT_EQ(missing.out, "-1006\n") << missing.describe();
  EXPECT_NE(missing.err.find("load-by-name -> not_found"), std::string::npos) << missing.describe();
}

TEST(Components, EveryErrorIsAnErrorResourceAndTheGuestThenComputesRight) {
  const ChildResult r = run_component("wit_errors", {}, {"/d/model.onnx", "/d/test_x.f32"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* line :
       {"case unknown-input: invalid-argument: the model has no input named 'no-such-input'; the model's inputs "
        "are input (f32 [?, 64])",
        "case duplicate-input: invalid-argument: input 'input' is given twice",
        "case no-inputs: invalid-argument: input 'input' is missing",
        "case wrong-type: invalid-argument: input 'input' is u8, but the model takes f32",
        "case bad-length: invalid-argument: input \"input\": f32 [1, 64] needs 256 bytes of data, got 10",
        "case garbage-load: invalid-argument: loading the ONNX model",
        "case unknown-name: not-found: no model named 'wit-errors-no-such-model' is registered",
        "errors: 7/7 cases failed as they should, 7/7 recoveries right"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.describe();
  }
}

TEST(Components, AComputePastMaxComputeMsIsTimeout) {
  // mobilenet stays past the budget of 5 ms (slow_ort). Its 600 KB input goes in as a tensor.
  std::vector<std::string> host = slow_ort();
  host.insert(host.end(), {"--max-compute-ms", "5", "--dir", fixture("mobilenet_v2").string() + "::/m", "--nn-preload",
                           "mobilenet:onnx:cpu:" + fixture("mobilenet_v2/model.onnx").string()});
  const ChildResult r =
      run_component("wit_run_model", host, {"--name", "mobilenet", "--input", "input:fp32:1x3x224x224:/m/input.f32"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();  // the guest's exit 3 reaches a host as 1
  EXPECT_NE(r.out.find("error timeout: compute exceeded its budget of 5 ms"), std::string::npos) << r.describe();
}

TEST(Components, AModelOfMegabytesLoadsByBytesAsByName) {
  // 14 MB of model bytes in one list<u8> and a 600 KB input: read in place by the typed imports.
  const std::vector<std::string> host{"--dir", fixture("mobilenet_v2").string() + "::/m", "--nn-preload",
                                      "mobilenet:onnx:cpu:" + fixture("mobilenet_v2/model.onnx").string()};
  const std::vector<std::string> input{"--input", "input:fp32:1x3x224x224:/m/input.f32"};
  auto by_bytes = std::vector<std::string>{"--model", "/m/model.onnx", "--encoding", "onnx"};
  auto by_name = std::vector<std::string>{"--name", "mobilenet"};
  by_bytes.insert(by_bytes.end(), input.begin(), input.end());
  by_name.insert(by_name.end(), input.begin(), input.end());
  const ChildResult bytes = run_component("wit_run_model", host, by_bytes);
  const ChildResult named = run_component("wit_run_model", host, by_name);
  ASSERT_EQ(bytes.exit_code, 0) << bytes.describe();
  ASSERT_EQ(named.exit_code, 0) << named.describe();
  EXPECT_NE(bytes.out.find("output "), std::string::npos) << bytes.describe();
  EXPECT_EQ(bytes.out, named.out);
}

// Exit codes by Wasmtime's CLI's rule: a trap in the guest's realloc is a Trap (134); a pointer
// Wasmtime refuses ("realloc return: beyond end of memory") is its error, not a Trap (1).
TEST(Components, ACabiReallocThatMisbehavesIsAGuestErrorNeverAHostCrash) {
  for (const char* mode : {"trap", "oob", "misaligned"}) {
    const ChildResult r = run_component("wit_bad_realloc", {}, {mode, "/d/model.onnx", "/d/test_x.f32"});
    EXPECT_EQ(r.exit_code, std::string_view(mode) == "trap" ? 134 : 1) << mode << "\n" << r.describe();
    EXPECT_NE(r.err.find("wasm backtrace"), std::string::npos) << mode << "\n" << r.describe();
    EXPECT_NE(r.out.find(std::string("armed ") + mode), std::string::npos) << r.describe();
    EXPECT_EQ(r.out.find("compute:"), std::string::npos) << r.describe();
  }
  const ChildResult ok = run_component("wit_bad_realloc", {}, {"ok", "/d/model.onnx", "/d/test_x.f32"});
  ASSERT_EQ(ok.exit_code, 0) << ok.describe();
  EXPECT_NE(ok.out.find("compute: ok, 1 outputs, first logits, class 2"), std::string::npos) << ok.describe();
}

// The limit is a host call's error under a wasm frame, not a Wasmtime Trap: exit 1, as Wasmtime's
// CLI ends a run on such an error (-S max-resources alike).
TEST(Components, AGuestHoldingTooManyTensorsIsStoppedAtTheLimit) {
  const ChildResult r =
      run_component("wit_many_tensors", {"--max-tensors", "100"}, {"/d/model.onnx", "/d/test_x.f32", "1000"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("too many live tensors: the limit is 100 (see --max-tensors)"), std::string::npos)
      << r.describe();
  // Within the limit, all are made, dropped, and a compute follows.
  const ChildResult fits = run_component("wit_many_tensors", {}, {"/d/model.onnx", "/d/test_x.f32", "5000"});
  ASSERT_EQ(fits.exit_code, 0) << fits.describe();
  EXPECT_NE(fits.out.find("count: 5000\nrecover: class 2"), std::string::npos) << fits.describe();
}

TEST(Components, AnLlmComponentWritesTheWitxGuestsText) {
  if (!fs::exists(backend_dir() / "llamacpp.json")) GTEST_SKIP() << "the llamacpp backend is not built";
  // Greedy sampling: the text depends on the model and the prompt only, streamed (witx
  // compute_single) or in one piece (WIT compute, config through the "metadata" input).
  const std::vector<std::string> args{"run", "--nn-preload", "default:ggml:cpu:" + fixture("llama/tiny.gguf").string()};
  const std::vector<std::string> words{"--config", R"({"temp":0,"n-predict":24,"ctx-size":512})", "Once", "upon"};
  auto witx = args, wit = args;
  witx.push_back(guest("chat"));
  wit.push_back(component("wit_chat"));
  witx.insert(witx.end(), words.begin(), words.end());
  wit.insert(wit.end(), words.begin(), words.end());
  const ChildResult a = run_wasinn(witx), b = run_wasinn(wit);
  ASSERT_EQ(a.exit_code, 0) << a.describe();
  ASSERT_EQ(b.exit_code, 0) << b.describe();
  EXPECT_GT(a.out.size(), 10u) << a.describe();
  EXPECT_EQ(b.out, a.out);
}

TEST(Components, PolicyRefusalsAreSecurityAndLlmCodesMapToTheNearestWitCode) {
  if (!fs::exists(backend_dir() / "llamacpp.json")) GTEST_SKIP() << "the llamacpp backend is not built";
  ScratchDir dir;
  write_text(dir / "preload.bin", "preload:/etc/passwd");  // a guest naming a host file
  const ChildResult refused = run_wasinn({"run", "--dir", dir.path().string() + "::/x", component("wit_run_model"),
                                          "--model", "/x/preload.bin", "--encoding", "ggml"});
  EXPECT_EQ(refused.exit_code, 1) << refused.describe();
  EXPECT_NE(refused.out.find("error security: load: a guest may not name a host file"), std::string::npos)
      << refused.describe();
  // WasmEdge's context_full (errno 101 on the witx path) is WIT's too-large, its detail kept.
  const ChildResult full =
      run_wasinn({"run", "--nn-preload", "default:ggml:cpu:" + fixture("llama/tiny.gguf").string(),
                  component("wit_chat"), "--config", R"({"temp":0,"n-predict":64,"ctx-size":16})", "hello", "there"});
  EXPECT_EQ(full.exit_code, 1) << full.describe();
  EXPECT_NE(full.err.find("compute failed: too-large: the context is full (16 tokens)"), std::string::npos)
      << full.describe();
}

TEST(Components, TimeoutStopsAComponentAsItStopsAModule) {
  ScratchDir dir;
  write_text(dir / "spin.wat", R"((component
  (core module $m (func (export "spin") (result i32) (loop $l (br $l)) (i32.const 0)))
  (core instance $i (instantiate $m))
  (func (export "spin") (result s32) (canon lift (core func $i "spin")))))");
  const ChildResult r = run_wasinn({"run", "-W", "timeout=200ms", "--invoke", "spin", (dir / "spin.wat").string()});
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  EXPECT_NE(r.err.find("the guest ran longer than -W timeout=200ms and was stopped"), std::string::npos)
      << r.describe();
}

TEST(Components, AnImportWasinnDoesNotServeIsNamed) {
  ScratchDir dir;
  write_text(dir / "imports.wat", R"((component
  (import "acme:foo/bar@1.0.0" (instance (export "hello" (func (result u32)))))
  (import "wasi:http/outgoing-handler@0.2.0" (instance (export "handle" (func (result u32)))))
  (import "wasi:nn/graph@0.2.0-rc-2024-10-28" (instance (export "load-by-name" (func (param "name" string)))))))");
  const ChildResult r = run_wasinn({"run", (dir / "imports.wat").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("it imports acme:foo/bar@1.0.0, wasi:http/outgoing-handler@0.2.0, which wasinn does not "
                       "provide (it serves WASI 0.2's cli"),
            std::string::npos)
      << r.describe();
}

TEST(Components, InvokeTakesWasmtimesCallForm) {
  ScratchDir dir;
  write_text(dir / "answer.wat", R"((component
  (core module $m (func (export "answer") (result i32) (i32.const 42)))
  (core instance $i (instantiate $m))
  (func (export "answer") (result s32) (canon lift (core func $i "answer")))))");
  const ChildResult call = run_wasinn({"run", "--invoke", "answer()", (dir / "answer.wat").string()});
  EXPECT_EQ(call.exit_code, 0) << call.describe();
  EXPECT_EQ(call.out, "42\n") << call.describe();
  const ChildResult args = run_wasinn({"run", "--invoke", "answer(1)", (dir / "answer.wat").string()});
  EXPECT_EQ(args.exit_code, 1) << args.describe();
  EXPECT_NE(args.err.find("--invoke answer(1): arguments cannot be passed to a component's function"),
            std::string::npos)
      << args.describe();
}

TEST(Components, ACommandsFailureIsExitStatusOne) {
  const ChildResult r =
      run_component("wit_classify_digits", {}, {"/d/no_such_model.onnx", "/d/test_x.f32", "/d/test_y.u8"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
}

TEST(Components, ACorruptComponentIsRefusedWithAReason) {
  ScratchDir dir;
  auto bytes = read_bytes(component("wit_library"));
  bytes.resize(bytes.size() / 2);
  write_bytes(dir / "half.wasm", bytes.data(), bytes.size());
  const ChildResult r = run_wasinn({"run", (dir / "half.wasm").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("is not a valid WebAssembly component"), std::string::npos) << r.describe();
}

TEST(Components, AComponentWithoutRunNeedsInvoke) {
  const ChildResult r = run_component("wit_library", {}, {});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("is a WebAssembly component without a wasi:cli/run export: not a command (use --invoke NAME"),
            std::string::npos)
      << r.describe();
}

}  // namespace
}  // namespace wasinn_it
