// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Remembered verdicts of isolated load checks (src/isolation/verdict_cache.h): a model checked
// once is not checked again, in the same process (in memory) or in a later one (on disk); a
// changed model is checked again, never trusted; a failure keeps its error; a corrupt or
// foreign entry is ignored and rewritten; a directory others could write is not used; and the
// cache can be moved or turned off. Real plugins and fixtures, through NnEnvironment::load_graph
// as a guest's load reaches it; children are counted with children_spawned(). Cache
// directories are scratch directories, and $XDG_CACHE_HOME is one too (temp_cache_home.cpp).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mapped_file.h"
#include "core/nn_environment.h"
#include "root/wired_environment.h"
#include "test_env.h"

namespace wasinn_it {
namespace {

using wasinn::Encoding;
using wasinn::NnEnvironment;
using wasinn::Status;

bool backend_built(const std::string& name) {
  return fs::exists(backend_dir() / ("libwasinn_backend_" + name + ".so"));
}

// An environment as a Host makes one with --isolate-loads auto and --isolated-load-cache `cache`.
std::unique_ptr<wasinn::WiredEnvironment> isolated_env(const std::string& cache,
                                                       std::map<std::string, std::string> backend_configs = {}) {
  wasinn::EnvironmentOptions options;
  options.backend_dirs = {backend_dir()};
  options.backend_configs = std::move(backend_configs);
  options.isolation.mode = wasinn::IsolationMode::by_manifest;
  options.isolation.checker = WASINN_LOAD_CHECK_PATH;
  wasinn::set_verdict_cache(options.isolation, cache);
  return std::make_unique<wasinn::WiredEnvironment>(wasinn::wire_environment(std::move(options)));
}

// A guest's load(): the bytes, no path.
Status load_bytes(wasinn::WiredEnvironment& env, Encoding encoding, const std::vector<uint8_t>& bytes,
                  wasinn::Target target = wasinn::Target::cpu) {
  const std::span<const uint8_t> builders[] = {bytes};
  auto graph = env.env->load_graph(encoding, target, builders, {}, "");
  if (!graph) return graph.take_error();
  return {};
}

// A preloaded file: its path and its mapped bytes.
Status load_file(wasinn::WiredEnvironment& env, Encoding encoding, const fs::path& path) {
  const fs::path paths[] = {path};
  auto mapped = wasinn::MappedBuilders::open(paths);
  if (!mapped) return mapped.take_error();
  auto graph = env.env->load_graph(encoding, wasinn::Target::cpu, mapped->builders(), paths, "");
  if (!graph) return graph.take_error();
  return {};
}

uint64_t spawned(wasinn::WiredEnvironment& env) { return env.isolation->children_spawned(); }

std::vector<fs::path> entries(const fs::path& dir, const std::string& ending = ".json") {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().ends_with(ending)) out.push_back(e.path());
  }
  return out;
}

// The entry's JSON (null when it is not JSON).
nlohmann::json entry_json(const fs::path& file) {
  const auto bytes = read_bytes(file);
  return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
}

void expect_valid_entry(const fs::path& file, bool ok) {
  const auto j = entry_json(file);
  ASSERT_TRUE(j.is_object()) << file;
  EXPECT_EQ(j.value("key", std::string()) + ".json", file.filename().string());
  EXPECT_EQ(j.value("ok", !ok), ok) << j.dump();
}

struct Model {
  const char* test_name;
  const char* backend;
  Encoding encoding;
  const char* fixture;
};

const Model kModels[] = {
    {"PyTorch", "pytorch", Encoding::pytorch, "digits/model.pt"},
    {"TfLite", "tensorflowlite", Encoding::tensorflowlite, "tflite/digits_f32.tflite"},
    {"LlamaCpp", "llamacpp", Encoding::ggml, "llama/tiny.gguf"},
};

class RememberedVerdict : public ::testing::TestWithParam<Model> {
 protected:
  void SetUp() override {
    if (!backend_built(GetParam().backend)) GTEST_SKIP() << GetParam().backend << " plugin not built";
    bytes_ = read_bytes(fixture(GetParam().fixture));
  }
  std::vector<uint8_t> bytes_;
};

TEST_P(RememberedVerdict, RepeatedBytesSpawnNoSecondChild) {
  ScratchDir scratch;
  auto env = isolated_env((scratch / "verdicts").string());
  const Status first = load_bytes(*env, GetParam().encoding, bytes_);
  ASSERT_TRUE(first.ok()) << first.error().detail;
  EXPECT_EQ(spawned(*env), 1u);
  for (int i = 0; i < 3; ++i) {
    const Status again = load_bytes(*env, GetParam().encoding, bytes_);
    ASSERT_TRUE(again.ok()) << again.error().detail;
  }
  EXPECT_EQ(spawned(*env), 1u) << "repeat loads of the same bytes were checked again";
  const auto files = entries(scratch / "verdicts");
  ASSERT_EQ(files.size(), 1u);
  expect_valid_entry(files[0], true);
}

TEST_P(RememberedVerdict, AutoLoadsAreCheckedEachTime) {
  // Their verdict also depends on the devices and the environment showing them, kept in no key.
  ScratchDir scratch;
  auto env = isolated_env((scratch / "verdicts").string());
  for (int i = 0; i < 2; ++i) {
    const Status loaded = load_bytes(*env, GetParam().encoding, bytes_, wasinn::Target::autodetect);
    ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
  }
  EXPECT_EQ(spawned(*env), 2u);
  EXPECT_TRUE(entries(scratch / "verdicts").empty());
}

TEST_P(RememberedVerdict, ASecondProcessWithTheSameDiskCacheSpawnsNoChild) {
  ScratchDir scratch;
  const std::string dir = (scratch / "verdicts").string();
  {
    auto first = isolated_env(dir);
    ASSERT_TRUE(load_bytes(*first, GetParam().encoding, bytes_).ok());
    ASSERT_EQ(spawned(*first), 1u);
  }
  // A new environment has nothing in memory: what it knows comes from the directory.
  auto second = isolated_env(dir);
  const Status loaded = load_bytes(*second, GetParam().encoding, bytes_);
  ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
  EXPECT_EQ(spawned(*second), 0u);
  EXPECT_EQ(second->isolation->verdict_cache_dir(), fs::path(dir));
}

INSTANTIATE_TEST_SUITE_P(Backends, RememberedVerdict, ::testing::ValuesIn(kModels),
                         [](const auto& info) { return std::string(info.param.test_name); });

// A crash and a clean refusal (libtorch): each answered again with its code and detail, by
// the same environment and by a new one, without a child.
TEST(VerdictCache, AFailedModelKeepsFailingWithTheSameErrorWithoutAChild) {
  if (!backend_built("pytorch")) GTEST_SKIP() << "pytorch plugin not built";
  ScratchDir scratch;
  const std::string dir = (scratch / "verdicts").string();
  struct Bad {
    const char* fixture;
    const char* says;
  };
  const Bad bad[] = {{"malformed/torchscript_buffer.pt", "crashed the framework in an isolated check (SIGSEGV)"},
                     {"malformed/torchscript_unknown_op.pt", "Unknown builtin op: aten::rel0"}};
  std::vector<wasinn::Error> first_errors;
  auto env = isolated_env(dir);
  for (const auto& b : bad) {
    const auto bytes = read_bytes(fixture(b.fixture));
    const Status first = load_bytes(*env, Encoding::pytorch, bytes);
    ASSERT_FALSE(first.ok()) << b.fixture;
    EXPECT_EQ(first.error().code, wasinn::Errc::invalid_argument) << first.error().detail;
    EXPECT_NE(first.error().detail.find(b.says), std::string::npos) << first.error().detail;
    first_errors.push_back(first.error());
    const uint64_t children = spawned(*env);
    const Status again = load_bytes(*env, Encoding::pytorch, bytes);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, first.error().code);
    EXPECT_EQ(again.error().detail, first.error().detail);
    EXPECT_EQ(spawned(*env), children) << b.fixture << " was checked again";
  }
  EXPECT_EQ(spawned(*env), 2u);
  auto later = isolated_env(dir);
  for (size_t i = 0; i < std::size(bad); ++i) {
    const Status from_disk = load_bytes(*later, Encoding::pytorch, read_bytes(fixture(bad[i].fixture)));
    ASSERT_FALSE(from_disk.ok());
    EXPECT_EQ(from_disk.error().code, first_errors[i].code);
    EXPECT_EQ(from_disk.error().detail, first_errors[i].detail);
  }
  EXPECT_EQ(spawned(*later), 0u);
}

// The same path with other bytes is another model. The hardest case: the same size and the
// same mtime (restored as `touch -d` would), on a file whose stat identity was already known.
// A verdict trusted by mistake would load a LiteRT crasher into this process and kill it.
TEST(VerdictCache, AChangedFileIsCheckedAgainNotTrusted) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  ScratchDir scratch;
  auto env = isolated_env((scratch / "verdicts").string());
  const fs::path model = scratch / "model.tflite";
  const auto good = read_bytes(fixture("tflite/digits_f32.tflite"));
  auto crasher = read_bytes(fixture("malformed/tflite_crash_segv.tflite"));

  write_bytes(model, good.data(), good.size());
  ASSERT_TRUE(load_file(*env, Encoding::tensorflowlite, model).ok());
  ASSERT_EQ(spawned(*env), 1u);

  // Other bytes, another size.
  write_bytes(model, crasher.data(), crasher.size());
  Status loaded = load_file(*env, Encoding::tensorflowlite, model);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().detail.find("crashed the framework"), std::string::npos) << loaded.error().detail;
  EXPECT_EQ(spawned(*env), 2u);

  // Back to the good bytes: known by content, so no child.
  write_bytes(model, good.data(), good.size());
  ASSERT_TRUE(load_file(*env, Encoding::tensorflowlite, model).ok());
  EXPECT_EQ(spawned(*env), 2u);

  // Settle the file (a stat identity younger than 2 s is not relied on), so that the next two
  // loads use and record its stat identity.
  const timespec past[2] = {{1'600'000'000, 0}, {1'600'000'000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, model.c_str(), past, 0), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  ASSERT_TRUE(load_file(*env, Encoding::tensorflowlite, model).ok());
  ASSERT_TRUE(load_file(*env, Encoding::tensorflowlite, model).ok());
  EXPECT_EQ(spawned(*env), 2u);
  struct stat before {};
  ASSERT_EQ(stat(model.c_str(), &before), 0);

  // The crasher, padded to the good model's size (it still crashes LiteRT), written over it in
  // place (same inode), and the old mtime put back.
  crasher.resize(good.size(), 0);
  {
    const int fd = open(model.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, crasher.data(), crasher.size(), 0), static_cast<ssize_t>(crasher.size()));
    close(fd);
  }
  ASSERT_EQ(utimensat(AT_FDCWD, model.c_str(), past, 0), 0);
  struct stat after {};
  ASSERT_EQ(stat(model.c_str(), &after), 0);
  ASSERT_EQ(after.st_ino, before.st_ino);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  // Settled again: only the ctime (moved by the write and by utimensat) tells the files apart.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));

  loaded = load_file(*env, Encoding::tensorflowlite, model);
  ASSERT_FALSE(loaded.ok()) << "the changed file was trusted";
  EXPECT_NE(loaded.error().detail.find("crashed the framework in an isolated check (SIGSEGV)"), std::string::npos)
      << loaded.error().detail;
  EXPECT_EQ(spawned(*env), 3u);
}

// The host hashes its mapping of a file, the child reads the path: when the file is replaced
// in between, the child checks other bytes than the key names, and its verdict must not be
// remembered for them. Here the child sees a crasher while the host holds the good model; had
// that crash been remembered under the good model's key, the good model would now be refused.
TEST(VerdictCache, AFileReplacedAfterItWasMappedIsNotRemembered) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  ScratchDir scratch;
  auto env = isolated_env((scratch / "verdicts").string());
  const fs::path model = scratch / "model.tflite";
  const auto good = read_bytes(fixture("tflite/digits_f32.tflite"));
  auto crasher = read_bytes(fixture("malformed/tflite_crash_segv.tflite"));
  crasher.resize(good.size(), 0);  // the same size, so only the bytes differ
  write_bytes(model, good.data(), good.size());
  const fs::path paths[] = {model};
  auto mapped = wasinn::MappedBuilders::open(paths);
  ASSERT_TRUE(mapped.ok());
  write_bytes(scratch / "swap.tflite", crasher.data(), crasher.size());
  fs::rename(scratch / "swap.tflite", model);

  auto swapped = env->env->load_graph(Encoding::tensorflowlite, wasinn::Target::cpu, mapped->builders(), paths, "");
  ASSERT_FALSE(swapped.ok()) << "the child checked the file the path names now";
  EXPECT_EQ(spawned(*env), 1u);
  EXPECT_TRUE(entries(scratch / "verdicts").empty()) << "a verdict about other bytes was written";

  write_bytes(scratch / "swap.tflite", good.data(), good.size());
  fs::rename(scratch / "swap.tflite", model);
  const Status loaded = load_file(*env, Encoding::tensorflowlite, model);
  ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
  EXPECT_EQ(spawned(*env), 2u);
}

// Truncated, empty, not JSON, another format, or another model's entry under this model's
// name: each is ignored (the model is checked in a child) and rewritten with the right verdict.
TEST(VerdictCache, CorruptOrForeignEntriesAreIgnoredAndRebuilt) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  ScratchDir scratch;
  const fs::path dir = scratch / "verdicts";
  const auto good = read_bytes(fixture("tflite/digits_f32.tflite"));
  const fs::path crasher = fixture("malformed/tflite_crash_segv.tflite");  // by path: LiteRT verifies bytes
  fs::path good_entry, crash_entry;
  {
    auto env = isolated_env(dir.string());
    ASSERT_TRUE(load_bytes(*env, Encoding::tensorflowlite, good).ok());
    ASSERT_EQ(entries(dir).size(), 1u);
    good_entry = entries(dir)[0];
    ASSERT_FALSE(load_file(*env, Encoding::tensorflowlite, crasher).ok());
    ASSERT_EQ(entries(dir).size(), 2u);
    for (const auto& e : entries(dir)) {
      if (e != good_entry) crash_entry = e;
    }
  }
  const auto original = read_bytes(good_entry);
  const std::vector<std::pair<std::string, std::string>> corruptions = {
      {"truncated", std::string(original.begin(), original.begin() + original.size() / 2)},
      {"empty", ""},
      {"not JSON", "\x01\x02garbage"},
      {"another format", R"({"format":"something else","key":")" + good_entry.stem().string() + R"(","ok":true})"},
      {"a failure without its error",
       R"({"format":"wasinn load-check verdict 1","key":")" + good_entry.stem().string() + R"(","ok":false})"},
  };
  for (const auto& [what, text] : corruptions) {
    write_text(good_entry, text);
    auto env = isolated_env(dir.string());
    const Status loaded = load_bytes(*env, Encoding::tensorflowlite, good);
    ASSERT_TRUE(loaded.ok()) << what << ": " << loaded.error().detail;
    EXPECT_EQ(spawned(*env), 1u) << what << ": the entry was not ignored";
    expect_valid_entry(good_entry, true);
  }

  // The good model's entry copied over the crasher's: written for another key, so not trusted.
  fs::copy_file(good_entry, crash_entry, fs::copy_options::overwrite_existing);
  auto env = isolated_env(dir.string());
  const Status loaded = load_file(*env, Encoding::tensorflowlite, crasher);
  ASSERT_FALSE(loaded.ok()) << "a foreign entry was trusted";
  EXPECT_NE(loaded.error().detail.find("(SIGSEGV)"), std::string::npos) << loaded.error().detail;
  EXPECT_EQ(spawned(*env), 1u);
  expect_valid_entry(crash_entry, false);
}

// A directory another user could write (or its parent), a symlink, or another user's
// directory: verdicts stay in memory, nothing is written there.
TEST(VerdictCache, ADirectoryOthersCanWriteIsNotUsed) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  const auto good = read_bytes(fixture("tflite/digits_f32.tflite"));
  ScratchDir scratch;
  struct Case {
    std::string name;
    fs::path dir;      // given as the cache directory
    fs::path watched;  // where nothing may appear
  };
  std::vector<Case> cases;
  auto make_dir = [](const fs::path& p, mode_t mode) {
    fs::create_directories(p);
    ASSERT_EQ(chmod(p.c_str(), mode), 0);  // chmod: mkdir's mode is cut by the umask
  };
  make_dir(scratch / "group", 0770);
  cases.push_back({"group-writable", scratch / "group", scratch / "group"});
  make_dir(scratch / "world", 0707);
  cases.push_back({"world-writable", scratch / "world", scratch / "world"});
  make_dir(scratch / "open_parent", 0777);
  make_dir(scratch / "open_parent/verdicts", 0700);
  cases.push_back({"parent world-writable", scratch / "open_parent/verdicts", scratch / "open_parent/verdicts"});
  make_dir(scratch / "target", 0700);
  fs::create_directory_symlink(scratch / "target", scratch / "link");
  cases.push_back({"symbolic link", scratch / "link", scratch / "target"});
  if (geteuid() == 0) {  // only root can give a directory to another user
    make_dir(scratch / "nobody", 0700);
    ASSERT_EQ(chown((scratch / "nobody").c_str(), 65534, 65534), 0);
    cases.push_back({"owned by another user", scratch / "nobody", scratch / "nobody"});
  }
  for (const auto& c : cases) {
    auto env = isolated_env(c.dir.string());
    ASSERT_TRUE(load_bytes(*env, Encoding::tensorflowlite, good).ok()) << c.name;
    ASSERT_TRUE(load_bytes(*env, Encoding::tensorflowlite, good).ok()) << c.name;
    EXPECT_EQ(spawned(*env), 1u) << c.name << ": remembered in memory all the same";
    EXPECT_TRUE(env->isolation->verdict_cache_dir().empty()) << c.name;
    EXPECT_TRUE(entries(c.watched, "").empty()) << c.name << ": something was written";
  }
}

// The default: $XDG_CACHE_HOME/wasinn/load-checks, created 0700, entries 0600.
TEST(VerdictCache, TheDefaultDirectoryIsPrivateUnderXdgCacheHome) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  ASSERT_TRUE(xdg && fs::path(xdg).string().find("wasinn-cache-home-") != std::string::npos)
      << "temp_cache_home.cpp did not point $XDG_CACHE_HOME at a scratch directory";
  const fs::path dir = fs::path(xdg) / "wasinn/load-checks";
  EXPECT_EQ(wasinn::default_verdict_cache_dir(), dir);
  auto env = isolated_env("");
  ASSERT_TRUE(load_bytes(*env, Encoding::tensorflowlite, read_bytes(fixture("tflite/digits_f32.tflite"))).ok());
  EXPECT_EQ(env->isolation->verdict_cache_dir(), dir);
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  const auto files = entries(dir);
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(stat(files[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// "memory": remembered in this environment only; "off": every load checked. Neither writes.
TEST(VerdictCache, MemoryAndOffWriteNothing) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  const auto good = read_bytes(fixture("tflite/digits_f32.tflite"));
  const fs::path default_dir = wasinn::default_verdict_cache_dir();
  const size_t default_dir_files = entries(default_dir, "").size();  // other tests of this process may use it
  for (const auto& [setting, children] : std::vector<std::pair<std::string, uint64_t>>{{"memory", 1}, {"off", 3}}) {
    for (int process = 0; process < 2; ++process) {
      auto env = isolated_env(setting);
      for (int i = 0; i < 3; ++i) ASSERT_TRUE(load_bytes(*env, Encoding::tensorflowlite, good).ok()) << setting;
      EXPECT_EQ(spawned(*env), children) << setting;
      EXPECT_TRUE(env->isolation->verdict_cache_dir().empty()) << setting;
    }
  }
  EXPECT_EQ(entries(default_dir, "").size(), default_dir_files) << "nothing may be written with memory or off";
}

// Everything that decides a check is in the key: the same bytes under another backend config
// are checked again.
TEST(VerdictCache, AnotherBackendConfigIsCheckedAgain) {
  if (!backend_built("pytorch")) GTEST_SKIP() << "pytorch plugin not built";
  ScratchDir scratch;
  const std::string dir = (scratch / "verdicts").string();
  const auto bytes = read_bytes(fixture("digits/model.pt"));
  auto plain = isolated_env(dir);
  ASSERT_TRUE(load_bytes(*plain, Encoding::pytorch, bytes).ok());
  auto configured = isolated_env(dir, {{"pytorch", R"({"num_threads":1})"}});
  ASSERT_TRUE(load_bytes(*configured, Encoding::pytorch, bytes).ok());
  EXPECT_EQ(spawned(*configured), 1u);
  EXPECT_EQ(entries(dir).size(), 2u);
}

// Several checkers (as several wasinn processes would) on one directory at once: every load
// succeeds, one valid entry results and no temp file is left.
TEST(VerdictCache, ConcurrentCheckersShareOneDirectory) {
  if (!backend_built("tensorflowlite")) GTEST_SKIP() << "tensorflowlite plugin not built";
  ScratchDir scratch;
  const std::string dir = (scratch / "verdicts").string();
  const auto good = read_bytes(fixture("tflite/digits_f32.tflite"));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto env = isolated_env(dir);
      for (int i = 0; i < 3; ++i) failures[t] += !load_bytes(*env, Encoding::tensorflowlite, good).ok();
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  const auto files = entries(dir);
  ASSERT_EQ(files.size(), 1u);
  expect_valid_entry(files[0], true);
  EXPECT_TRUE(entries(dir, "").size() == 1u) << "a temp file was left behind";
}

// The key's hash: OpenSSL's SHA-256 (the empty message's known digest), fields that cannot run
// into each other, and large bytes hashed in pieces that still see every byte.
TEST(VerdictKeyHash, IsSha256WithSeparatedFieldsOverEveryByte) {
  EXPECT_EQ(wasinn::Sha256().hex_digest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  auto digest = [](std::initializer_list<std::string_view> fields) {
    wasinn::Sha256 h;
    for (auto f : fields) h.field(f);
    return h.hex_digest();
  };
  EXPECT_NE(digest({"ab", "c"}), digest({"a", "bc"}));
  EXPECT_EQ(digest({"ab", "c"}), digest({"ab", "c"}));

  std::vector<uint8_t> big(9 << 20, 7);  // over the size hashed in pieces
  auto model_digest = [](const std::vector<uint8_t>& bytes) {
    wasinn::Sha256 h;
    h.model_bytes(bytes);
    return h.hex_digest();
  };
  const std::string whole = model_digest(big);
  EXPECT_EQ(model_digest(big), whole) << "the digest depends on nothing but the bytes";
  for (size_t at : {size_t{0}, big.size() / 2, big.size() - 1}) {
    big[at] ^= 1;
    EXPECT_NE(model_digest(big), whole) << "byte " << at << " is not covered";
    big[at] ^= 1;
  }
}

// The command line: a second `wasinn run` answers the guest's load from the first one's
// verdict (the debug log says so, and no child reports a load); --isolated-load-cache off
// checks again.
TEST(VerdictCacheCli, ASecondRunUsesTheFirstRunsVerdict) {
  if (!backend_built("pytorch")) GTEST_SKIP() << "pytorch plugin not built";
  ScratchDir scratch;
  const fs::path model = fixture("digits/model.pt");
  auto run = [&](const std::string& cache) {
    return run_wasinn({"run", "--log-level", "debug", "--backend-dir", backend_dir().string(), "--isolated-load-cache",
                       cache, "--dir", model.parent_path().string() + "::/m", guest("run_model"), "--model",
                       "/m/model.pt", "--encoding", "3", "--input", "0:f32:450x64:/m/test_x.f32"});
  };
  const std::string dir = (scratch / "verdicts").string();
  const auto first = run(dir);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  EXPECT_NE(first.err.find("isolated load check (pytorch): loaded in"), std::string::npos) << first.describe();
  const auto second = run(dir);
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_NE(second.err.find("isolated load check (pytorch): remembered: loaded"), std::string::npos)
      << second.describe();
  EXPECT_EQ(second.err.find("loaded in"), std::string::npos) << second.describe();
  const auto off = run("off");
  ASSERT_EQ(off.exit_code, 0) << off.describe();
  EXPECT_NE(off.err.find("isolated load check (pytorch): loaded in"), std::string::npos) << off.describe();
}

// F18's archive (its TorchScript __setstate__ never ends) loaded for a request whose deadline is
// 1.5 s away: the check is killed there, well before --isolated-load-timeout (5 min), the load is
// a timeout saying so, and the verdict is not remembered (the next load checks again).
TEST(CheckDeadline, AnEndlessLoadEndsAtTheRequestsDeadlineAndIsNotRemembered) {
  if (!backend_built("pytorch")) GTEST_SKIP() << "pytorch plugin not built";
  auto env = isolated_env("memory");
  const auto bytes = read_bytes(fixture("malformed/torchscript_setstate_loop.pt"));
  const std::span<const uint8_t> builders[] = {bytes};
  for (int i = 0; i < 2; ++i) {
    const auto started = std::chrono::steady_clock::now();
    auto graph = env->env->load_graph(Encoding::pytorch, wasinn::Target::cpu, builders, {}, "", {},
                                      started + std::chrono::milliseconds(1500));
    ASSERT_FALSE(graph);
    EXPECT_EQ(graph.error().code, wasinn::Errc::timeout) << graph.error().detail;
    EXPECT_NE(graph.error().detail.find("ran past the request's deadline and was stopped"), std::string::npos)
        << graph.error().detail;
    // Generous: the kill is at 1.5 s; a loaded machine may take a while to reap the child.
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  }
  EXPECT_EQ(spawned(*env), 2u);
}

}  // namespace
}  // namespace wasinn_it
