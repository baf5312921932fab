// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The graph's shared context (backends/llamacpp/shared_context.h) through the plugin's table:
// concurrent generations decoded in one batch per step give the tokens native llama.cpp gives each
// alone; the prompt cache gives a cold run's tokens and stays within its partition; a cancelled
// generation leaves the others running and nothing in the cache.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "llama_native.h"
#include "plugin_harness.h"
#include "probe_run.h"

namespace wasinn_test {
namespace {

const wasinn_backend_api& api() { return plugin_api("llamacpp"); }
Backend& backend() {
  static Backend b(api());
  return b;
}

constexpr uint32_t kCtx = 256;
constexpr int kPredict = 24;

Graph tiny(int parallel) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.paths = {tiny_model()};
  args.config =
      nlohmann::json{{"temp", 0}, {"ctx-size", kCtx}, {"n-predict", kPredict}, {"threads", 1}, {"parallel", parallel}}
          .dump();
  Graph g;
  Diag d;
  EXPECT_EQ(load(backend(), args, g, d), WASINN_OK) << d.detail;
  return g;
}

int set_text(wasinn_context* c, uint32_t index, const std::string& text) {
  Diag d;
  const int s = set_input(api(), c, by_index(index), WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())},
                          std::vector<uint8_t>(text.begin(), text.end()), d);
  EXPECT_EQ(s, WASINN_OK) << d.detail;
  return s;
}

std::string output_text(wasinn_context* c, uint32_t index) {
  const auto b = output_bytes(api(), c, by_index(index), WASINN_TYPE_U8);
  return {b.begin(), b.end()};
}

int set_partition(wasinn_graph* g, wasinn_context* c, const std::string& partition) {
  Diag d;
  const std::string name = WASINN_PROPERTY_CACHE_PARTITION;
  return api().property_set(g, c, name.data(), name.size(), partition.data(), partition.size(), &d);
}

// One generation: its text and how many prompt tokens the cache held.
struct Answer {
  int status = -1;
  std::string text;
  int cached = -1;
};
// pause: a streamed generation's reader waits that long before each next token.
Answer generate(wasinn_context* c, const std::string& prompt, bool stream,
                std::chrono::milliseconds pause = std::chrono::milliseconds(0)) {
  Answer a;
  if (set_text(c, 0, prompt) != WASINN_OK) return a;
  Diag d;
  if (stream) {
    while ((a.status = api().compute_single(c, &d)) == WASINN_OK) {
      std::this_thread::sleep_for(pause);
      const wasinn_tensor_id id = by_index(0);
      wasinn_tensor t{};
      if (api().get_output_single(c, &id, &t, &d) != WASINN_OK) break;
      a.text.append(static_cast<const char*>(t.data), t.data_length);
    }
    if (a.status == WASINN_END_OF_SEQUENCE) a.status = WASINN_OK;
  } else {
    a.status = api().compute(c, &d);
    a.text = output_text(c, 0);
  }
  a.cached = nlohmann::json::parse(output_text(c, 1))["cached_tokens"].get<int>();
  if (stream) api().fini_single(c, &d);
  return a;
}

std::string native(const std::string& prompt, const std::string& model = tiny_model(), uint32_t n_ctx = kCtx) {
  NativeSettings s;
  s.n_ctx = n_ctx;
  s.n_predict = kPredict;
  return native_generate(model, prompt, s).text();
}

const std::vector<std::string>& prompts() {
  static const std::vector<std::string> p = {"The quick brown fox jumps over the lazy dog.",
                                             "Once upon a time",
                                             "In a hole in the ground there lived a hobbit.",
                                             "It was the best of times, it was the worst of times,",
                                             "Call me Ishmael.",
                                             "All happy families are alike;",
                                             "A screaming comes across the sky.",
                                             "Many years later, as he faced the firing squad,"};
  return p;
}

// Eight generations at once, half whole and half streamed, on a graph of 8 sequences: each one's
// text is native llama.cpp's for its prompt alone (batching changes no greedy answer), three
// rounds over, so later rounds start from the cache the earlier ones left.
TEST(LlamaBatch, ConcurrentGenerationsEqualNativeAlone) {
  std::vector<std::string> want;
  for (const auto& p : prompts()) want.push_back(native(p));
  Graph g = tiny(8);
  std::vector<std::unique_ptr<Context>> contexts;
  for (size_t i = 0; i < prompts().size(); ++i) contexts.push_back(std::make_unique<Context>(api(), g.ptr));
  for (int round = 0; round < 3; ++round) {
    std::vector<Answer> got(prompts().size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < prompts().size(); ++i)
      threads.emplace_back([&, i] { got[i] = generate(contexts[i]->ptr, prompts()[i], i % 2 == 1); });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < prompts().size(); ++i) {
      EXPECT_EQ(got[i].status, WASINN_OK) << "round " << round << ", prompt " << i;
      EXPECT_EQ(got[i].text, want[i]) << "round " << round << ", prompt " << i;
      if (round > 0) EXPECT_GT(got[i].cached, 0) << "round " << round << ": its own prompt was left in the cache";
    }
  }
}

// The shared context's thread samples each generation's next token and decodes it with the
// others' (at most two tokens ahead of its reader): a reader that takes its tokens slowly, beside
// ones that take theirs at once, has its sequence wait for it, and every answer is native's.
TEST(LlamaBatch, ASlowReaderGetsNativesAnswerBesideFastOnes) {
  Graph g = tiny(4);
  std::vector<std::unique_ptr<Context>> contexts;
  for (size_t i = 0; i < 4; ++i) contexts.push_back(std::make_unique<Context>(api(), g.ptr));
  std::vector<Answer> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      got[i] = generate(contexts[i]->ptr, prompts()[i], i != 1, std::chrono::milliseconds(i == 0 ? 30 : 0));
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i].status, WASINN_OK) << "prompt " << i;
    EXPECT_EQ(got[i].text, native(prompts()[i])) << "prompt " << i;
  }
}

// More generations than sequences: the ones without a sequence make contexts of their own, with
// the same answers.
TEST(LlamaBatch, GenerationsBeyondTheSequencesRunOnTheirOwn) {
  Graph g = tiny(2);
  std::vector<std::unique_ptr<Context>> contexts;
  for (size_t i = 0; i < 6; ++i) contexts.push_back(std::make_unique<Context>(api(), g.ptr));
  std::vector<Answer> got(contexts.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < contexts.size(); ++i)
    threads.emplace_back([&, i] { got[i] = generate(contexts[i]->ptr, prompts()[i], false); });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < contexts.size(); ++i) EXPECT_EQ(got[i].text, native(prompts()[i])) << i;
}

// The next turn of a conversation (the first prompt, its answer, more text) reuses the first
// turn's KV and answers as a cold run of the whole prompt does.
TEST(LlamaBatch, CachedPrefixGivesTheColdAnswer) {
  Graph g = tiny(2);
  Context c(api(), g.ptr);
  const std::string first = prompts()[0];
  const Answer one = generate(c.ptr, first, false);
  ASSERT_EQ(one.status, WASINN_OK);
  EXPECT_EQ(one.cached, 0);
  const std::string next = first + one.text + " And then";
  const Answer two = generate(c.ptr, next, true);
  EXPECT_EQ(two.text, native(next));
  const auto prompt_tokens = native_token_count(tiny_model(), first);
  // The first prompt and its answer but the last token, which was sampled, never fed back.
  EXPECT_GE(two.cached, static_cast<int>(prompt_tokens)) << "the whole first prompt came from the cache";
}

// A stream its caller leaves midway (as a client that has what it wanted) while its next token is
// being decoded ahead: the sequence is given back once that decode ends, its KV kept, and the
// next turn reuses it and gives native's answer.
TEST(LlamaBatch, AStreamLeftMidwayKeepsItsKVForTheNextTurn) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.config =
      nlohmann::json{{"temp", 0}, {"ctx-size", kCtx}, {"n-predict", -1}, {"threads", 1}, {"parallel", 2}}.dump();
  Graph g;
  Diag d;
  ASSERT_EQ(load(backend(), args, g, d), WASINN_OK) << d.detail;
  Context c(api(), g.ptr);
  const std::string first = prompts()[3];
  ASSERT_EQ(set_text(c.ptr, 0, first), WASINN_OK);
  std::string text;
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(api().compute_single(c.ptr, &d), WASINN_OK) << d.detail;
    const wasinn_tensor_id id = by_index(0);
    wasinn_tensor t{};
    ASSERT_EQ(api().get_output_single(c.ptr, &id, &t, &d), WASINN_OK) << d.detail;
    text.append(static_cast<const char*>(t.data), t.data_length);
  }
  ASSERT_EQ(api().fini_single(c.ptr, &d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_text(c.ptr, 1, "{\"n-predict\": 24}"), WASINN_OK);
  const std::string next = first + text + " And then";
  const Answer two = generate(c.ptr, next, false);
  EXPECT_EQ(two.text, native(next));
  EXPECT_GE(two.cached, static_cast<int>(native_token_count(tiny_model(), first)));
}

Graph tiny_with(int parallel, int64_t cache_ram_mib) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.config = nlohmann::json{{"temp", 0},    {"ctx-size", kCtx},     {"n-predict", kPredict},
                               {"threads", 1}, {"parallel", parallel}, {"cache-ram", cache_ram_mib}}
                    .dump();
  Graph g;
  Diag d;
  EXPECT_EQ(load(backend(), args, g, d), WASINN_OK) << d.detail;
  return g;
}

// A conversation whose sequence two other prompts took (two sequences) comes back from host memory
// ("cache-ram", as llama-server's): its next turn reuses its first turn's KV and answers as a cold
// run; only in its own partition; with "cache-ram" 0 it is evaluated again.
TEST(LlamaBatch, ASavedConversationComesBackFromHostMemory) {
  const std::string first = prompts()[0];
  for (const int64_t mib : {64, 0}) {
    Graph g = tiny_with(2, mib);
    Context a(api(), g.ptr), b(api(), g.ptr), c(api(), g.ptr), other_key(api(), g.ptr);
    ASSERT_EQ(set_partition(g.ptr, a.ptr, "key-a"), WASINN_OK);
    ASSERT_EQ(set_partition(g.ptr, b.ptr, "key-a"), WASINN_OK);
    ASSERT_EQ(set_partition(g.ptr, c.ptr, "key-a"), WASINN_OK);
    ASSERT_EQ(set_partition(g.ptr, other_key.ptr, "key-b"), WASINN_OK);
    const Answer one = generate(a.ptr, first, false);
    ASSERT_EQ(one.status, WASINN_OK);
    // Two other conversations take both sequences: the first one's KV leaves its sequence.
    EXPECT_EQ(generate(b.ptr, prompts()[2], false).text, native(prompts()[2]));
    EXPECT_EQ(generate(c.ptr, prompts()[3], true).text, native(prompts()[3]));
    const std::string next = first + one.text + " And then";
    EXPECT_LE(generate(other_key.ptr, next, false).cached, 1) << mib << " MiB: another key's saved prompt";
    const Answer two = generate(a.ptr, next, true);
    EXPECT_EQ(two.text, native(next)) << mib << " MiB";
    if (mib > 0) {
      EXPECT_GE(two.cached, static_cast<int>(native_token_count(tiny_model(), first)))
          << "the first turn's KV came back from host memory";
    } else {
      EXPECT_LE(two.cached, 1) << "without cache-ram, nothing but a sequence's own KV is reused";
    }
  }
}

// A new prompt whose sequence must first be saved to host memory (which waits for a step to end)
// gets in while another generation keeps the steps running back to back: it is answered, as
// native's, before that generation reaches its end (it waited for that end before). On the bench
// model, whose steps are slow enough that the long generation's reader never lets them pause.
TEST(LlamaBatch, APromptThatSavesASequenceDoesNotWaitForTheOthersToEnd) {
  const std::string bench = (fixtures_dir() / "llama/bench.gguf").string();
  LoadArgs args = model_args("ggml", {read_file(bench)});
  args.config = nlohmann::json{{"temp", 0},    {"ctx-size", 1024}, {"n-predict", kPredict},
                               {"threads", 1}, {"parallel", 2},    {"cache-ram", 64}}
                    .dump();
  Graph g;
  Diag d;
  ASSERT_EQ(load(backend(), args, g, d), WASINN_OK) << d.detail;
  Context a(api(), g.ptr), b(api(), g.ptr), c(api(), g.ptr);
  // Both sequences hold a prompt and its answer, more than a save's minimum.
  ASSERT_EQ(generate(b.ptr, prompts()[2], false).status, WASINN_OK);
  ASSERT_EQ(generate(c.ptr, prompts()[3], false).status, WASINN_OK);
  ASSERT_EQ(set_text(a.ptr, 1, "{\"n-predict\": 400}"), WASINN_OK);
  ASSERT_EQ(set_text(a.ptr, 0, prompts()[4]), WASINN_OK);
  std::atomic<int> tokens{0};
  std::atomic<bool> b_done{false};
  std::atomic<int> a_status{-1};
  std::thread reader([&] {
    Diag rd;
    while (!b_done && (a_status = api().compute_single(a.ptr, &rd)) == WASINN_OK) ++tokens;
    api().fini_single(a.ptr, &rd);
  });
  while (tokens < 4 && a_status <= WASINN_OK) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const Answer other = generate(b.ptr, prompts()[6], false);
  b_done = true;
  reader.join();
  EXPECT_EQ(other.text, native(prompts()[6], bench, 1024));
  EXPECT_EQ(a_status.load(), WASINN_OK) << "the long generation ended (status " << a_status << ", " << tokens
                                        << " tokens) before the new prompt was answered";
}

// A partition reuses only its own KV: the same prompt under another partition is evaluated again.
TEST(LlamaBatch, PartitionsShareNoKV) {
  Graph g = tiny(4);
  Context a(api(), g.ptr), b(api(), g.ptr), a2(api(), g.ptr);
  ASSERT_EQ(set_partition(g.ptr, a.ptr, "key-a"), WASINN_OK);
  ASSERT_EQ(set_partition(g.ptr, b.ptr, "key-b"), WASINN_OK);
  ASSERT_EQ(set_partition(g.ptr, a2.ptr, "key-a"), WASINN_OK);
  const std::string p = prompts()[2];
  EXPECT_EQ(generate(a.ptr, p, false).cached, 0);
  const Answer other = generate(b.ptr, p, false);
  EXPECT_EQ(other.cached, 0) << "another partition's prompt never hits the cache";
  EXPECT_EQ(other.text, native(p));
  EXPECT_GT(generate(a2.ptr, p, false).cached, 0) << "its own partition's does";
}

// A generation cancelled midway ends with timeout while the others run on to native's answers, and
// leaves nothing in the cache: its prompt, run again, is evaluated from the start.
TEST(LlamaBatch, CancelledGenerationLeavesTheOthersAndNoKV) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.config =
      nlohmann::json{{"temp", 0}, {"ctx-size", 2048}, {"n-predict", -1}, {"threads", 1}, {"parallel", 4}}.dump();
  Graph g;
  Diag d;
  ASSERT_EQ(load(backend(), args, g, d), WASINN_OK) << d.detail;
  Context victim(api(), g.ptr);
  std::vector<std::unique_ptr<Context>> others;
  for (int i = 0; i < 3; ++i) others.push_back(std::make_unique<Context>(api(), g.ptr));
  const std::string long_prompt = prompts()[5];
  std::atomic<bool> done{false};
  int victim_status = -1;
  std::thread victim_thread([&] {
    set_text(victim.ptr, 0, long_prompt);
    Diag vd;
    victim_status = api().compute(victim.ptr, &vd);
    done = true;
  });
  std::vector<std::string> want, got(others.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < others.size(); ++i) {
    want.push_back(native(prompts()[i]));
    threads.emplace_back([&, i] {
      set_text(others[i]->ptr, 1, "{\"n-predict\": 24}");
      got[i] = generate(others[i]->ptr, prompts()[i], i == 1).text;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  while (!done) {
    api().cancel(victim.ptr);  // as the host's deadline does: again until compute returns
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  victim_thread.join();
  for (auto& t : threads) t.join();
  EXPECT_EQ(victim_status, WASINN_TIMEOUT);
  for (size_t i = 0; i < others.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
  ASSERT_EQ(set_text(victim.ptr, 1, "{\"n-predict\": 4}"), WASINN_OK);
  // At most the BOS token every prompt starts with, from another sequence.
  EXPECT_LE(generate(victim.ptr, long_prompt, false).cached, 1) << "a cut generation leaves no KV to reuse";
}

}  // namespace
}  // namespace wasinn_test
