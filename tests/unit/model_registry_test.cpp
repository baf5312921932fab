// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ModelRegistry: named models are loaded once per (name, config), even when several threads
// ask at the same moment, and the graph is shared; files reach the backend with their paths.
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "core/model_registry.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

// Writes a fake model file under the test's temp dir and returns its path.
std::filesystem::path model_file(const std::string& stem, const std::string& text) {
  // One directory per process: ctest runs tests in parallel processes that share file names.
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("wasinn_unit_models_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / (stem + ".fake");
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

NamedModel named(const std::string& name, std::vector<std::filesystem::path> paths,
                 Encoding encoding = Encoding::onnx) {
  return NamedModel{name, encoding, Target::cpu, std::move(paths), {}};
}

class Registry : public ::testing::Test {
 protected:
  void TearDown() override {
    env_.reset();
    expect_no_live_plugin_objects();
  }
  std::shared_ptr<NnEnvironment> env_ = make_env();
};

TEST_F(Registry, AddListContains) {
  ModelRegistry& r = env_->models();
  ASSERT_TRUE(r.add(named("add1", {model_file("add1", "fake:add1")})).ok());
  EXPECT_TRUE(r.contains("add1"));
  EXPECT_FALSE(r.contains("add"));
  ASSERT_EQ(r.list().size(), 1u);
  EXPECT_EQ(r.list()[0].name, "add1");
  EXPECT_TRUE(
      has_errno(r.add(named("add1", {model_file("add1", "fake:add1")})), 1, "model name 'add1' is registered twice"));
}

TEST_F(Registry, MissingFilesFailAtUseNotAtRegistration) {
  ModelRegistry& r = env_->models();
  ASSERT_TRUE(r.add(named("ghost", {"/nonexistent/ghost.onnx"})).ok()) << "files are checked at first use";
  ASSERT_TRUE(r.add(named("ghost_llm", {"/nonexistent/ghost.gguf"}, Encoding::ggml)).ok());
  EXPECT_TRUE(
      has_errno(env_->load_named("ghost", ""), 8, "model 'ghost': file /nonexistent/ghost.onnx does not exist"));
  // WasmEdge's GGML guests test for model_not_found (103) here.
  EXPECT_TRUE(has_errno(env_->load_named("ghost_llm", ""), 103, "file /nonexistent/ghost.gguf does not exist"));
}

TEST_F(Registry, UnknownName) {
  EXPECT_TRUE(has_errno(env_->load_named("nope", ""), 8, "no model named 'nope' is registered"));
}

TEST_F(Registry, FileGoneAfterRegistration) {
  const auto path = model_file("vanishing", "fake:add1");
  ASSERT_TRUE(env_->models().add(named("vanishing", {path})).ok());
  std::filesystem::remove(path);
  EXPECT_TRUE(has_errno(env_->load_named("vanishing", ""), 8, "file " + path.string() + " does not exist"));
}

TEST_F(Registry, DirectoryIsPassedByPathAlone) {
  // A TensorFlow SavedModel is a directory: no bytes, only its path.
  const auto model = model_file("saved_model_desc", "fake:describe_load");
  const auto dir = model.parent_path();
  ASSERT_TRUE(env_->models().add(named("saved", {model, dir})).ok());
  auto g = env_->load_named("saved", "");
  ASSERT_TRUE(g.ok()) << g.error().detail;
  auto ctx = *(*g)->create_context();
  auto lease = ctx->acquire();
  ASSERT_TRUE(ctx->compute().ok());
  auto out = ctx->get_output(TensorId{0, std::nullopt});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out->data.data()), out->data.size()),
            "builders=2 target=0 encoding=onnx config=- paths=" + model.string() + "," + dir.string() + " b1=");
}

TEST_F(Registry, FourThreadsAtOnceLoadOnce) {
  ASSERT_TRUE(env_->models().add(named("shared", {model_file("shared", "fake:add1")})).ok());
  std::atomic<int> loader_calls{0};
  const GraphLoader slow_loader = [&](Encoding e, Target t, std::span<const std::span<const uint8_t>> b,
                                      std::span<const std::filesystem::path> p, std::string_view c) {
    ++loader_calls;
    // Long enough that the other threads arrive while the first load is still running.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return env_->load_graph(e, t, b, p, c);
  };
  const int64_t loads_before = FakePlugin::main().stats().graph_loads;
  std::atomic<int> ready{0};
  std::vector<std::shared_ptr<Graph>> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < 4) std::this_thread::yield();
      auto g = env_->models().get("shared", "", slow_loader);
      if (g.ok()) got[i] = *g;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(loader_calls.load(), 1);
  EXPECT_EQ(FakePlugin::main().stats().graph_loads - loads_before, 1);
  EXPECT_EQ(FakePlugin::main().stats().live_graphs, 1);
  for (const auto& g : got) {
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g.get(), got[0].get());
  }
}

TEST_F(Registry, OneGraphPerConfig) {
  ASSERT_TRUE(env_->models().add(named("cfg", {model_file("cfg", "fake:describe_load")})).ok());
  const int64_t loads_before = FakePlugin::main().stats().graph_loads;
  auto a = env_->load_named("cfg", "");
  auto b = env_->load_named("cfg", R"({"n_gpu_layers": 0})");
  auto c = env_->load_named("cfg", R"({"n_gpu_layers": 0})");
  auto d = env_->load_named("cfg", "");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
  EXPECT_NE(a->get(), b->get());
  EXPECT_EQ(b->get(), c->get());
  EXPECT_EQ(a->get(), d->get());
  EXPECT_EQ(FakePlugin::main().stats().graph_loads - loads_before, 2);
}

// A guest choosing ever new configs must not grow the host: a config's graph dies with its
// last user, while the default config's graph stays loaded for the next guest.
TEST_F(Registry, GuestConfigGraphsDieWithTheirLastUser) {
  ASSERT_TRUE(env_->models().add(named("cfgs", {model_file("cfgs", "fake:describe_load")})).ok());
  const int64_t live_before = FakePlugin::main().stats().live_graphs;
  auto keep = env_->load_named("cfgs", "");
  ASSERT_TRUE(keep.ok());
  for (int i = 0; i < 100; ++i) {
    auto g = env_->load_named("cfgs", fmt::format(R"({{"seed": {}}})", i));
    ASSERT_TRUE(g.ok()) << g.error().detail;
  }
  EXPECT_EQ(FakePlugin::main().stats().live_graphs - live_before, 1) << "only the default graph is kept";
  const int64_t loads_before = FakePlugin::main().stats().graph_loads;
  keep->reset();
  auto again = env_->load_named("cfgs", "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(FakePlugin::main().stats().graph_loads, loads_before) << "the default graph was not reloaded";
}

TEST_F(Registry, FailedLoadIsNotCached) {
  ASSERT_TRUE(env_->models().add(named("flaky", {model_file("flaky", "fake:add1")})).ok());
  int calls = 0;
  const GraphLoader flaky = [&](Encoding e, Target t, std::span<const std::span<const uint8_t>> b,
                                std::span<const std::filesystem::path> p,
                                std::string_view c) -> Result<std::shared_ptr<Graph>> {
    if (++calls == 1) return make_error(Errc::runtime_error, "first try fails");
    return env_->load_graph(e, t, b, p, c);
  };
  EXPECT_TRUE(has_errno(env_->models().get("flaky", "", flaky), 5, "first try fails"));
  EXPECT_TRUE(env_->models().get("flaky", "", flaky).ok());
  EXPECT_EQ(calls, 2);
}

TEST_F(Registry, BackendSeesFileBytesPathsAndTarget) {
  const auto xml = model_file("ir", "fake:describe_load");
  const auto bin = model_file("ir_weights", "WEIGHTS");
  ASSERT_TRUE(env_->models().add(NamedModel{"ir", Encoding::onnx, Target::gpu, {xml, bin}, {}}).ok());
  auto g = env_->load_named("ir", "{}");
  ASSERT_TRUE(g.ok()) << g.error().detail;
  auto ctx = (*g)->create_context();
  ASSERT_TRUE(ctx.ok());
  auto lease = (*ctx)->acquire();
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE((*ctx)->compute().ok());
  auto out = (*ctx)->get_output(TensorId{0, std::nullopt});
  ASSERT_TRUE(out.ok());
  const std::string text(reinterpret_cast<const char*>(out->data.data()), out->data.size());
  EXPECT_EQ(text,
            "builders=2 target=1 encoding=onnx config={} paths=" + xml.string() + "," + bin.string() + " b1=WEIGHTS");
}

// --- models loaded on demand (serve --models-dir): room, idleness and unloading -----------------

NamedModel on_demand(const std::string& name) {
  NamedModel m = named(name, {model_file(name, "fake:add1")});
  m.on_demand = true;
  return m;
}

ModelState state_of(ModelRegistry& r, const std::string& name) {
  for (const auto& s : r.statuses()) {
    if (s.name == name) return s.state;
  }
  ADD_FAILURE() << "no status for " << name;
  return ModelState::unloaded;
}

TEST_F(Registry, OnDemandPastMaxUnloadsTheLeastRecentlyUsedIdleModel) {
  ModelRegistry& r = env_->models();
  for (const char* name : {"lru_a", "lru_b", "lru_c"}) ASSERT_TRUE(r.add(on_demand(name)).ok());
  r.set_residency({2, std::chrono::milliseconds(0), 0});
  EXPECT_EQ(state_of(r, "lru_a"), ModelState::unloaded) << "nothing loads before it is asked for";
  ASSERT_TRUE(env_->load_named("lru_a", "").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_TRUE(env_->load_named("lru_b", "").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_TRUE(env_->load_named("lru_a", "").ok());  // a used again: b is now the least recent
  const int64_t live_before = FakePlugin::main().stats().live_graphs;
  ASSERT_TRUE(env_->load_named("lru_c", "").ok());
  EXPECT_EQ(state_of(r, "lru_a"), ModelState::loaded);
  EXPECT_EQ(state_of(r, "lru_b"), ModelState::unloaded);
  EXPECT_EQ(state_of(r, "lru_c"), ModelState::loaded);
  EXPECT_EQ(FakePlugin::main().stats().live_graphs, live_before) << "b's graph was freed, c's made";
}

TEST_F(Registry, OnDemandPastMaxWithEveryModelInUseIsRefused) {
  ModelRegistry& r = env_->models();
  ASSERT_TRUE(r.add(on_demand("busy_a")).ok());
  ASSERT_TRUE(r.add(on_demand("busy_b")).ok());
  r.set_residency({1, std::chrono::milliseconds(0), 0});
  auto held = env_->load_named("busy_a", "");  // a guest's handle
  ASSERT_TRUE(held.ok());
  auto refused = env_->load_named("busy_b", "");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::too_large);
  EXPECT_NE(refused.error().detail.find("all are in use"), std::string::npos) << refused.error().detail;
  EXPECT_EQ(state_of(r, "busy_b"), ModelState::unloaded);
  // Unloading a model in use is refused too; once it is let go, both work.
  Status unload = r.unload("busy_a", "request");
  ASSERT_FALSE(unload.ok());
  EXPECT_EQ(unload.error().code, Errc::busy);
  held = make_error(Errc::unknown, "dropped");
  EXPECT_TRUE(env_->load_named("busy_b", "").ok());
  EXPECT_EQ(state_of(r, "busy_a"), ModelState::unloaded);
}

TEST_F(Registry, OnDemandUnloadOnRequest) {
  ModelRegistry& r = env_->models();
  ASSERT_TRUE(r.add(on_demand("gone")).ok());
  ASSERT_TRUE(r.add(named("kept", {model_file("kept", "fake:add1")})).ok());
  EXPECT_TRUE(r.unload("gone", "request").ok()) << "an unloaded model stays so";
  ASSERT_TRUE(env_->load_named("gone", "").ok());
  EXPECT_EQ(state_of(r, "gone"), ModelState::loaded);
  EXPECT_TRUE(r.unload("gone", "request").ok());
  EXPECT_EQ(state_of(r, "gone"), ModelState::unloaded);
  EXPECT_EQ(r.unload("nope", "request").error().code, Errc::not_found);
  EXPECT_EQ(r.unload("kept", "request").error().code, Errc::invalid_argument);
}

TEST_F(Registry, OnDemandLoadPastTheMemoryLimitIsRefusedWithTheNumbers) {
  ModelRegistry& r = env_->models();
  ASSERT_TRUE(r.add(on_demand("big")).ok());
  r.set_residency({0, std::chrono::milliseconds(0), 1000});
  const int64_t loads_before = FakePlugin::main().stats().graph_loads;
  auto refused = env_->load_named("big", "");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::too_large);
  EXPECT_NE(refused.error().detail.find("needs about 32 MiB"), std::string::npos) << refused.error().detail;
  EXPECT_NE(refused.error().detail.find("limit of 1000 bytes"), std::string::npos) << refused.error().detail;
  EXPECT_EQ(FakePlugin::main().stats().graph_loads, loads_before) << "not attempted";
}

TEST_F(Registry, OnDemandIdleModelIsUnloadedAfterTheTimeout) {
  ModelRegistry& r = env_->models();
  ASSERT_TRUE(r.add(on_demand("sleepy")).ok());
  r.set_residency({0, std::chrono::milliseconds(50), 0});
  {
    auto held = env_->load_named("sleepy", "");
    ASSERT_TRUE(held.ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(state_of(r, "sleepy"), ModelState::loaded) << "a model in use is not idle";
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (state_of(r, "sleepy") != ModelState::unloaded && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(state_of(r, "sleepy"), ModelState::unloaded);
}

}  // namespace
}  // namespace wasinn::unit
