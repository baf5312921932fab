// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// witx load(builders_ptr, builders_len, encoding, target, graph_out): every errno path.
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiLoad : public AbiTest {
 protected:
  // Loads a describe_load model with extra builders and returns what the backend was given.
  std::string described(std::vector<std::string> builders, uint32_t encoding, uint32_t target) {
    const uint32_t out = guest_.out_u32();
    const uint32_t n = static_cast<uint32_t>(builders.size());
    EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders(builders), n, encoding, target, out), 0));
    const uint32_t ctx = new_context(guest_.u32_at(out));
    EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 0));
    auto o = get_output(ctx, 0, 1024);
    EXPECT_TRUE(has_errno(o.status, 0));
    return guest_.text_at(o.buffer, o.written);
  }
};

TEST_F(AbiLoad, HandlesCountFromZero) {
  const uint32_t out = guest_.out_u32();
  ASSERT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 1, 1, 0, out), 0));
  EXPECT_EQ(guest_.u32_at(out), 0u) << "handle 0 is a real handle in witx";
  ASSERT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 1, 1, 0, out), 0));
  EXPECT_EQ(guest_.u32_at(out), 1u);
  EXPECT_EQ(stats().live_graphs, 1) << "two handles on the one graph of these bytes";
}

TEST_F(AbiLoad, BuildersReachTheBackendInOrder) {
  EXPECT_EQ(described({"fake:describe_load", "model.xml", "weights.bin"}, 1, 0),
            "builders=3 target=0 encoding=onnx config=- paths=-,-,- b1=model.xml b2=weights.bin");
}

TEST_F(AbiLoad, TargetsIncludingAuto) {
  for (uint32_t target : {0u, 1u, 2u, 3u}) {
    EXPECT_EQ(described({"fake:describe_load"}, 1, target),
              "builders=1 target=" + std::to_string(target) + " encoding=onnx config=- paths=-");
  }
}

TEST_F(AbiLoad, OutPointerOutOfBoundsLoadsNothing) {
  const int64_t loads = stats().graph_loads;
  const uint32_t arr = guest_.builders({"fake:add1"});
  for (uint32_t out : {kWildPtr, FakeGuest::kSize - 3, FakeGuest::kSize, 0xFFFFFFFFu}) {
    EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 1, 0, out), 1, "load: graph out-pointer")) << out;
  }
  EXPECT_EQ(stats().graph_loads, loads) << "the out-pointer is checked before any work";
  EXPECT_EQ(session_->live_graphs(), 0u);
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 1, 0, FakeGuest::kSize - 4), 0)) << "the last 4 bytes are in bounds";
}

TEST_F(AbiLoad, ZeroBuilders) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(
      has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 0, 1, 0, out), 1, "load: no graph builders given"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiLoad, BuilderCountOverLimit) {
  const uint32_t out = guest_.out_u32();
  const uint32_t arr = guest_.builders({"fake:add1"});
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 65, 1, 0, out), 1, "load: 65 graph builders exceed the limit of 64"));
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 0xFFFFFFFF, 1, 0, out), 1, "4294967295 graph builders exceed"));
  std::vector<std::string> many(64, "x");
  many[0] = "fake:add1";
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders(many), 64, 1, 0, out), 0)) << "64 is within the limit";
}

TEST_F(AbiLoad, BuilderArrayOutOfBounds) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::load(call(), kWildPtr, 4, 1, 0, out), 1,
                        "load: builder array: 32 bytes at guest address 0xfffffff0 lie outside the 65536-byte memory"));
  EXPECT_TRUE(has_errno(nn::load(call(), FakeGuest::kSize - 4, 1, 1, 0, out), 1, "load: builder array"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiLoad, BuilderBytesOutOfBounds) {
  const int64_t loads = stats().graph_loads;
  const uint32_t out = guest_.out_u32();
  const uint32_t model = guest_.put("fake:add1");
  struct Case {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    const char* detail;
  } cases[] = {
      {{{kWildPtr, 32}}, "load: builder 0: 32 bytes at guest address 0xfffffff0"},
      {{{model, 0xFFFFFFFF}}, "load: builder 0: 4294967295 bytes"},
      {{{FakeGuest::kSize - 8, 9}}, "load: builder 0: 9 bytes"},
      {{{model, 9}, {kWildPtr, 16}}, "load: builder 1"},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(
        has_errno(nn::load(call(), guest_.builder_array(c.pairs), static_cast<uint32_t>(c.pairs.size()), 1, 0, out), 1,
                  c.detail));
  }
  EXPECT_EQ(stats().graph_loads, loads);
  EXPECT_EQ(session_->live_graphs(), 0u);
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiLoad, ModelFlushAgainstTheEndOfMemory) {
  const uint32_t out = guest_.out_u32();
  guest_.write_at(FakeGuest::kSize - 9, "fake:add1");
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builder_array({{FakeGuest::kSize - 9, 9}}), 1, 1, 0, out), 0));
  EXPECT_TRUE(has_errno(
      nn::load(call(), guest_.builder_array({{FakeGuest::kSize, 0}, {FakeGuest::kSize - 9, 9}}), 2, 1, 0, out), 1,
      "fake: not a fake model"))
      << "an empty builder at the very end is in bounds; the backend then refuses it";
}

TEST_F(AbiLoad, UnknownEncodings) {
  const uint32_t out = guest_.out_u32();
  const uint32_t arr = guest_.builders({"fake:add1"});
  for (uint32_t enc : {7u, 255u, 0xFFFFFFFFu}) {
    EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, enc, 0, out), 2,
                          "graph encoding " + std::to_string(enc) + " is not supported"));
  }
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiLoad, EncodingsWithoutABackend) {
  const uint32_t out = guest_.out_u32();
  const uint32_t arr = guest_.builders({"fake:add1"});
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 0, 0, out), 2, "no backend for encoding openvino is installed"));
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 2, 0, out), 2, "no backend for encoding tensorflow is installed"));
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 4, 0, out), 2, "no backend for encoding tensorflowlite is installed"));
}

TEST_F(AbiLoad, UnknownTargets) {
  const uint32_t out = guest_.out_u32();
  const uint32_t arr = guest_.builders({"fake:add1"});
  for (uint32_t target : {4u, 255u, 0xFFFFFFFFu}) {
    EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 1, target, out), 1, "execution target " + std::to_string(target)));
  }
  EXPECT_EQ(session_->live_graphs(), 0u);
}

TEST_F(AbiLoad, AutodetectFiveAndSix) {
  // 5 (witx autodetect): the bytes must match a format.
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 1, 5, 0, out), 2, "match no known format"));
  // 6 (WasmEdge ggml) falls back to ggml, which the fake serves.
  EXPECT_EQ(described({"fake:describe_load"}, 6, 0), "builders=1 target=0 encoding=ggml config=- paths=-");
  EXPECT_EQ(described({"GGUF fake:describe_load"}, 5, 0), "builders=1 target=0 encoding=ggml config=- paths=-");
  // A zip archive is PyTorch: served by the other plugin.
  const int64_t before = FakePlugin::nostream().stats().graph_loads;
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({std::string("PK\x03\x04 fake:echo", 14)}), 1, 5, 0, out), 0));
  EXPECT_EQ(FakePlugin::nostream().stats().graph_loads, before + 1);
}

TEST_F(AbiLoad, BackendRefusals) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(
      has_errno(nn::load(call(), guest_.builders({"fake:fail_load"}), 1, 1, 0, out), 5, "fake: load failed as asked"));
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:nonsense"}), 1, 1, 0, out), 1,
                        "fake: unknown model op 'nonsense'"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
  EXPECT_EQ(stats().live_graphs, 0);
}

TEST_F(AbiLoad, ModelBytesLimit) {
  Limits limits;
  limits.max_model_bytes = 20;
  start(limits);
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1", "0123456789ab"}), 2, 1, 0, out), 7,
                        "model of 21 bytes exceeds the limit of 20 bytes"));
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1", "0123456789a"}), 2, 1, 0, out), 0));
}

TEST_F(AbiLoad, GraphLimit) {
  Limits limits;
  limits.max_graphs = 2;
  start(limits);
  EXPECT_EQ(load_model("fake:add1"), 0u);
  EXPECT_EQ(load_model("fake:add1"), 1u);
  const uint32_t out = guest_.out_u32();
  const int64_t loads_before = stats().graph_loads;
  EXPECT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 1, 1, 0, out), 7,
                        "too many live graphs: the limit is 2"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
  EXPECT_EQ(stats().graph_loads, loads_before) << "refused before the backend spends a load";
  EXPECT_EQ(stats().live_graphs, 1) << "the limit counts handles; both share one graph";
  ASSERT_TRUE(has_errno(nn::unload(call(), 0), 0));
  EXPECT_EQ(load_model("fake:add1"), 2u) << "a refused insert uses up no handle; 0 is not given again";
}

TEST_F(AbiLoad, MissingLibraryFailsOnlyItsEncoding) {
  session_.reset();
  env_ = make_env({}, WASINN_UNIT_BROKEN_DIR);
  session_ = std::make_unique<NnSession>(env_);
  const uint32_t out = guest_.out_u32();
  const uint32_t arr = guest_.builders({"fake:add1"});
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 2, 0, out), 6, "libwasinn_backend_missing.so"));
  EXPECT_TRUE(has_errno(nn::load(call(), arr, 1, 1, 0, out), 0)) << "onnx is served by a backend that loads";
}

// One model's bytes, loaded again by this guest or another on the same environment, share one
// graph (and its load-isolation check); anything else that decides a load gives a graph of its own.
TEST_F(AbiLoad, TheSameBytesShareOneGraphWhileItLives) {
  const int64_t before = stats().graph_loads;
  const uint32_t a = load_model("fake:add1");
  const uint32_t b = load_model("fake:add1");
  EXPECT_NE(a, b) << "each load still gets its own handle";
  EXPECT_EQ(stats().graph_loads - before, 1);
  NnSession other(env_);
  nn::Call other_call{other, guest_.view()};
  const uint32_t out = guest_.out_u32();
  ASSERT_TRUE(has_errno(nn::load(other_call, guest_.builders({"fake:add1"}), 1, 1, 0, out), 0));
  EXPECT_EQ(stats().graph_loads - before, 1) << "another guest of the process shares it too";
  EXPECT_EQ(stats().live_graphs, 1);

  ASSERT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 1, 1, 1, out), 0));
  EXPECT_EQ(stats().graph_loads - before, 2) << "another target is another load";
  ASSERT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1", "x"}), 2, 1, 0, out), 0));
  EXPECT_EQ(stats().graph_loads - before, 3) << "other builders are another model";
  ASSERT_TRUE(has_errno(nn::load(call(), guest_.builders({"fake:add1"}), 1, 6, 0, out), 0));
  EXPECT_EQ(stats().graph_loads - before, 4) << "another encoding is another load";

  // Computes on the shared graph stay apart: each handle's context has its own input.
  const uint32_t ca = new_context(a), cb = new_context(b);
  ASSERT_TRUE(has_errno(set_f32(ca, {1}, {1.0f}), 0));
  ASSERT_TRUE(has_errno(set_f32(cb, {1}, {10.0f}), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), ca), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), cb), 0));
  const Output oa = get_output(ca, 0, 4), ob = get_output(cb, 0, 4);
  ASSERT_TRUE(has_errno(oa.status, 0));
  ASSERT_TRUE(has_errno(ob.status, 0));
  EXPECT_EQ(guest_.f32s_at(oa.buffer, 1), std::vector<float>{2.0f});
  EXPECT_EQ(guest_.f32s_at(ob.buffer, 1), std::vector<float>{11.0f});
}

TEST_F(AbiLoad, ASharedGraphDiesWithItsLastHandleAndAFailedLoadIsNotShared) {
  const int64_t before = stats().graph_loads;
  const uint32_t a = load_model("fake:add1");
  const uint32_t b = load_model("fake:add1");
  ASSERT_TRUE(has_errno(nn::unload(call(), a), 0));
  EXPECT_EQ(stats().live_graphs, 1) << "b still holds it";
  ASSERT_TRUE(has_errno(nn::unload(call(), b), 0));
  EXPECT_EQ(stats().live_graphs, 0);
  load_model("fake:add1");
  EXPECT_EQ(stats().graph_loads - before, 2) << "loaded again once the last user let go";

  const uint32_t out = guest_.out_u32();
  for (int i = 0; i < 2; ++i) {  // each attempt reaches the backend and gets its error again
    EXPECT_TRUE(
        has_errno(nn::load(call(), guest_.builders({"fake:fail_load"}), 1, 1, 0, out), 5, "load failed as asked"));
  }
  EXPECT_EQ(stats().graph_loads - before, 2);
}

}  // namespace
}  // namespace wasinn::unit
