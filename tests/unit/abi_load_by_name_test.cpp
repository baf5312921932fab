// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// witx load_by_name(name_ptr, name_len, graph_out) and WasmEdge's
// load_by_name_with_config(name_ptr, name_len, config_ptr, config_len, graph_out).
#include <fstream>

#include <unistd.h>

#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class AbiByName : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    add_model("add1", "fake:add1");
    add_model("desc", "fake:describe_load");
    add_model("broken", "fake:fail_load");
  }
  void add_model(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / name, std::ios::binary) << text;
    ASSERT_TRUE(env_->models().add(NamedModel{name, Encoding::onnx, Target::cpu, {dir_ / name}, {}}).ok());
  }
  // One directory per process: ctest runs these tests in parallel processes, and one
  // rewriting a file another is loading made the fake backend read it half written.
  const std::filesystem::path dir_ =
      std::filesystem::path(::testing::TempDir()) / ("wasinn_unit_by_name_" + std::to_string(getpid()));
  Status by_name(std::string_view name, uint32_t out) {
    return nn::load_by_name(call(), guest_.put(name), static_cast<uint32_t>(name.size()), out);
  }
  Status with_config(std::string_view name, std::string_view config, uint32_t out) {
    return nn::load_by_name_with_config(call(), guest_.put(name), static_cast<uint32_t>(name.size()),
                                        guest_.put(config), static_cast<uint32_t>(config.size()), out);
  }
  // Computes a describe_load graph and returns its text.
  std::string describe(uint32_t graph) {
    const uint32_t ctx = new_context(graph);
    EXPECT_TRUE(has_errno(nn::compute(call(), ctx), 0));
    auto o = get_output(ctx, 0, 2048);
    EXPECT_TRUE(has_errno(o.status, 0));
    return guest_.text_at(o.buffer, o.written);
  }
};

TEST_F(AbiByName, LoadsOnceAndSharesAcrossSessions) {
  const int64_t loads = stats().graph_loads;
  const uint32_t out = guest_.out_u32();
  ASSERT_TRUE(has_errno(by_name("add1", out), 0));
  EXPECT_EQ(guest_.u32_at(out), 0u);
  NnSession other(env_);  // a second guest in the same process
  const uint32_t out2 = guest_.out_u32();
  ASSERT_TRUE(has_errno(nn::load_by_name({other, guest_.view()}, guest_.put("add1"), 4, out2), 0));
  EXPECT_EQ(guest_.u32_at(out2), 0u) << "each guest has its own handle numbers";
  ASSERT_TRUE(has_errno(by_name("add1", out), 0));
  EXPECT_EQ(guest_.u32_at(out), 1u);
  EXPECT_EQ(stats().graph_loads - loads, 1);
  EXPECT_EQ(stats().live_graphs, 1);

  const uint32_t ctx = new_context(0);
  ASSERT_TRUE(has_errno(set_f32(ctx, {1, 4}, {1, 2, 3, 4}), 0));
  ASSERT_TRUE(has_errno(nn::compute(call(), ctx), 0));
  auto o = get_output(ctx, 0, 16);
  ASSERT_TRUE(has_errno(o.status, 0));
  EXPECT_EQ(guest_.f32s_at(o.buffer, 4), (std::vector<float>{2, 3, 4, 5}));
}

TEST_F(AbiByName, CStringNulNotCounted) {
  const uint32_t out = guest_.out_u32();
  const uint32_t name = guest_.put(std::string_view("add1\0", 5));
  EXPECT_TRUE(has_errno(nn::load_by_name(call(), name, 4, out), 0))
      << "the Rust crate passes a C string, len without NUL";
  EXPECT_TRUE(has_errno(nn::load_by_name(call(), name, 5, out), 1, "NUL byte at offset 4"));
}

TEST_F(AbiByName, OutPointerOutOfBoundsLoadsNothing) {
  const int64_t loads = stats().graph_loads;
  for (uint32_t out : {kWildPtr, FakeGuest::kSize - 2}) {
    EXPECT_TRUE(has_errno(by_name("add1", out), 1, "load_by_name: graph out-pointer"));
    EXPECT_TRUE(has_errno(with_config("add1", "{}", out), 1, "load_by_name_with_config: graph out-pointer"));
  }
  EXPECT_EQ(stats().graph_loads, loads);
  EXPECT_EQ(stats().live_graphs, 0) << "the registry did not load the model";
}

TEST_F(AbiByName, NameOutOfBounds) {
  const uint32_t out = guest_.out_u32();
  const uint32_t config = guest_.put("{}");
  EXPECT_TRUE(has_errno(nn::load_by_name(call(), kWildPtr, 32, out), 1, "name: 32 bytes at guest address 0xfffffff0"));
  EXPECT_TRUE(has_errno(nn::load_by_name(call(), guest_.put("add1"), 0xFFFFFFFF, out), 1, "4294967295 bytes"));
  EXPECT_TRUE(has_errno(nn::load_by_name_with_config(call(), kWildPtr, 32, config, 2, out), 1, "name"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiByName, BadNames) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(by_name("", out), 1, "model name is empty"));
  EXPECT_TRUE(has_errno(by_name(std::string_view("ad\0d1", 5), out), 1, "NUL byte at offset 2"));
  EXPECT_TRUE(has_errno(by_name("add\xFF", out), 1, "not valid UTF-8 (byte 3)"));
  EXPECT_TRUE(has_errno(with_config(std::string_view("a\0", 2), "{}", out), 1, "NUL byte at offset 1"));
  EXPECT_TRUE(has_errno(with_config("\xC0\x80", "{}", out), 1, "not valid UTF-8"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiByName, UnknownName) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(by_name("nope", out), 8, "no model named 'nope' is registered"));
  // The WasmEdge extension answers 103 (model_not_found), as its GGML guests expect.
  EXPECT_TRUE(has_errno(with_config("nope", "{}", out), 103, "no model named 'nope'"));
  EXPECT_TRUE(has_errno(by_name("ADD1", out), 8)) << "names are case-sensitive";
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiByName, NameLengthLimit) {
  Limits limits;
  limits.max_name_bytes = 4;
  start(limits);
  add_model("add1", "fake:add1");
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(by_name("add1", out), 0));
  EXPECT_TRUE(has_errno(by_name("add12", out), 1, "model name of 5 bytes exceeds the limit of 4"));
}

TEST_F(AbiByName, BackendFailureReachesTheGuest) {
  const uint32_t out = guest_.out_u32();
  EXPECT_TRUE(has_errno(by_name("broken", out), 5, "fake: load failed as asked"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);
}

TEST_F(AbiByName, GraphLimitAppliesToNamedModels) {
  Limits limits;
  limits.max_graphs = 1;
  start(limits);
  add_model("add1", "fake:add1");
  const uint32_t out = guest_.out_u32();
  ASSERT_TRUE(has_errno(by_name("add1", out), 0));
  EXPECT_TRUE(has_errno(by_name("add1", out), 7, "too many live graphs: the limit is 1"));
}

TEST_F(AbiByName, ConfigReachesTheBackendAndSelectsTheGraph) {
  const int64_t loads = stats().graph_loads;
  const uint32_t out = guest_.out_u32();
  ASSERT_TRUE(has_errno(with_config("desc", R"({"ctx-size":512})", out), 0));
  const uint32_t a = guest_.u32_at(out);
  ASSERT_TRUE(has_errno(with_config("desc", R"({"ctx-size":512})", out), 0));
  const uint32_t b = guest_.u32_at(out);
  ASSERT_TRUE(has_errno(with_config("desc", "", out), 0));
  const uint32_t c = guest_.u32_at(out);
  ASSERT_TRUE(has_errno(by_name("desc", out), 0));
  EXPECT_EQ(stats().graph_loads - loads, 2) << "one graph per distinct config; \"\" is load_by_name's";
  EXPECT_EQ(stats().live_graphs, 2);
  EXPECT_NE(a, b) << "each load gets its own handle, even for a shared graph";
  EXPECT_CONTAINS(describe(a), "config={\"ctx-size\":512}");
  EXPECT_CONTAINS(describe(c), "config=-");
  EXPECT_CONTAINS(describe(a), "paths=" + (dir_ / "desc").string());
}

TEST_F(AbiByName, ConfigOutOfBoundsOrTooLarge) {
  const uint32_t out = guest_.out_u32();
  const uint32_t name = guest_.put("desc");
  EXPECT_TRUE(has_errno(nn::load_by_name_with_config(call(), name, 4, kWildPtr, 32, out), 1,
                        "load_by_name_with_config: config: 32 bytes at guest address 0xfffffff0"));
  EXPECT_TRUE(has_errno(nn::load_by_name_with_config(call(), name, 4, FakeGuest::kSize - 1, 2, out), 1, "config"));
  EXPECT_TRUE(has_errno(nn::load_by_name_with_config(call(), name, 4, guest_.put("{}"), 0xFFFFFFFF, out), 7,
                        "config of 4294967295 bytes exceeds the limit of 16777216"));
  EXPECT_EQ(guest_.u32_at(out), kSentinel);

  Limits limits;
  limits.max_config_bytes = 8;
  start(limits);
  add_model("desc", "fake:describe_load");
  EXPECT_TRUE(has_errno(with_config("desc", "{\"a\":123}", out), 7, "config of 9 bytes exceeds the limit of 8"));
  EXPECT_TRUE(has_errno(with_config("desc", "{\"a\":12}", out), 0)) << "exactly the limit is allowed";
}

}  // namespace
}  // namespace wasinn::unit
