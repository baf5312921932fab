// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A backend whose framework library is missing: `wasinn backends` says why, a guest that loads
// that encoding gets unsupported_operation (6) with the reason on stderr, and guests that do
// not use wasi-nn run as usual. The plugin used is the real ONNX Runtime plugin, copied to a
// directory where its libonnxruntime.so.1 cannot be found.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "test_env.h"

namespace wasinn_it {
namespace {

constexpr const char* kPluginFile = "libwasinn_backend_onnxruntime.so";
constexpr const char* kMissingLibrary = "libonnxruntime.so.1: cannot open shared object file";

// Copies the plugin and its manifest into `dir`, blanking the plugin's RUNPATH (which starts
// at .deps/onnxruntime/lib, or at the CUDA variant's ORT when it is installed) so the dynamic
// loader has nowhere to find ONNX Runtime. Overwriting the string in place keeps the ELF valid:
// a shorter NUL-terminated path in the same bytes, which also ends the RUNPATH there.
void install_plugin_without_ort(const fs::path& dir) {
  auto elf = read_bytes(backend_dir() / kPluginFile);
  const std::string cuda_dir = WASINN_ORT_CUDA_LIBRARY_DIR;
  const std::string runpath = cuda_dir.empty() ? ort_library_dir().string() : cuda_dir;
  const std::string replacement = "/nonexistent-wasinn-test";
  ASSERT_LE(replacement.size(), runpath.size());
  const auto at = std::search(elf.begin(), elf.end(), runpath.begin(), runpath.end());
  ASSERT_NE(at, elf.end()) << "the plugin's RUNPATH no longer names " << runpath;
  std::fill(at, at + static_cast<std::ptrdiff_t>(runpath.size()), uint8_t{0});
  std::copy(replacement.begin(), replacement.end(), at);
  write_bytes(dir / kPluginFile, elf.data(), elf.size());
  fs::copy_file(backend_dir() / "onnxruntime.json", dir / "onnxruntime.json");
}

// The loader must not find ORT some other way either.
ChildOptions without_library_path() {
  ChildOptions options;
  options.unset_env = {"LD_LIBRARY_PATH", "LD_PRELOAD"};
  return options;
}

TEST(MissingFramework, BackendsReportsWhyThePluginCannotLoad) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(install_plugin_without_ort(dir.path()));
  const ChildResult r =
      run_wasinn({"backends", "--check", "--backend-dir", dir.path().string()}, without_library_path());
  // A health check: a listed backend that cannot load fails it, with the table still printed.
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("1 of 1 backends cannot load: onnxruntime"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("onnxruntime"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find(kMissingLibrary), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find(" ok\n"), std::string::npos) << r.describe();
}

TEST(MissingFramework, LoadingThatEncodingIsUnsupportedWithTheReason) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(install_plugin_without_ort(dir.path()));
  const ChildResult r = run_wasinn({"run", "--backend-dir", dir.path().string(), "--dir",
                                    fixture("tiny").string() + "::/t", guest("run_model"), "--model", "/t/model.onnx"},
                                   without_library_path());
  EXPECT_EQ(r.exit_code, 6) << r.describe();
  EXPECT_NE(r.out.find("errno 6 in load"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("backend onnxruntime cannot load"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find(kMissingLibrary), std::string::npos) << r.describe();
}

TEST(MissingFramework, GuestsWithoutWasiNnStillRun) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(install_plugin_without_ort(dir.path()));
  // Even with a model preloaded for the broken backend: plugins load on first use, not at start.
  const ChildResult r = run_wasinn(
      {"run", "--backend-dir", dir.path().string(), "--nn-preload",
       "digits:ONNX:AUTO:" + fixture("digits/model.onnx").string(), guest("wasi_probe"), "args", "still", "running"},
      without_library_path());
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=4\nargv[0]=wasi_probe.wasm\nargv[1]=args\nargv[2]=still\nargv[3]=running\n");
}

TEST(MissingFramework, ManifestNamingAMissingPluginIsReported) {
  ScratchDir dir;
  write_text(
      dir / "onnxruntime.json",
      R"({"name": "onnxruntime", "abi_version": 1, "library": "libwasinn_backend_gone.so", "encodings": ["onnx"]})");
  for (const char* mode : {"--check", "--json"}) {  // the reason when loaded; the path in any listing
    const ChildResult r = run_wasinn({"backends", mode, "--backend-dir", dir.path().string()});
    ASSERT_EQ(r.exit_code, std::string(mode) == "--check" ? 1 : 0) << r.describe();
    EXPECT_NE(r.out.find("libwasinn_backend_gone.so"), std::string::npos) << r.describe();
  }

  const ChildResult run =
      run_wasinn({"run", "--backend-dir", dir.path().string(), "--dir", fixture("tiny").string() + "::/t",
                  guest("run_model"), "--model", "/t/model.onnx"});
  EXPECT_EQ(run.exit_code, 6) << run.describe();
  EXPECT_NE(run.err.find("libwasinn_backend_gone.so"), std::string::npos) << run.describe();
}

TEST(MissingFramework, NoBackendForAnEncodingIsInvalidEncoding) {
  ScratchDir empty;
  const ChildResult list = run_wasinn({"backends", "--backend-dir", empty.path().string()});
  EXPECT_NE(list.out.find("no backend plugins found"), std::string::npos) << list.describe();

  const ChildResult run =
      run_wasinn({"run", "--backend-dir", empty.path().string(), "--dir", fixture("tiny").string() + "::/t",
                  guest("run_model"), "--model", "/t/model.onnx"});
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_NE(run.err.find("no backend for encoding onnx is installed"), std::string::npos) << run.describe();
}

}  // namespace
}  // namespace wasinn_it
