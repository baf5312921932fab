// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// --nn-preload NAME:ENCODING:TARGET:PATH[:PATH...] (WasmEdge's syntax): spellings it accepts
// for load_by_name, and the mistakes it rejects before the guest runs.
#include <gtest/gtest.h>

#include <cstring>

#include "native_ort.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

// All 450 held-out digits as one batch through `run_model --name digits`.
ChildResult run_named_digits(const std::string& preload, const ScratchDir& out) {
  std::vector<std::string> args{"run", "--nn-preload", preload};
  const auto ort = single_thread_ort();
  args.insert(args.end(), ort.begin(), ort.end());
  args.insert(args.end(), {"--dir", fixture("digits").string() + "::/d", "--dir", out.path().string() + "::/out",
                           guest("run_model"), "--name", "digits", "--input", "0:f32:450x64:/d/test_x.f32", "--output",
                           "0:/out/logits.f32"});
  return run_wasinn(args);
}

TEST(NnPreload, EncodingAndTargetAreCaseInsensitiveAndAutoIsAllowed) {
  const std::string model = fixture("digits/model.onnx").string();
  NativeOrtModel native_model(read_bytes(model), 1);
  const auto native = native_model.run(read_array<float>(fixture("digits/test_x.f32")), {450, 64});
  for (const std::string spec :
       {"digits:ONNX:AUTO:", "digits:onnx:auto:", "digits:Onnx:Cpu:", "digits:autodetect:CPU:"}) {
    ScratchDir out;
    const ChildResult r = run_named_digits(spec + model, out);
    ASSERT_EQ(r.exit_code, 0) << spec << "\n" << r.describe();
    const auto logits = read_array<float>(out / "logits.f32");
    ASSERT_EQ(logits.size(), native.size()) << spec;
    EXPECT_EQ(std::memcmp(logits.data(), native.data(), native.size() * sizeof(float)), 0) << spec;
  }
}

TEST(NnPreload, AcceleratorTargetIsUnsupportedAtLoadByName) {
  ScratchDir out;
  const ChildResult r = run_named_digits("digits:ONNX:GPU:" + fixture("digits/model.onnx").string(), out);
  EXPECT_EQ(r.exit_code, 6) << r.describe();
  EXPECT_NE(r.out.find("errno 6 in load_by_name"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("target gpu is not available"), std::string::npos) << r.describe();
}

TEST(NnPreload, EachPathBecomesOneGraphBuilder) {
  // PATH:PATH reaches the backend as two builders; ONNX takes exactly one and says so.
  const std::string model = fixture("digits/model.onnx").string();
  ScratchDir out;
  const ChildResult r = run_named_digits("digits:ONNX:AUTO:" + model + ":" + model, out);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.out.find("errno 1 in load_by_name"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("exactly one graph builder (the .onnx model bytes), got 2"), std::string::npos) << r.describe();
}

TEST(NnPreload, UnregisteredNameIsNotFound) {
  const ChildResult r = run_wasinn({"run", guest("run_model"), "--name", "digits"});
  EXPECT_EQ(r.exit_code, 8) << r.describe();
  EXPECT_NE(r.out.find("errno 8 in load_by_name"), std::string::npos) << r.describe();
}

// A malformed spec stops wasinn with a message naming the problem, and the guest never starts.
void expect_rejected(const std::vector<std::string>& preloads, const std::string& message) {
  std::vector<std::string> args{"run"};
  for (const auto& p : preloads) args.insert(args.end(), {"--nn-preload", p});
  args.insert(args.end(), {guest("wasi_probe"), "args", "guest-ran"});
  const ChildResult r = run_wasinn(args);
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected: " << message << "\n" << r.describe();
  EXPECT_EQ(r.out.find("guest-ran"), std::string::npos) << r.describe();
}

TEST(NnPreload, MalformedSpecsAreRejectedBeforeTheGuestRuns) {
  const std::string model = fixture("digits/model.onnx").string();
  expect_rejected({"digits:NOPE:AUTO:" + model}, "unknown encoding 'NOPE'");
  expect_rejected({"digits:ONNX:FPGA:" + model}, "unknown target 'FPGA'");
  expect_rejected({"digits:ONNX:AUTO"}, "expected NAME:ENCODING:TARGET:PATH");
  expect_rejected({":ONNX:AUTO:" + model}, "expected NAME:ENCODING:TARGET:PATH");
  expect_rejected({"digits:ONNX:AUTO:" + model + ":"}, "empty path");
  expect_rejected({"digits:ONNX:AUTO:" + model, "digits:ONNX:CPU:" + model}, "'digits' is registered twice");
}

TEST(NnPreload, MissingFileIsAnErrorAtStart) {
  // A typo in a path is said before any guest runs (exit 2), not at the guest's load_by_name.
  const ChildResult r = run_wasinn(
      {"run", "--nn-preload", "digits:ONNX:AUTO:/nonexistent/model.onnx", guest("run_model"), "--name", "digits"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(r.out, "") << r.describe();
  EXPECT_NE(r.err.find("/nonexistent/model.onnx does not exist"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_it
