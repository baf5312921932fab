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

}  // namespace
}  // namespace wasinn::unit
