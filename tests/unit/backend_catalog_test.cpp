// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// BackendCatalog over real manifests and real dlopen: broken manifests are reported and
// skipped, a backend that cannot load fails for its own encodings only, and each plugin is
// opened once and created once per catalog.
#include <algorithm>
#include <fstream>

#include "plugins/backend_catalog.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

bool any_contains(const std::vector<std::string>& list, std::string_view part) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& s : list) out += s + "\n";
  return out;
}

class Catalog : public ::testing::Test {
 protected:
  void TearDown() override { expect_no_live_plugin_objects(); }
};

TEST_F(Catalog, ReadsManifestsWithoutLoadingLibraries) {
  const int64_t before = FakePlugin::main().stats().live_backends;
  {
    BackendCatalog catalog({WASINN_UNIT_FAKE_DIR}, {});
    EXPECT_TRUE(catalog.manifest_problems().empty()) << joined(catalog.manifest_problems());
    EXPECT_EQ(FakePlugin::main().stats().live_backends, before) << "libraries load on first use only";
    auto p = catalog.plugin_for(Encoding::ggml);  // the manifest says "GGML"
    ASSERT_TRUE(p.ok()) << p.error().detail;
    EXPECT_EQ((*p)->name(), "fake");
    EXPECT_EQ((*p)->framework_version(), "fake-1.0");
    auto again = catalog.plugin_for(Encoding::onnx);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->get(), p->get()) << "one plugin object serves all its encodings";
    EXPECT_EQ(FakePlugin::main().stats().live_backends, before + 1) << "backend_create ran once";
  }
  EXPECT_EQ(FakePlugin::main().stats().live_backends, before) << "backend_destroy ran with the catalog";
}

TEST_F(Catalog, ReportsEachBrokenManifest) {
  BackendCatalog catalog({WASINN_UNIT_BROKEN_DIR}, {});
  const auto& problems = catalog.manifest_problems();
  EXPECT_EQ(problems.size(), 4u) << joined(problems);
  EXPECT_TRUE(any_contains(problems, "malformed.json: not a JSON object")) << joined(problems);
  EXPECT_TRUE(any_contains(problems, "no_fields.json: needs string \"name\"")) << joined(problems);
  EXPECT_TRUE(any_contains(problems, "bad_abi.json: plugin ABI version 2 is not this wasinn's 1")) << joined(problems);
  EXPECT_TRUE(any_contains(problems, "unknown_encoding.json: unknown encoding \"caffe\"")) << joined(problems);
}

TEST_F(Catalog, MissingLibraryFailsOnlyItsEncoding) {
  BackendCatalog catalog({WASINN_UNIT_BROKEN_DIR}, {});
  auto missing = catalog.plugin_for(Encoding::tensorflow);
  EXPECT_TRUE(has_errno(missing, 6, "backend missing_lib cannot load"));
  EXPECT_TRUE(has_errno(missing, 6, "libwasinn_backend_missing.so")) << "the detail names the library";
  auto good = catalog.plugin_for(Encoding::onnx);
  ASSERT_TRUE(good.ok()) << good.error().detail;
  EXPECT_EQ((*good)->name(), "fake");
  // The failure is remembered, with the same detail, not retried into a different error.
  EXPECT_EQ(catalog.plugin_for(Encoding::tensorflow).error().detail, missing.error().detail);
}

TEST_F(Catalog, LibraryProblems) {
  BackendCatalog catalog({WASINN_UNIT_BROKEN_DIR}, {});
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::tensorflowlite), 6,
                        "libwasinn_unit_fake_abi2.so speaks plugin ABI version 2, this wasinn speaks 1"));
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::pytorch), 6,
                        "libwasinn_unit_not_a_backend.so is not a wasinn backend: it lacks wasinn_backend_api_v1"));
}

TEST_F(Catalog, UnservedEncodingsAndDuplicateNames) {
  BackendCatalog catalog({WASINN_UNIT_BROKEN_DIR}, {});
  // bad_abi.json (openvino) was refused, and zz_duplicate.json (ggml) lost to a_fake.json.
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::openvino), 2, "no backend for encoding openvino is installed"));
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::ggml), 2,
                        std::string("no backend for encoding ggml is installed (searched: ") + WASINN_UNIT_BROKEN_DIR));
  BackendCatalog empty({}, {});
  EXPECT_TRUE(has_errno(empty.plugin_for(Encoding::onnx), 2, "(searched: nothing)"));
  BackendCatalog nowhere({"/nonexistent/wasinn"}, {});
  EXPECT_TRUE(nowhere.manifest_problems().empty());
  EXPECT_TRUE(has_errno(nowhere.plugin_for(Encoding::onnx), 2, "/nonexistent/wasinn"));
}

TEST_F(Catalog, FirstDirectoryWins) {
  // Both directories have a backend named "fake"; the broken dir's serves onnx only.
  BackendCatalog catalog({WASINN_UNIT_BROKEN_DIR, WASINN_UNIT_FAKE_DIR}, {});
  EXPECT_TRUE(catalog.plugin_for(Encoding::onnx).ok());
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::ggml), 2, "no backend for encoding ggml"));
  // No fallback: the broken dir's not_backend answers pytorch before fake_nostream is tried.
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::pytorch), 6, "not a wasinn backend"));
}

TEST_F(Catalog, BackendConfigReachesBackendCreate) {
  BackendCatalog catalog({WASINN_UNIT_FAKE_DIR}, {{"fake", R"({"fail": true})"}});
  EXPECT_TRUE(has_errno(catalog.plugin_for(Encoding::onnx), 5,
                        "backend fake cannot load: fake: backend_create failed as asked"));
  auto other = catalog.plugin_for(Encoding::pytorch);
  ASSERT_TRUE(other.ok()) << "a config for fake does not touch fake_nostream";
  EXPECT_EQ((*other)->name(), "fake_nostream");
}

TEST_F(Catalog, ProbeAllReportsEveryBackend) {
  BackendCatalog catalog({WASINN_UNIT_BROKEN_DIR}, {});
  auto reports = catalog.probe_all();
  ASSERT_EQ(reports.size(), 4u);  // a_fake, abi2_lib, missing_lib, not_backend
  int loaded = 0;
  for (const auto& r : reports) {
    if (r.manifest.name == "fake") {
      EXPECT_TRUE(r.loaded);
      EXPECT_EQ(r.framework_version, "fake-1.0");
      EXPECT_TRUE(r.problem.empty());
    } else {
      EXPECT_FALSE(r.loaded) << r.manifest.name;
      EXPECT_CONTAINS(r.problem, "backend " + r.manifest.name + " cannot load");
    }
    loaded += r.loaded;
  }
  EXPECT_EQ(loaded, 1);
}

// A non-numeric abi_version ("1", null, [1]) once made nlohmann::json throw out of the
// BackendCatalog constructor, aborting the host at start; it must be a manifest problem.
TEST_F(Catalog, NonNumericAbiVersionIsAProblemNotACrash) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "wasinn_unit_string_abi";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "string_abi.json")
      << R"({"name": "s", "abi_version": "1", "library": "libs.so", "encodings": ["onnx"]})";
  std::vector<std::string> problems;
  EXPECT_NO_THROW(problems = BackendCatalog({dir}, {}).manifest_problems());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_CONTAINS(problems[0], "string_abi.json");
}

// "config_keys" lists the backend config's keys, so the host can check them without loading the
// plugin: absent means undeclared, [] none, and anything but strings is a manifest problem.
TEST_F(Catalog, ConfigKeysAreReadFromTheManifest) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "wasinn_unit_config_keys";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto manifest = [&](const std::string& name, const std::string& keys) {
    std::ofstream(dir / (name + ".json"))
        << R"({"name": ")" << name << R"(", "abi_version": 1, "library": "libx.so", "encodings": ["onnx"])" << keys
        << "}";
  };
  manifest("a_listed", R"(, "config_keys": ["threads", "cache_dir"])");
  manifest("b_none", R"(, "config_keys": [])");
  manifest("c_undeclared", "");
  manifest("d_bad", R"(, "config_keys": ["threads", 3])");
  BackendCatalog catalog({dir}, {});
  const auto manifests = catalog.manifests();
  ASSERT_EQ(manifests.size(), 3u);
  EXPECT_EQ(manifests[0].config_keys, (std::vector<std::string>{"threads", "cache_dir"}));
  EXPECT_EQ(manifests[1].config_keys, std::vector<std::string>{});
  EXPECT_FALSE(manifests[2].config_keys.has_value());
  ASSERT_EQ(catalog.manifest_problems().size(), 1u);
  EXPECT_CONTAINS(catalog.manifest_problems()[0], "d_bad.json: \"config_keys\" must be an array of strings");
}

// The facts the core's rules ask of a backend's models ("inputs_sized_by_data", "text_model")
// come from its manifest and reach the loaded plugin; absent is false, a non-boolean a problem.
TEST_F(Catalog, ModelFactsAreReadFromTheManifest) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "wasinn_unit_model_facts";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fake_lib = std::string(WASINN_UNIT_FAKE_DIR) + "/libwasinn_unit_fake.so";
  const auto manifest = [&](const std::string& name, const std::string& encoding, const std::string& facts) {
    std::ofstream(dir / (name + ".json")) << R"({"name": ")" << name << R"(", "abi_version": 1, "library": ")"
                                          << fake_lib << R"(", "encodings": [")" << encoding << R"("])" << facts << "}";
  };
  manifest("a_text", "ggml", R"(, "inputs_sized_by_data": true, "text_model": true)");
  manifest("b_plain", "onnx", "");
  manifest("c_bad", "pytorch", R"(, "text_model": "yes")");
  BackendCatalog catalog({dir}, {});
  ASSERT_EQ(catalog.manifest_problems().size(), 1u);
  EXPECT_CONTAINS(catalog.manifest_problems()[0], "c_bad.json: \"text_model\" must be true or false");
  auto text = catalog.plugin_for(Encoding::ggml);
  ASSERT_TRUE(text.ok()) << text.error().detail;
  EXPECT_TRUE((*text)->facts().inputs_sized_by_data);
  EXPECT_TRUE((*text)->facts().text_model);
  auto plain = catalog.plugin_for(Encoding::onnx);
  ASSERT_TRUE(plain.ok()) << plain.error().detail;
  EXPECT_FALSE((*plain)->facts().inputs_sized_by_data);
  EXPECT_FALSE((*plain)->facts().text_model);
}

}  // namespace
}  // namespace wasinn::unit
