// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn's witx functions beyond the spec (abi/ephemeral_nn_ext.h) on the fake backend: what a
// graph declares, its properties and their rules (per guest handle, never the shared graph),
// buffers too small, bad handles and pointers, and prompt's refusal of a tensor model. The
// real backends are tested end to end by tests/nn_ext.
#include "abi/ephemeral_nn_ext.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiNnExt : public AbiTest {
 protected:
  struct Io {
    Status status;
    std::string name;
    uint32_t name_len = 0, type = 0, rank = 0;
    std::vector<int64_t> dims;
  };
  Io io_info(uint32_t graph, uint32_t side, uint32_t index, uint32_t name_max = 64, uint32_t dims_max = 8) {
    const uint32_t name = guest_.buffer(name_max ? name_max : 1), dims = guest_.buffer(dims_max ? dims_max * 8 : 8);
    const uint32_t name_len = guest_.out_u32(), type = guest_.out_u32(), rank = guest_.out_u32();
    Io r;
    r.status = nn::graph_io_info(call(), graph, side, index, name, name_max, name_len, type, dims, dims_max, rank);
    r.name_len = guest_.u32_at(name_len);
    r.type = guest_.u32_at(type);
    r.rank = guest_.u32_at(rank);
    if (r.status.ok()) {
      r.name = guest_.text_at(name, r.name_len);
      const auto raw = guest_.bytes_at(dims, r.rank == nn::kRankUnknown ? 0 : r.rank * 8);
      r.dims.resize(raw.size() / 8);
      if (!raw.empty()) std::memcpy(r.dims.data(), raw.data(), raw.size());
    }
    return r;
  }
  struct Text {
    Status status;
    uint32_t written = 0;
    std::string text;
  };
  Text get_property(uint32_t graph, std::string_view name, uint32_t max = 64) {
    const uint32_t key = guest_.put(name), buf = guest_.buffer(max ? max : 1), written = guest_.out_u32();
    Text t;
    t.status = nn::graph_get_property(call(), graph, key, static_cast<uint32_t>(name.size()), buf, max, written);
    t.written = guest_.u32_at(written);
    if (t.status.ok()) t.text = guest_.text_at(buf, t.written);
    return t;
  }
  Status set_property(uint32_t handle, std::string_view name, std::string_view value, bool on_context = false) {
    const uint32_t key = guest_.put(name), val = guest_.put(value);
    const auto n = static_cast<uint32_t>(name.size()), v = static_cast<uint32_t>(value.size());
    return on_context ? nn::context_set_property(call(), handle, key, n, val, v)
                      : nn::graph_set_property(call(), handle, key, n, val, v);
  }
  std::vector<float> add1(uint32_t ctx, float x) {
    EXPECT_TRUE(has_errno(set_f32(ctx, {1, 4}, {x, x, x, x}), 0));
    EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 0));
    const Output out = get_output(ctx, 0, 16);
    EXPECT_TRUE(has_errno(out.status, 0));
    return guest_.f32s_at(out.buffer, 4);
  }
};

TEST_F(AbiNnExt, DescribesWhatTheGraphDeclares) {
  const uint32_t g = load_model("fake:add1");
  const uint32_t count = guest_.out_u32();
  ASSERT_TRUE(has_errno(nn::graph_io_count(call(), g, 0, count), 0));
  EXPECT_EQ(guest_.u32_at(count), 1u);
  ASSERT_TRUE(has_errno(nn::graph_io_count(call(), g, 1, count), 0));
  EXPECT_EQ(guest_.u32_at(count), 1u);
  const Io in = io_info(g, 0, 0);
  ASSERT_TRUE(has_errno(in.status, 0));
  EXPECT_EQ(in.name, "x");
  EXPECT_EQ(in.type, 1u) << "witx f32";
  EXPECT_EQ(in.dims, (std::vector<int64_t>{-1, 4}));
  const Io out = io_info(g, 1, 0);
  EXPECT_EQ(out.name, "y");
}

TEST_F(AbiNnExt, UnknownTypeAndRankAreSaidSo) {
  const Io io = io_info(load_model("fake:echo"), 0, 0);
  ASSERT_TRUE(has_errno(io.status, 0));
  EXPECT_EQ(io.type, nn::kTypeNone);
  EXPECT_EQ(io.rank, nn::kRankUnknown);
}

TEST_F(AbiNnExt, TooSmallBuffersSayWhatIsNeeded) {
  const uint32_t g = load_model("fake:add1");
  const Io no_name = io_info(g, 0, 0, /*name_max=*/0);
  EXPECT_TRUE(has_errno(no_name.status, 7, "the name needs 1 bytes"));
  EXPECT_EQ(no_name.name_len, 1u);
  EXPECT_EQ(no_name.rank, 2u);
  const Io short_dims = io_info(g, 0, 0, 64, /*dims_max=*/1);
  EXPECT_TRUE(has_errno(short_dims.status, 7));
  EXPECT_EQ(short_dims.rank, 2u);
  const Text small = get_property(g, "backend", 2);
  EXPECT_TRUE(has_errno(small.status, 7));
  EXPECT_EQ(small.written, 4u) << "\"fake\" needs 4 bytes";
}

TEST_F(AbiNnExt, ACountThatOverlapsItsBufferIsWrittenLast) {
  // Found by fuzz_witx: a guest may point the count into its own buffer; the count must win.
  const uint32_t g = load_model("fake:add1");
  const uint32_t key = guest_.put("backend"), buf = guest_.buffer(16);
  ASSERT_TRUE(has_errno(nn::graph_get_property(call(), g, key, 7, buf, 16, buf), 0));
  EXPECT_EQ(guest_.u32_at(buf), 4u);
  ASSERT_TRUE(has_errno(nn::graph_list_properties(call(), g, buf, 64, buf + 8), 0));
  EXPECT_EQ(guest_.u32_at(buf + 8), 56u);
  const uint32_t name = guest_.buffer(16);
  ASSERT_TRUE(has_errno(nn::graph_io_info(call(), g, 0, 0, name, 16, name, name + 4, name + 8, 2, name + 12), 0));
  EXPECT_EQ(guest_.u32_at(name), 1u) << "name length";
  EXPECT_EQ(guest_.u32_at(name + 4), 1u) << "type f32";
  EXPECT_EQ(guest_.u32_at(name + 12), 2u) << "rank";
}

TEST_F(AbiNnExt, BadSideIndexHandleAndPointers) {
  const uint32_t g = load_model("fake:add1");
  const uint32_t count = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::graph_io_count(call(), g, 2, count), 1, "side 2"));
  EXPECT_TRUE(has_errno(nn::graph_io_count(call(), 7, 0, count), 1, "graph handle 7"));
  EXPECT_TRUE(has_errno(nn::graph_io_count(call(), g, 0, kWildPtr), 1));
  EXPECT_EQ(guest_.u32_at(count), kSentinel);
  EXPECT_TRUE(has_errno(io_info(g, 0, 1).status, 1, "input 1 does not exist"));
  const uint32_t len = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::graph_io_info(call(), g, 0, 0, kWildPtr, 64, len, len, len, 8, len), 1));
  const uint32_t written = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::graph_list_properties(call(), g, kWildPtr, 64, written), 1));
  EXPECT_TRUE(has_errno(nn::prompt(call(), 0, kWildPtr, 4, guest_.buffer(8), 8, written), 1));
}

TEST_F(AbiNnExt, ListsTheHostsFactsThenThePlugins) {
  const uint32_t g = load_model("fake:add1");
  const uint32_t buf = guest_.buffer(256), written = guest_.out_u32();
  ASSERT_TRUE(has_errno(nn::graph_list_properties(call(), g, buf, 256, written), 0));
  const std::string names = guest_.text_at(buf, guest_.u32_at(written));
  EXPECT_EQ(names, std::string("backend\0framework-version\0encoding\0device\0fake.op\0scale\0", 56));
  EXPECT_EQ(get_property(g, "backend").text, "fake");
  EXPECT_EQ(get_property(g, "encoding").text, "onnx");
  EXPECT_EQ(get_property(g, "device").text, "cpu");
  EXPECT_EQ(get_property(g, "fake.op").text, "add1");
  EXPECT_EQ(get_property(g, "scale").text, "1");
  EXPECT_TRUE(has_errno(get_property(g, "scal").status, 1, "did you mean 'scale'"));
}

TEST_F(AbiNnExt, SettingRefusesUnknownReadOnlyAndWrongValues) {
  const uint32_t g = load_model("fake:add1");
  EXPECT_TRUE(has_errno(set_property(g, "backend", "x"), 1, "read-only"));
  EXPECT_TRUE(has_errno(set_property(g, "nope", "1"), 1, "no property 'nope'"));
  EXPECT_TRUE(has_errno(set_property(g, "scale", "big"), 1, "must be a number"));
  EXPECT_EQ(get_property(g, "scale").text, "1") << "a refused value changes nothing";
  const uint32_t ctx = new_context(g);
  EXPECT_TRUE(has_errno(set_property(ctx, "scale", "big", true), 1, "must be a number"));
  EXPECT_TRUE(has_errno(set_property(ctx, "fake.op", "echo", true), 1, "read-only"));
  EXPECT_TRUE(has_errno(set_property(9, "scale", "2", true), 1, "context handle 9"));
}

TEST_F(AbiNnExt, AGraphKnobIsThisHandlesDefaultForLaterContexts) {
  const uint32_t g = load_model("fake:add1");
  const uint32_t before = new_context(g);
  ASSERT_TRUE(has_errno(set_property(g, "scale", "3"), 0));
  EXPECT_EQ(get_property(g, "scale").text, "3");
  EXPECT_EQ(add1(before, 1.0f), (std::vector<float>{2, 2, 2, 2})) << "a context made before keeps its value";
  const uint32_t after = new_context(g);
  EXPECT_EQ(add1(after, 1.0f), (std::vector<float>{6, 6, 6, 6}));
  ASSERT_TRUE(has_errno(set_property(after, "scale", "0.5", true), 0));
  EXPECT_EQ(add1(after, 1.0f), (std::vector<float>{1, 1, 1, 1})) << "a context's own value wins";
  // Another guest's session on the same environment sees the graph's default, not this guest's.
  NnSession other(env_);
  FakeGuest other_guest;
  const uint32_t out = other_guest.out_u32();
  ASSERT_TRUE(
      has_errno(nn::load(nn::Call{other, other_guest.view()}, other_guest.builders({"fake:add1"}), 1, 1, 0, out), 0));
  auto value = other.get_property(other_guest.u32_at(out), "scale");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, "1");
}

TEST_F(AbiNnExt, PromptRefusesATensorModel) {
  const uint32_t ctx = context_on("fake:add1");
  const uint32_t text = guest_.put("hello"), buf = guest_.buffer(16), written = guest_.out_u32();
  EXPECT_TRUE(has_errno(nn::prompt(call(), ctx, text, 5, buf, 16, written), 6, "not a text model"));
  EXPECT_EQ(guest_.u32_at(written), kSentinel);
}

}  // namespace
}  // namespace wasinn::unit
