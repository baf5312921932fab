// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Handles and lifetimes: init_execution_context, unload, finalize_execution_context, and every
// context function on handles that were never created or were already released.
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiHandles : public AbiTest {
 protected:
  // Every function that takes a context handle, with valid-looking other arguments.
  std::vector<std::pair<const char*, Status>> all_context_calls(uint32_t ctx) {
    const uint32_t tensor = guest_.f32_tensor({1, 4}, {1, 2, 3, 4});
    const uint32_t buf = guest_.buffer(64), written = guest_.out_u32();
    std::vector<std::pair<const char*, Status>> r;
    r.emplace_back("set_input", nn::set_input(call(), ctx, 0, tensor));
    r.emplace_back("compute", nn::compute(call(), ctx));
    r.emplace_back("get_output", nn::get_output(call(), ctx, 0, buf, 64, written));
    r.emplace_back("compute_single", nn::compute_single(call(), ctx));
    r.emplace_back("get_output_single", nn::get_output_single(call(), ctx, 0, buf, 64, written));
    r.emplace_back("fini_single", nn::fini_single(call(), ctx));
    r.emplace_back("finalize_execution_context", nn::finalize_execution_context(call(), ctx));
    EXPECT_EQ(guest_.u32_at(written), kSentinel) << "nothing written for a bad handle";
    return r;
  }
};

TEST_F(AbiHandles, ContextHandlesCountFromZeroPerTable) {
  const uint32_t g0 = load_model("fake:add1");
  const uint32_t g1 = load_model("fake:add1");
  EXPECT_EQ(new_context(g1), 0u) << "contexts have their own numbering";
  EXPECT_EQ(new_context(g0), 1u);
  EXPECT_EQ(stats().live_contexts, 2);
}

TEST_F(AbiHandles, InitOutPointerOutOfBoundsCreatesNoContext) {
  const uint32_t g = load_model("fake:add1");
  for (uint32_t out : {kWildPtr, FakeGuest::kSize - 1}) {
    EXPECT_TRUE(
        has_errno(nn::init_execution_context(call(), g, out), 1, "init_execution_context: context out-pointer"));
  }
  EXPECT_EQ(stats().live_contexts, 0);
  EXPECT_EQ(session_->live_contexts(), 0u);
  EXPECT_EQ(new_context(g), 0u) << "no handle was used up by the failed calls";
}

TEST_F(AbiHandles, InitOnUnknownGraph) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::init_execution_context(call(), 0, out), 1, "graph handle 0 was never created"));
  EXPECT_TRUE(
      has_errno(nn::init_execution_context(call(), UINT32_MAX, out), 1, "graph handle 4294967295 was never created"));
  const uint32_t g = load_model("fake:add1");
  ASSERT_TRUE(has_errno(nn::unload(call(), g), 0));
  EXPECT_TRUE(has_errno(nn::init_execution_context(call(), g, out), 1, "graph handle 0 was already released"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiHandles, InitBackendFailure) {
  const uint32_t g = load_model("fake:fail_context");
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::init_execution_context(call(), g, out), 5, "fake: context_create failed as asked"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiHandles, ContextLimit) {
  Limits limits;
  limits.max_contexts = 2;
  start(limits);
  const uint32_t g = load_model("fake:add1");
  new_context(g);
  new_context(g);
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::init_execution_context(call(), g, out), 7,
                        "too many live execution contexts: the limit is 2 (see --max-contexts)"));
  EXPECT_EQ(stats().live_contexts, 2) << "the refused context was released at once";
  ASSERT_TRUE(has_errno(nn::finalize_execution_context(call(), 0), 0));
  EXPECT_EQ(new_context(g), 2u);
}

TEST_F(AbiHandles, UnloadFreesTheGraphAtOnce) {
  const uint32_t g = load_model("fake:add1");
  EXPECT_EQ(stats().live_graphs, 1);
  ASSERT_TRUE(has_errno(nn::unload(call(), g), 0));
  EXPECT_EQ(stats().live_graphs, 0);
  EXPECT_EQ(load_model("fake:add1"), 1u) << "handles are never reused";
}

TEST_F(AbiHandles, UnloadErrors) {
  EXPECT_TRUE(has_errno(nn::unload(call(), 0), 1, "graph handle 0 was never created"));
  const uint32_t g = load_model("fake:add1");
  ASSERT_TRUE(has_errno(nn::unload(call(), g), 0));
  EXPECT_TRUE(has_errno(nn::unload(call(), g), 1, "graph handle 0 was already released"));
  EXPECT_TRUE(has_errno(nn::unload(call(), 9), 1, "graph handle 9 was never created"));
}

TEST_F(AbiHandles, ContextOutlivesItsUnloadedGraph) {
  const uint32_t g = load_model("fake:add1");
  const uint32_t ctx = new_context(g);
  ASSERT_TRUE(has_errno(nn::unload(call(), g), 0));
  EXPECT_EQ(stats().live_graphs, 1) << "the context still uses the graph";
  ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {0, 1, 2, 3}), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx), 0));
  auto o = get_output(ctx, 0, 16);
  ASSERT_TRUE(has_errno(o.status, 0));
  EXPECT_EQ(guest_.f32s_at(o.buffer, 4), (std::vector<float>{1, 2, 3, 4}));
  ASSERT_TRUE(has_errno(nn::finalize_execution_context(call(), ctx), 0));
  EXPECT_EQ(stats().live_contexts, 0);
  EXPECT_EQ(stats().live_graphs, 0) << "freed with its last context";
}

TEST_F(AbiHandles, FinalizeFreesTheContextAtOnce) {
  const uint32_t ctx = context_on("fake:add1");
  EXPECT_EQ(stats().live_contexts, 1);
  ASSERT_TRUE(has_errno(nn::finalize_execution_context(call(), ctx), 0));
  EXPECT_EQ(stats().live_contexts, 0);
  EXPECT_EQ(stats().live_graphs, 1) << "the graph handle is still live";
}

TEST_F(AbiHandles, UseAfterFinalize) {
  const uint32_t ctx = context_on("fake:stream:a,b");
  ASSERT_TRUE(has_errno(nn::finalize_execution_context(call(), ctx), 0));
  for (auto& [fn, status] : all_context_calls(ctx)) {
    EXPECT_TRUE(has_errno(status, 1, "execution context handle 0 was already released")) << fn;
  }
}

TEST_F(AbiHandles, NeverCreatedContext) {
  context_on("fake:add1");
  for (uint32_t ctx : {1u, 1000u, UINT32_MAX}) {
    for (auto& [fn, status] : all_context_calls(ctx)) {
      EXPECT_TRUE(has_errno(status, 1, "execution context handle " + std::to_string(ctx) + " was never created")) << fn;
    }
  }
}

TEST_F(AbiHandles, HandleZeroWorksEverywhere) {
  const uint32_t g = load_model("fake:add1");
  ASSERT_EQ(g, 0u);
  const uint32_t ctx = new_context(g);
  ASSERT_EQ(ctx, 0u);
  ASSERT_TRUE(has_errno(set_f32(0, {4}, {1, 1, 1, 1}), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), 0), 0));
  EXPECT_TRUE(has_errno(get_output(0, 0, 16).status, 0));
  EXPECT_TRUE(has_errno(nn::finalize_execution_context(call(), 0), 0));
  EXPECT_TRUE(has_errno(nn::unload(call(), 0), 0));
}

TEST_F(AbiHandles, SessionEndFreesEverything) {
  for (int i = 0; i < 3; ++i) new_context(load_model("fake:add1:" + std::to_string(i)));
  EXPECT_EQ(stats().live_graphs, 3);
  EXPECT_EQ(stats().live_contexts, 3);
  session_.reset();
  EXPECT_EQ(stats().live_graphs, 0) << "a guest's end frees its graphs even while the environment lives";
  EXPECT_EQ(stats().live_contexts, 0);
}

}  // namespace
}  // namespace wasinn::unit
