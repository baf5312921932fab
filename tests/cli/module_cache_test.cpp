// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The compiled-module cache (src/engine/module_cache.h): a second run of a module loads its
// compiled code instead of compiling; an entry that is corrupt, truncated or made with other
// engine settings is ignored and rewritten; --no-cache, -C cache=n and --module-cache off write
// nothing; a directory others can write is not used; concurrent runs share one entry.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

constexpr const char* kFromCache = "compiled module from the module cache";
constexpr const char* kStored = "compiled module stored in the module cache";

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".cwasm") out.push_back(e.path());
  }
  return out;
}

// The digits guest on ONNX Runtime, with the cache flags given; checks its answer.
ChildResult run_digits(const std::vector<std::string>& cache_flags) {
  std::vector<std::string> args{"run", "--log-level", "debug"};
  args.insert(args.end(), cache_flags.begin(), cache_flags.end());
  const auto digits = fixture("digits");
  const std::vector<std::string> rest{"--dir",         digits->string() + "::/d", guest("classify_digits"),
                                      "/d/model.onnx", "/d/test_x.f32",           "/d/test_y.u8"};
  args.insert(args.end(), rest.begin(), rest.end());
  ChildResult r = wasinn(args);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("accuracy: 435/450"), std::string::npos) << r.describe();
  return r;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class ModuleCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fixture("digits") || !ort_plugin_built())
      GTEST_SKIP() << "needs the digits fixture and the ONNX Runtime plugin";
    ::chmod(scratch_.path().c_str(), 0700);
    dir_ = scratch_.path() / "modules";
  }
  std::vector<std::string> at_dir() const { return {"--module-cache", dir_.string()}; }

  ScratchDir scratch_;
  fs::path dir_;
};

TEST_F(ModuleCache, TheSecondRunLoadsTheCompiledModule) {
  const ChildResult first = run_digits(at_dir());
  EXPECT_TRUE(contains(first.err, kStored)) << first.describe();
  EXPECT_FALSE(contains(first.err, kFromCache)) << first.describe();
  const auto stored = entries(dir_);
  ASSERT_EQ(stored.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "only the user may write the cache";
  ASSERT_EQ(::stat(stored[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const ChildResult second = run_digits(at_dir());
  EXPECT_TRUE(contains(second.err, kFromCache)) << second.describe();
  EXPECT_FALSE(contains(second.err, kStored)) << second.describe();
  EXPECT_EQ(second.out, first.out);
}

TEST_F(ModuleCache, AComponentIsKeptToo) {
  const std::string component = guest("wit_classify_digits.component");
  if (!fs::exists(component)) GTEST_SKIP() << "component guests are not built (no node or jco)";
  const auto run = [&] {
    std::vector<std::string> args{"run", "--log-level", "debug"};
    const auto flags = at_dir();
    args.insert(args.end(), flags.begin(), flags.end());
    const std::vector<std::string> rest{
        "--dir", fixture("digits")->string() + "::/d", component, "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"};
    args.insert(args.end(), rest.begin(), rest.end());
    ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("accuracy: 435/450"), std::string::npos) << r.describe();
    return r;
  };
  const ChildResult first = run();
  EXPECT_TRUE(contains(first.err, "compiled component stored in the module cache")) << first.describe();
  ASSERT_EQ(entries(dir_).size(), 1u);
  const ChildResult second = run();
  EXPECT_TRUE(contains(second.err, "compiled component from the module cache")) << second.describe();
  EXPECT_EQ(second.out, first.out);
}

TEST_F(ModuleCache, ACorruptOrTruncatedEntryIsIgnoredAndRewritten) {
  run_digits(at_dir());
  const auto stored = entries(dir_);
  ASSERT_EQ(stored.size(), 1u);
  const auto size = fs::file_size(stored[0]);
  {  // one flipped byte in the compiled code, past the header
    std::fstream f(stored[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x40);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write(&c, 1);
  }
  const ChildResult corrupt = run_digits(at_dir());
  EXPECT_TRUE(contains(corrupt.err, "does not match its checksum")) << corrupt.describe();
  EXPECT_TRUE(contains(corrupt.err, kStored)) << "rewritten: " << corrupt.describe();
  EXPECT_TRUE(contains(run_digits(at_dir()).err, kFromCache)) << "the rewritten entry is good";

  fs::resize_file(stored[0], size - 100);
  const ChildResult truncated = run_digits(at_dir());
  EXPECT_TRUE(contains(truncated.err, "ignoring cached module")) << truncated.describe();
  EXPECT_FALSE(contains(truncated.err, kFromCache)) << truncated.describe();
  fs::resize_file(stored[0], 20);
  const ChildResult header = run_digits(at_dir());
  EXPECT_TRUE(contains(header.err, "truncated header")) << header.describe();
}

TEST_F(ModuleCache, OtherEngineSettingsAreAnotherEntry) {
  run_digits(at_dir());
  // --timeout compiles epoch checks into the code: that code must not serve a run without them.
  const ChildResult timed = run_digits({"--module-cache", dir_.string(), "--timeout", "1m"});
  EXPECT_TRUE(contains(timed.err, kStored)) << timed.describe();
  EXPECT_EQ(entries(dir_).size(), 2u);
}

TEST_F(ModuleCache, EveryWayToTurnItOffWritesNothing) {
  for (const auto& flags : std::vector<std::vector<std::string>>{{"--module-cache", "off"},
                                                                 {"--no-cache", "--module-cache", dir_.string()},
                                                                 {"-C", "cache=n", "--module-cache", dir_.string()},
                                                                 {"-Ccache=n", "--module-cache", dir_.string()}}) {
    const ChildResult r = run_digits(flags);
    EXPECT_FALSE(contains(r.err, kStored)) << r.describe();
    EXPECT_FALSE(contains(r.err, kFromCache)) << r.describe();
  }
  EXPECT_TRUE(entries(dir_).empty());
  EXPECT_EQ(wasinn({"run", "-C", "cache=maybe", guest("classify_digits")}).exit_code, 2);
}

TEST_F(ModuleCache, ADirectoryOthersCanWriteIsNotUsed) {
  fs::create_directories(dir_);
  ::chmod(dir_.c_str(), 0777);
  const ChildResult r = run_digits(at_dir());
  EXPECT_TRUE(contains(r.err, "compiled modules are not cached in")) << r.describe();
  EXPECT_TRUE(contains(r.err, "group- or world-writable")) << r.describe();
  EXPECT_TRUE(entries(dir_).empty());
}

TEST_F(ModuleCache, TheDefaultIsUnderXdgCacheHome) {
  ASSERT_EQ(::setenv("XDG_CACHE_HOME", scratch_.path().c_str(), 1), 0);  // this test's process only
  const ChildResult r = run_digits({});
  EXPECT_TRUE(contains(r.err, kStored)) << r.describe();
  EXPECT_EQ(entries(scratch_.path() / "wasinn" / "modules").size(), 1u);
  ::unsetenv("XDG_CACHE_HOME");
}

TEST_F(ModuleCache, ConcurrentRunsShareOneEntry) {
  std::vector<std::thread> runs;
  for (int i = 0; i < 4; ++i) runs.emplace_back([&] { run_digits(at_dir()); });
  for (auto& t : runs) t.join();
  ASSERT_EQ(entries(dir_).size(), 1u);
  EXPECT_TRUE(contains(run_digits(at_dir()).err, kFromCache));
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().extension(), ".cwasm") << "no temp file left behind: " << e.path();
  }
}

}  // namespace
}  // namespace wasinn_cli_test
