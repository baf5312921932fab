// The llamacpp plugin through its C table, as the host drives it: config handling, errors with
// details, streaming state, concurrency, cancellation, weight sharing and release.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "guest_run.h"
#include "llama_plugin.h"

namespace llama_test {
namespace {

const std::string kPrompt = "The quick brown fox jumps over the lazy dog. Once upon a time";
const std::string kGreedy = "{\"temp\": 0, \"ctx-size\": 128, \"n-predict\": 16, \"threads\": 1}";

GraphPtr tiny(const std::string &config = kGreedy) {
  int status = -1;
  std::string detail;
  GraphPtr g = load_path(tiny_model(), config, &status, &detail);
  EXPECT_EQ(status, WASINN_OK) << detail;
  return g;
}

// The streamed pieces of one sequence, and the status that ended it.
std::vector<std::string> stream_all(wasinn_context *c, int *end) {
  std::vector<std::string> pieces;
  while ((*end = compute_single(c)) == WASINN_OK) pieces.push_back(output_single(c));
  return pieces;
}

std::string joined(const std::vector<std::string> &pieces) {
  std::string s;
  for (const auto &p : pieces) s += p;
  return s;
}

TEST(LlamaPlugin, DescribesItsInputsAndOutputs) {
  auto g = tiny();
  const auto &api = Plugin::get().api();
  ASSERT_EQ(api.graph_io_count(g.get(), 0), 2u);
  ASSERT_EQ(api.graph_io_count(g.get(), 1), 2u);
  wasinn_io_info info{};
  ASSERT_EQ(api.graph_io_info(g.get(), 0, 0, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "prompt");
  EXPECT_EQ(info.type, WASINN_TYPE_U8);
  ASSERT_EQ(api.graph_io_info(g.get(), 1, 1, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "metadata");
  EXPECT_EQ(api.graph_io_info(g.get(), 1, 2, &info), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(api.framework_version()).find("llama.cpp b"), std::string::npos);
}

TEST(LlamaPlugin, WronglyTypedConfigNamesTheKey) {
  int status = -1;
  std::string detail;
  auto g = load_path(tiny_model(), "{\"n-predict\": 8, \"ctx-size\": \"big\"}", &status, &detail);
  EXPECT_EQ(status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("ctx-size"), std::string::npos) << detail;
  load_path(tiny_model(), "{\"stream-stdout\": 1}", &status, &detail);
  EXPECT_EQ(status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("stream-stdout"), std::string::npos) << detail;
  load_path(tiny_model(), "[1, 2]", &status, &detail);
  EXPECT_EQ(status, WASINN_INVALID_ARGUMENT) << "a config must be an object";

  auto ok = tiny();
  auto c = make_context(ok.get());
  EXPECT_EQ(set_text(c.get(), 1, "{\"top-p\": 7}", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("top-p"), std::string::npos) << detail;
  EXPECT_EQ(set_text(c.get(), 1, "{not json", &detail), WASINN_INVALID_ARGUMENT);
}

TEST(LlamaPlugin, UnknownKeysAreLoggedAndIgnored) {
  testing::internal::CaptureStderr();
  auto g = tiny("{\"temp\": 0, \"n-predict\": 4, \"threads\": 1, \"no-such-key\": true, \"main-gpu\": 1}");
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(g);
  EXPECT_NE(err.find("\"no-such-key\" (unknown key)"), std::string::npos) << err;
  EXPECT_NE(err.find("\"main-gpu\""), std::string::npos) << err;
  auto c = make_context(g.get());
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.get()), WASINN_OK);
  EXPECT_EQ(output_text(c.get(), 1).find("\"output_tokens\": 4"), output_text(c.get(), 1).find("\"output_tokens\""));
}

TEST(LlamaPlugin, BadIndicesAndMissingPromptAreInvalidArgument) {
  auto g = tiny();
  auto c = make_context(g.get());
  std::string detail;
  EXPECT_EQ(compute(c.get(), &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("prompt"), std::string::npos) << detail;
  EXPECT_EQ(set_text(c.get(), 2, "x", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("input 2"), std::string::npos) << detail;
  const wasinn_tensor_id id{7, nullptr, 0};
  wasinn_tensor t{};
  Diag d;
  EXPECT_EQ(Plugin::get().api().get_output(c.get(), &id, &t, d.get()), WASINN_INVALID_ARGUMENT);
}

// WasmEdge's Rust guests send prompt and metadata as U8 with dims [1] whatever their length;
// the plugin reads the bytes and ignores the dims (the host must let such tensors through).
TEST(LlamaPlugin, PromptAndMetadataIgnoreDims) {
  auto g = tiny();
  auto reference = make_context(g.get());
  ASSERT_EQ(set_text(reference.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(reference.get()), WASINN_OK);
  auto c = make_context(g.get());
  const uint32_t one[1] = {1};
  const std::string meta = "{\"n-predict\": 5}";
  const wasinn_tensor m{WASINN_TYPE_U8, 1, one, meta.data(), meta.size()};
  const wasinn_tensor p{WASINN_TYPE_U8, 1, one, kPrompt.data(), kPrompt.size()};
  const wasinn_tensor_id id0{0, nullptr, 0}, id1{1, nullptr, 0};
  Diag d;
  ASSERT_EQ(Plugin::get().api().set_input(c.get(), &id1, &m, d.get()), WASINN_OK) << d.detail;
  ASSERT_EQ(Plugin::get().api().set_input(c.get(), &id0, &p, d.get()), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.get()), WASINN_OK);
  const std::string full = output_text(reference.get(), 0), five = output_text(c.get(), 0);
  EXPECT_FALSE(five.empty());
  EXPECT_EQ(full.substr(0, five.size()), five) << "the first 5 tokens of the same greedy answer";
  EXPECT_NE(output_text(c.get(), 1).find("\"output_tokens\": 5"), std::string::npos);
}

TEST(LlamaPlugin, ArbitraryBytesAreAnErrorOrAPromptNeverACrash) {
  auto g = tiny("{\"temp\": 0, \"n-predict\": 2, \"threads\": 1}");
  auto c = make_context(g.get());
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));  // invalid UTF-8, NULs
  std::string detail;
  EXPECT_EQ(set_text(c.get(), 1, bytes, &detail), WASINN_INVALID_ARGUMENT) << detail;
  EXPECT_EQ(set_text(c.get(), 1, "", &detail), WASINN_INVALID_ARGUMENT) << "an empty config is not JSON";
  EXPECT_EQ(set_text(c.get(), 1, "{\"n-predict\": 1e300}", &detail), WASINN_INVALID_ARGUMENT) << detail;
  EXPECT_EQ(set_text(c.get(), 1, "{\"seed\": -2}", &detail), WASINN_INVALID_ARGUMENT) << detail;
  ASSERT_EQ(set_text(c.get(), 0, bytes), WASINN_OK) << "any bytes tokenize (byte fallback)";
  EXPECT_EQ(compute(c.get()), WASINN_OK);
  ASSERT_EQ(set_text(c.get(), 0, ""), WASINN_OK) << "an empty prompt is BOS alone";
  EXPECT_EQ(compute(c.get()), WASINN_OK);
  EXPECT_NE(output_text(c.get(), 1).find("\"input_tokens\": 1"), std::string::npos);
}

TEST(LlamaPlugin, StreamEqualsComputeAndRestartsAfterFini) {
  auto g = tiny();
  auto c = make_context(g.get());
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.get()), WASINN_OK);
  const std::string text = output_text(c.get(), 0);
  int end = 0;
  const auto pieces = stream_all(c.get(), &end);
  EXPECT_EQ(end, WASINN_END_OF_SEQUENCE);
  EXPECT_EQ(pieces.size(), 16u);
  EXPECT_EQ(joined(pieces), text);
  EXPECT_EQ(output_text(c.get(), 0), text) << "get_output after streaming holds the whole answer";
  EXPECT_EQ(compute_single(c.get()), WASINN_END_OF_SEQUENCE) << "an ended sequence stays ended";
  Diag d;
  ASSERT_EQ(Plugin::get().api().fini_single(c.get(), d.get()), WASINN_OK);
  const auto again = stream_all(c.get(), &end);
  EXPECT_EQ(again, pieces) << "after fini_single the same prompt starts over";
}

TEST(LlamaPlugin, ContextsOnTwoThreadsMatchSequentialRuns) {
  auto g = tiny();
  const std::string other = "In a hole in the ground there lived a hobbit.";
  auto seq = make_context(g.get());
  ASSERT_EQ(set_text(seq.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(seq.get()), WASINN_OK);
  const std::string a = output_text(seq.get(), 0);
  ASSERT_EQ(set_text(seq.get(), 0, other), WASINN_OK);
  ASSERT_EQ(compute(seq.get()), WASINN_OK);
  const std::string b = output_text(seq.get(), 0);

  auto c1 = make_context(g.get());
  auto c2 = make_context(g.get());
  std::string r1, r2;
  std::thread t1([&] {
    for (int i = 0; i < 3; ++i) {
      if (set_text(c1.get(), 0, kPrompt) == WASINN_OK && compute(c1.get()) == WASINN_OK) r1 += output_text(c1.get(), 0) + "|";
    }
  });
  std::thread t2([&] {
    for (int i = 0; i < 3; ++i) {
      int end = 0;
      if (set_text(c2.get(), 0, other) == WASINN_OK) r2 += joined(stream_all(c2.get(), &end)) + "|";
    }
  });
  t1.join();
  t2.join();
  EXPECT_EQ(r1, a + "|" + a + "|" + a + "|");
  EXPECT_EQ(r2, b + "|" + b + "|" + b + "|");
}

TEST(LlamaPlugin, CancelStopsALongGenerationWithTimeout) {
  auto g = tiny("{\"temp\": 0, \"ctx-size\": 4096, \"n-predict\": -1, \"threads\": 1}");
  auto c = make_context(g.get());
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  std::atomic<bool> done{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!done) Plugin::get().api().cancel(c.get());
  });
  std::string detail;
  const auto t0 = std::chrono::steady_clock::now();
  const int status = compute(c.get(), &detail);
  done = true;
  canceller.join();
  EXPECT_EQ(status, WASINN_TIMEOUT) << detail;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  // The context still works afterwards.
  ASSERT_EQ(set_text(c.get(), 1, "{\"n-predict\": 3}"), WASINN_OK);
  EXPECT_EQ(compute(c.get()), WASINN_OK);
}

TEST(LlamaPlugin, ContextOptionsAreChangedPerContextWithoutTouchingOthers) {
  auto g = tiny();
  auto small = make_context(g.get());
  auto normal = make_context(g.get());
  std::string detail;
  ASSERT_EQ(set_text(small.get(), 1, "{\"ctx-size\": 8}"), WASINN_OK);
  ASSERT_EQ(set_text(small.get(), 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute(small.get(), &detail), WASINN_PROMPT_TOO_LONG);
  EXPECT_NE(detail.find("tokens"), std::string::npos) << detail;
  EXPECT_EQ(compute_single(small.get()), WASINN_PROMPT_TOO_LONG);
  ASSERT_EQ(set_text(normal.get(), 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute(normal.get()), WASINN_OK);
  // Growing the small context again recreates its llama_context; the model is untouched.
  ASSERT_EQ(set_text(small.get(), 1, "{\"ctx-size\": 128}"), WASINN_OK);
  EXPECT_EQ(compute(small.get()), WASINN_OK);
  EXPECT_EQ(output_text(small.get(), 0), output_text(normal.get(), 0));
}

TEST(LlamaPlugin, ReversePromptEndsTheAnswer) {
  auto g = tiny();
  auto c = make_context(g.get());
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  int end = 0;
  const auto pieces = stream_all(c.get(), &end);
  ASSERT_GE(pieces.size(), 4u);
  // Stop at the third piece's text: the answer ends with the first piece that completes it.
  const std::string stop = pieces[2];
  std::string expected;
  for (const auto &p : pieces) {
    expected += p;
    if (expected.find(stop) != std::string::npos) break;
  }
  ASSERT_EQ(set_text(c.get(), 1, "{\"reverse-prompt\": " + nlohmann::json(stop).dump() + "}"), WASINN_OK);
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.get()), WASINN_OK);
  EXPECT_EQ(output_text(c.get(), 0), expected);
}

TEST(LlamaPlugin, EmbeddingIsF32AndNotStreamed) {
  auto g = tiny("{\"embedding\": true, \"threads\": 1}");
  auto c = make_context(g.get());
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.get()), WASINN_OK);
  const wasinn_tensor_id id{0, nullptr, 0};
  wasinn_tensor t{};
  Diag d;
  ASSERT_EQ(Plugin::get().api().get_output(c.get(), &id, &t, d.get()), WASINN_OK);
  EXPECT_EQ(t.type, WASINN_TYPE_F32);
  ASSERT_EQ(t.rank, 1u);
  EXPECT_EQ(t.dims[0], 64u);
  EXPECT_EQ(t.data_length, 64u * 4);
  EXPECT_EQ(compute_single(c.get()), WASINN_UNSUPPORTED_OPERATION);
}

TEST(LlamaPlugin, ModelSourcesAndCorruptModels) {
  int status = -1;
  std::string detail;
  load_builders({}, &status, &detail);
  EXPECT_EQ(status, WASINN_INVALID_ARGUMENT);
  load_builders({"not a model"}, &status, &detail);
  EXPECT_EQ(status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("GGUF"), std::string::npos) << detail;
  load_builders({read_file(fixtures_dir() + "/llama/truncated.gguf")}, &status, &detail);
  EXPECT_EQ(status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("could not load"), std::string::npos) << detail;
  load_builders({"preload:" + tiny_model()}, &status, &detail);
  EXPECT_EQ(status, WASINN_SECURITY) << "guests may not name host files unless the backend config allows it";

  wasinn_backend *open = Plugin::get().make_backend("{\"allow-preload-paths\": true}", &status, &detail);
  ASSERT_NE(open, nullptr) << detail;
  auto g = load_builders({"preload:" + tiny_model(), kGreedy}, &status, &detail, open);
  EXPECT_EQ(status, WASINN_OK) << detail;
  g.reset();
  load_builders({"preload:/no/such/model.gguf"}, &status, &detail, open);
  EXPECT_EQ(status, WASINN_MODEL_NOT_FOUND) << detail;
  Plugin::get().api().backend_destroy(open);

  // Guest bytes with a trailing config builder: the config applies (n-predict 16).
  g = load_builders({read_file(tiny_model()), kGreedy}, &status, &detail);
  ASSERT_EQ(status, WASINN_OK) << detail;
  auto c = make_context(g.get());
  ASSERT_EQ(set_text(c.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.get()), WASINN_OK);
  EXPECT_NE(output_text(c.get(), 1).find("\"output_tokens\": 16"), std::string::npos);
}

// Two contexts on one graph share the weights: the second costs its KV cache and buffers, not
// another copy of the model. Releasing the graph gives the weights back at once.
TEST(LlamaPlugin, ContextsShareWeightsAndReleaseFreesThem) {
  const std::string bench = fixtures_dir() + "/llama/bench.gguf";
  const size_t model_bytes = read_file(bench).size();
  const size_t before = resident_bytes();
  int status = -1;
  std::string detail;
  auto g = load_path(bench, "{\"temp\": 0, \"ctx-size\": 256, \"n-predict\": 4, \"threads\": 1}", &status, &detail);
  ASSERT_EQ(status, WASINN_OK) << detail;
  auto c1 = make_context(g.get());
  ASSERT_EQ(set_text(c1.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c1.get()), WASINN_OK);
  const size_t one = resident_bytes();
  auto c2 = make_context(g.get());
  ASSERT_EQ(set_text(c2.get(), 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c2.get()), WASINN_OK);
  const size_t two = resident_bytes();
  EXPECT_GT(one - before, model_bytes / 2) << "the first context touches the weights";
  EXPECT_LT(two - one, model_bytes / 4) << "the second context must not copy them";
  c1.reset();
  c2.reset();
  g.reset();
  EXPECT_LT(resident_bytes(), one - model_bytes / 2) << "graph_release frees the weights";
}

}  // namespace
}  // namespace llama_test
