// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The wasinn command line itself: --version, --help, usage errors, `wasinn backends`.
#include <gtest/gtest.h>

#include <regex>

#include "base/sanitizers.h"
#include "native_ort.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

TEST(Cli, VersionNamesWasinnAndWasmtime) {
  const ChildResult r = run_wasinn({"--version"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^wasinn \d+\.\d+\.\d+ \(wasmtime \d+\.\d+\.\d+)")))
      << r.describe();
}

// The Rust side's heap (src/wasmtime_library/rust_heap.rs): mimalloc, except where a sanitizer's
// leak check must see every block, or where the user asks for the system's.
constexpr bool kSanitized = wasinn::kAddressSanitizer || wasinn::kThreadSanitizer;

TEST(Cli, VersionNamesTheRustHeap) {
  ChildOptions unset;
  unset.unset_env = {"WASINN_RUST_ALLOCATOR"};
  const ChildResult chosen = run_wasinn({"--version"}, unset);
  ASSERT_EQ(chosen.exit_code, 0) << chosen.describe();
  EXPECT_NE(chosen.out.find(kSanitized ? "\nRust heap: system\n" : "\nRust heap: mimalloc\n"), std::string::npos)
      << chosen.describe();
  const ChildResult asked = run_child({"/usr/bin/env", "WASINN_RUST_ALLOCATOR=system", wasinn_binary(), "--version"});
  ASSERT_EQ(asked.exit_code, 0) << asked.describe();
  EXPECT_NE(asked.out.find("\nRust heap: system\n"), std::string::npos) << asked.describe();
}

TEST(Cli, HelpListsTheSubcommands) {
  const ChildResult r = run_wasinn({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("run"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("backends"), std::string::npos) << r.describe();
}

TEST(Cli, RunHelpListsTheRunOptions) {
  const ChildResult r = run_wasinn({"run", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* option : {"--dir", "--env", "--nn-preload", "--backend-dir", "--backend-config"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.describe();
  }
}

TEST(Cli, RunWithoutModuleIsAUsageError) {
  const ChildResult r = run_wasinn({"run"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("missing app.wasm"), std::string::npos) << r.describe();
}

TEST(Cli, NoSubcommandOrAnUnknownOneFails) {
  EXPECT_NE(run_wasinn({}).exit_code, 0);
  const ChildResult r = run_wasinn({"frobnicate"});
  EXPECT_NE(r.exit_code, 0) << r.describe();
}

TEST(Cli, MissingOrInvalidModuleIsAClearError) {
  ScratchDir dir;
  const ChildResult missing = run_wasinn({"run", (dir / "nope.wasm").string()});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.describe();

  write_text(dir / "text.wasm", "not wasm at all");
  const ChildResult invalid = run_wasinn({"run", (dir / "text.wasm").string()});
  EXPECT_NE(invalid.exit_code, 0);
  EXPECT_NE(invalid.err.find("not a valid WebAssembly module"), std::string::npos) << invalid.describe();
}

TEST(Cli, BadDirOrEnvSyntaxIsAUsageError) {
  const ChildResult dir = run_wasinn({"run", "--dir", "::/guest", guest("wasi_probe"), "args"});
  EXPECT_EQ(dir.exit_code, 2) << dir.describe();
  EXPECT_NE(dir.err.find("expected HOST[::GUEST]"), std::string::npos) << dir.describe();
  const ChildResult env = run_wasinn({"run", "--env", "=x", guest("wasi_probe"), "args"});
  EXPECT_EQ(env.exit_code, 2) << env.describe();
  EXPECT_NE(env.err.find("expected NAME[=VALUE]"), std::string::npos) << env.describe();
  EXPECT_EQ(env.out, "");  // the guest never ran
}

TEST(Cli, BackendsListsOnnxRuntimeWithItsFrameworkVersion) {
  const ChildResult r = run_wasinn({"backends", "--check"});  // --check loads each plugin for its version
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // The version the plugin reports must be the library this test links (1.29.0 when written).
  const std::regex line("(^|\\n)onnxruntime +onnx +" +
                        std::regex_replace(NativeOrtModel::version(), std::regex(R"(\.)"), R"(\.)") + " +ok\\n");
  EXPECT_TRUE(std::regex_search(r.out, line)) << "expected version " << NativeOrtModel::version() << "\n"
                                              << r.describe();
  EXPECT_NE(r.out.find("searched: " + backend_dir().string()), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_it
