// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn backends` lists what the manifests say (encodings, library, isolation, config keys)
// without loading any plugin or framework; `--check` loads each one for its version or the
// reason it cannot load; both have --json.
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

void write_manifest(const fs::path& dir, const std::string& name, const std::string& extra = "") {
  write_text(dir / (name + ".json"), "{\"name\": \"" + name + "\", \"abi_version\": 1, \"library\": \"lib" + name +
                                         ".so\", \"encodings\": [\"onnx\"]" + extra + "}");
}

// `wasinn ARGS` with the dynamic loader naming on stderr every library it opens (LD_DEBUG).
ChildResult wasinn_showing_loads(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/env", "LD_DEBUG=files", wasinn_it::wasinn_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildOptions options;
  options.unset_env = {"WASINN_BACKEND_PATH"};
  return wasinn_it::run_child(argv, options);
}

TEST(BackendsList, LoadsNoPluginAndCheckLoadsEach) {
  if (!ort_plugin_built()) GTEST_SKIP() << "the ONNX Runtime plugin is not built";
  const ChildResult list = wasinn_showing_loads({"backends"});
  ASSERT_EQ(list.exit_code, 0) << list.describe();
  EXPECT_EQ(list.err.find("libwasinn_backend_"), std::string::npos) << "a plugin was loaded\n" << list.err;
  EXPECT_EQ(list.err.find("libonnxruntime"), std::string::npos) << "a framework was loaded\n" << list.err;
  EXPECT_NE(list.out.find("onnxruntime"), std::string::npos) << list.describe();

  const ChildResult check = wasinn_showing_loads({"backends", "--check"});
  // Exit 1 exactly when a built backend cannot load here (a health check), saying which.
  ASSERT_EQ(check.exit_code, check.err.find("backends cannot load") == std::string::npos ? 0 : 1) << check.describe();
  EXPECT_NE(check.err.find("libwasinn_backend_onnxruntime.so"), std::string::npos) << check.err.substr(0, 2000);
}

TEST(BackendsList, AnUnloadableLibraryIsListedAndCheckSaysWhy) {
  ScratchDir dir;
  write_manifest(dir.path(), "broken");
  write_text(dir / "libbroken.so", "not an ELF file\n");
  const ChildResult list = wasinn({"backends", "--backend-dir", dir.path().string()});
  ASSERT_EQ(list.exit_code, 0) << list.describe();
  EXPECT_TRUE(std::regex_search(list.out, std::regex("\\nbroken +onnx +no +libbroken\\.so +\\(not declared\\)\\n")))
      << list.out;
  EXPECT_EQ(list.err, "") << list.describe();

  const ChildResult check = wasinn({"backends", "--check", "--backend-dir", dir.path().string()});
  ASSERT_EQ(check.exit_code, 1) << check.describe();  // a health check: a backend cannot load
  EXPECT_NE(check.out.find("backend broken cannot load"), std::string::npos) << check.describe();
  EXPECT_EQ(check.out.find(" ok\n"), std::string::npos) << check.describe();
}

TEST(BackendsList, ShowsEncodingsIsolationLibraryAndConfigKeys) {
  ScratchDir dir;
  write_manifest(dir.path(), "keyed", R"(, "isolate_load": true, "config_keys": ["threads", "cache_dir"])");
  write_manifest(dir.path(), "keyless", R"(, "config_keys": [])");
  write_text(dir / "libkeyed.so", "");
  const ChildResult r = wasinn({"backends", "--backend-dir", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\\nBACKEND +ENCODINGS +ISOLATE +LIBRARY +CONFIG KEYS\\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\\nkeyed +onnx +yes +libkeyed\\.so +threads, cache_dir\\n")))
      << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("\\nkeyless +onnx +no +libkeyless\\.so \\(missing\\) +\\(none\\)\\n")))
      << r.out;
  EXPECT_NE(r.out.find("wasinn backends --check"), std::string::npos) << "the way to the versions is shown";
}

TEST(BackendsList, JsonWithoutAndWithCheck) {
  ScratchDir dir;
  write_manifest(dir.path(), "keyed", R"(, "isolate_load": true, "config_keys": ["threads"])");
  write_manifest(dir.path(), "plain");
  const ChildResult r = wasinn({"backends", "--json", "--backend-dir", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["backends"].size(), 2u) << r.out;
  const auto& keyed = j["backends"][0];
  EXPECT_EQ(keyed["name"], "keyed");
  EXPECT_EQ(keyed["encodings"], nlohmann::json::array({"onnx"}));
  EXPECT_EQ(keyed["library"], (dir / "libkeyed.so").string());
  EXPECT_EQ(keyed["library_found"], false);
  EXPECT_EQ(keyed["isolate_load"], true);
  EXPECT_EQ(keyed["config_keys"], nlohmann::json::array({"threads"}));
  EXPECT_FALSE(keyed.contains("loadable")) << "nothing was loaded, so nothing is said about it";
  EXPECT_TRUE(j["backends"][1]["config_keys"].is_null()) << r.out;

  const ChildResult check = wasinn({"backends", "--check", "--json", "--backend-dir", dir.path().string()});
  ASSERT_EQ(check.exit_code, 1) << check.describe();  // a health check: a backend cannot load
  const auto c = nlohmann::json::parse(check.out);
  EXPECT_EQ(c["backends"][0]["loadable"], false);
  EXPECT_NE(c["backends"][0]["problem"].get<std::string>().find("libkeyed.so"), std::string::npos) << check.out;
  EXPECT_EQ(c["backends"][0]["config_keys"], nlohmann::json::array({"threads"}));
}

TEST(BackendsList, CheckShowsEachBackendsDevicesAndWhyATargetIsUnavailable) {
  const std::vector<std::string> dir{"--backend-dir", WASINN_FAKE_BACKEND_DIR};
  std::vector<std::string> args{"backends", "--check"};
  args.insert(args.end(), dir.begin(), dir.end());
  const ChildResult r = wasinn(args);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\\nBACKEND +TARGET +API +DEVICE +MEMORY\\nfake +cpu +CPU +fake CPU +1\\.0 GiB\\n")))
      << r.out;
  EXPECT_NE(r.out.find("\nfake: no gpu: the fake backend has only its CPU\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no tpu"), std::string::npos) << "no backend has a TPU: the line would only repeat\n" << r.out;

  args.push_back("--json");
  const ChildResult j = wasinn(args);
  ASSERT_EQ(j.exit_code, 0) << j.describe();
  const auto fake = nlohmann::json::parse(j.out)["backends"][0];
  EXPECT_EQ(fake["devices"], nlohmann::json::parse(R"([{"name": "fake CPU", "api": "CPU", "memory_bytes": 1073741824,
                                                         "target": "cpu"}])"));
  EXPECT_EQ(fake["unavailable_targets"]["gpu"], "the fake backend has only its CPU") << j.out;
  EXPECT_EQ(fake["unavailable_targets"]["tpu"], "the fake backend has only its CPU") << j.out;
}

TEST(BackendsList, TheBuiltManifestsDeclareTheirConfigKeys) {
  if (!ort_plugin_built()) GTEST_SKIP() << "the ONNX Runtime plugin is not built";
  const auto j = nlohmann::json::parse(wasinn({"backends", "--json"}).out);
  bool found = false;
  for (const auto& b : j["backends"]) {
    ASSERT_TRUE(b["config_keys"].is_array()) << "every backend built here declares its keys: " << b.dump();
    if (b["name"] != "onnxruntime") continue;
    found = true;
    EXPECT_EQ(b["config_keys"],
              nlohmann::json::array({"intra_op_threads", "inter_op_threads", "graph_optimization_level", "fallback"}));
    EXPECT_EQ(b["library_found"], true);
  }
  EXPECT_TRUE(found) << j.dump();
}

TEST(BackendsList, AManifestWithBadConfigKeysIsReported) {
  ScratchDir dir;
  write_manifest(dir.path(), "good");
  write_manifest(dir.path(), "bad", R"(, "config_keys": "threads")");
  const ChildResult r = wasinn({"backends", "--backend-dir", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(
      r.out.find("bad manifest: " + (dir / "bad.json").string() + ": \"config_keys\" must be an array of strings"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\ngood "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace wasinn_cli_test
