// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graph and ExecutionContext over the fake plugin: declared io, leases, cancel, lifetimes, and
// the host's own checks on what a plugin hands back.
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "core/graph.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class GraphTest : public ::testing::Test {
 protected:
  void TearDown() override {
    env_.reset();
    expect_no_live_plugin_objects();
  }
  std::shared_ptr<Graph> load(std::string_view model, Encoding encoding = Encoding::onnx) {
    const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(model.data()), model.size());
    auto g = env_->load_graph(encoding, Target::cpu, std::span(&b, 1), {}, {});
    EXPECT_TRUE(g.ok()) << g.error().detail;
    return g.ok() ? *g : nullptr;
  }
  std::shared_ptr<NnEnvironment> env_ = make_env();
};

TEST_F(GraphTest, DeclaredIo) {
  auto g = load("fake:add1");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->inputs()[0].name, "x");
  EXPECT_EQ(g->inputs()[0].type, TensorType::f32);
  EXPECT_EQ(g->inputs()[0].dims, (std::vector<int64_t>{-1, 4}));
  ASSERT_EQ(g->outputs().size(), 1u);
  EXPECT_EQ(g->outputs()[0].name, "y");
  EXPECT_EQ(g->encoding(), Encoding::onnx);
  EXPECT_EQ(g->plugin().name(), "fake");
}

TEST_F(GraphTest, UnknownTypeAndRankStayUnknown) {
  auto g = load("fake:echo");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->inputs()[0].name, "any");
  EXPECT_EQ(g->inputs()[0].type, std::nullopt) << "WASINN_TYPE_UNKNOWN";
  EXPECT_EQ(g->inputs()[0].dims, std::nullopt) << "rank -1";
  EXPECT_TRUE(load("fake:describe_load")->inputs().empty());
}

TEST_F(GraphTest, LoadFailuresCarryThePluginDetail) {
  const std::string_view text = "fake:fail_load";
  const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  EXPECT_TRUE(has_errno(env_->load_graph(Encoding::onnx, Target::cpu, std::span(&b, 1), {}, {}), 5,
                        "fake: load failed as asked"));
  const std::string_view junk = "not a model";
  const std::span<const uint8_t> j(reinterpret_cast<const uint8_t*>(junk.data()), junk.size());
  EXPECT_TRUE(
      has_errno(env_->load_graph(Encoding::onnx, Target::cpu, std::span(&j, 1), {}, {}), 1, "fake: not a fake model"));
  EXPECT_EQ(FakePlugin::main().stats().live_graphs, 0);
}

TEST_F(GraphTest, ContextKeepsItsGraphAlive) {
  auto g = load("fake:add1");
  auto ctx = g->create_context();
  ASSERT_TRUE(ctx.ok());
  g.reset();
  EXPECT_EQ(FakePlugin::main().stats().live_graphs, 1) << "the context still needs its graph";
  EXPECT_EQ((*ctx)->graph().plugin().name(), "fake");
  ctx = Error{Errc::unknown, ""};
  EXPECT_EQ(FakePlugin::main().stats().live_contexts, 0);
  EXPECT_EQ(FakePlugin::main().stats().live_graphs, 0) << "released right after its last context";
}

TEST_F(GraphTest, LeaseIsExclusiveAndReleasedOnScopeExit) {
  auto ctx = *load("fake:add1")->create_context();
  {
    auto first = ctx->acquire();
    ASSERT_TRUE(first.ok());
    EXPECT_TRUE(has_errno(ctx->acquire(), 4, "execution context is in use by another thread"));
    auto moved = std::move(*first);  // a moved-from lease must not release twice
  }
  EXPECT_TRUE(ctx->acquire().ok());
}

TEST_F(GraphTest, AWaitingLeaseIsGrantedWhenTheHolderLetsGo) {
  auto ctx = *load("fake:add1")->create_context();
  std::atomic<bool> granted{false};
  std::optional<ExecutionContext::Lease> held(std::move(*ctx->acquire()));
  std::thread waiter([&] {
    auto lease = ctx->acquire(/*wait=*/true);
    granted = lease.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(granted) << "the waiter must wait while the context is held";
  held.reset();
  waiter.join();
  EXPECT_TRUE(granted);
  EXPECT_TRUE(ctx->acquire().ok()) << "the waiter's lease was released in its turn";
}

TEST_F(GraphTest, MalformedPluginOutputIsRefused) {
  auto ctx = *load("fake:bad_output")->create_context();
  auto lease = ctx->acquire();
  const uint32_t dims[] = {1, 4};
  const float x[] = {1, 2, 3, 4};
  ASSERT_TRUE(
      ctx->set_input({0, std::nullopt}, {TensorType::f32, dims, {reinterpret_cast<const uint8_t*>(x), 16}}, UINT64_MAX)
          .ok());
  ASSERT_TRUE(ctx->compute().ok());
  EXPECT_TRUE(
      has_errno(ctx->get_output({0, std::nullopt}), 5, "get_output: backend returned f32 [1, 4] with 12 bytes"));
}

TEST_F(GraphTest, CancelStopsABlockedCompute) {
  auto ctx = *load("fake:block")->create_context();
  Status result;
  std::thread worker([&] {
    auto lease = ctx->acquire();
    result = ctx->compute();
  });
  ASSERT_TRUE(FakePlugin::main().wait_blocked(1));
  ctx->cancel();  // no lease needed: cancel is for other threads
  worker.join();
  EXPECT_TRUE(has_errno(result, 5, "fake: compute cancelled")) << "WASINN_TIMEOUT becomes witx 5";
  EXPECT_EQ(result.error().code, Errc::timeout);
}

TEST_F(GraphTest, TensorSizeChecksBeforeThePlugin) {
  auto ctx = *load("fake:add1")->create_context();
  auto lease = ctx->acquire();
  const uint32_t dims[] = {1, 4};
  const float x[] = {1, 2, 3, 4};
  const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(x), 16);
  EXPECT_TRUE(has_errno(ctx->set_input({0, std::nullopt}, {TensorType::f32, dims, data.first(12)}, UINT64_MAX), 1,
                        "input 0: f32 [1, 4] needs 16 bytes of data, got 12"));
  EXPECT_TRUE(has_errno(ctx->set_input({0, std::nullopt}, {TensorType::f32, dims, data}, 15), 7,
                        "input 0: 16 bytes exceed the tensor limit of 15"));
  EXPECT_TRUE(ctx->set_input({0, std::nullopt}, {TensorType::f32, dims, data}, 16).ok());
}

}  // namespace
}  // namespace wasinn::unit
