// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The llamacpp plugin through its C table, as the host drives it: config handling, errors with
// details, slots by index and by name, log lines to the host's sink, streaming state,
// concurrency, cancellation, weight sharing and release.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "plugin_harness.h"
#include "probe_run.h"

namespace wasinn_test {
namespace {

const std::string kPrompt = "The quick brown fox jumps over the lazy dog. Once upon a time";
const std::string kGreedy = "{\"temp\": 0, \"ctx-size\": 128, \"n-predict\": 16, \"threads\": 1}";

// The host's log as the plugin feeds it: a sink showing warnings and errors, as a host at
// --log-level info would install it.
struct LogLine {
  int32_t level;
  std::string text;
};
class LogCapture {
 public:
  static void write(void* self, int32_t level, const char* message, size_t length) {
    auto* c = static_cast<LogCapture*>(self);
    std::lock_guard lock(c->mu_);
    c->lines_.push_back({level, std::string(message, length)});
  }
  // The lines logged since the last take().
  std::vector<LogLine> take() {
    std::lock_guard lock(mu_);
    return std::exchange(lines_, {});
  }

 private:
  std::mutex mu_;
  std::vector<LogLine> lines_;
};
LogCapture& host_log() {
  static LogCapture capture;
  return capture;
}

// The plugin's table, with the log sink installed before any backend exists, as the host does.
const wasinn_backend_api& api() {
  static const wasinn_backend_api& table = []() -> const wasinn_backend_api& {
    const wasinn_backend_api& t = plugin_api("llamacpp");
    const wasinn_log_sink sink{&host_log(), LogCapture::write, WASINN_LOG_WARN};
    t.set_log_sink(&sink);
    return t;
  }();
  return table;
}

Backend& backend() {  // no config: guests may not name host files
  static Backend b(api());
  return b;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string file_text(const std::string& path) {
  const auto b = read_file(path);
  return {b.begin(), b.end()};
}

struct Loaded {
  Graph graph;
  int status = -1;
  std::string detail;
};

// Loads by path, as the host does for a preloaded model (the bytes are the mapped file).
Loaded load_path(const std::string& path, const std::string& config, Backend& b = backend()) {
  LoadArgs args = model_args("ggml", {read_file(path)});
  args.paths = {path};
  args.config = config;
  Loaded r;
  Diag d;
  r.status = load(b, args, r.graph, d);
  r.detail = d.detail;
  return r;
}

// Loads from builders given as strings (model bytes, "preload:...", a config JSON).
Loaded load_builders(const std::vector<std::string>& builders, Backend& b = backend()) {
  std::vector<std::vector<uint8_t>> raw;
  for (const auto& s : builders) raw.push_back(bytes(s));
  Loaded r;
  Diag d;
  r.status = load(b, model_args("ggml", std::move(raw)), r.graph, d);
  r.detail = d.detail;
  return r;
}

Graph tiny(const std::string& config = kGreedy) {
  Loaded r = load_path(tiny_model(), config);
  EXPECT_EQ(r.status, WASINN_OK) << r.detail;
  return std::move(r.graph);
}

int set_text(wasinn_context* c, wasinn_tensor_id id, const std::string& text, std::string* detail = nullptr) {
  Diag d;
  const int s = set_input(api(), c, id, WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())}, bytes(text), d);
  if (detail) *detail = d.detail;
  return s;
}
int set_text(wasinn_context* c, uint32_t index, const std::string& text, std::string* detail = nullptr) {
  return set_text(c, by_index(index), text, detail);
}

int compute(wasinn_context* c, std::string* detail = nullptr) {
  Diag d;
  const int s = api().compute(c, &d);
  if (detail) *detail = d.detail;
  return s;
}

int compute_single(wasinn_context* c, std::string* detail = nullptr) {
  Diag d;
  const int s = api().compute_single(c, &d);
  if (detail) *detail = d.detail;
  return s;
}

std::string output_text(wasinn_context* c, uint32_t index) {
  const auto b = output_bytes(api(), c, by_index(index), WASINN_TYPE_U8);
  return {b.begin(), b.end()};
}

std::string output_single(wasinn_context* c) {
  const wasinn_tensor_id id = by_index(0);
  wasinn_tensor t{};
  Diag d;
  EXPECT_EQ(api().get_output_single(c, &id, &t, &d), WASINN_OK) << d.detail;
  return std::string(static_cast<const char*>(t.data), t.data_length);
}

// Resident memory of this process in bytes (VmRSS).
size_t resident_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  }
  return 0;
}

// The streamed pieces of one sequence, and the status that ended it.
std::vector<std::string> stream_all(wasinn_context* c, int* end) {
  std::vector<std::string> pieces;
  while ((*end = compute_single(c)) == WASINN_OK) pieces.push_back(output_single(c));
  return pieces;
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string s;
  for (const auto& p : pieces) s += p;
  return s;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(LlamaPlugin, DescribesItsInputsAndOutputs) {
  Graph g = tiny();
  ASSERT_EQ(api().graph_io_count(g.ptr, 0), 4u);
  ASSERT_EQ(api().graph_io_count(g.ptr, 1), 2u);
  wasinn_io_info info{};
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 0, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "prompt");
  EXPECT_EQ(info.type, WASINN_TYPE_U8);
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 1, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "metadata");
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 2, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "messages");
  ASSERT_EQ(api().graph_io_info(g.ptr, 0, 3, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "image");  // for a graph loaded with "mmproj" (llama_vision_test.cpp)
  ASSERT_EQ(api().graph_io_info(g.ptr, 1, 0, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "text");
  ASSERT_EQ(api().graph_io_info(g.ptr, 1, 1, &info), WASINN_OK);
  EXPECT_STREQ(info.name, "metadata");
  EXPECT_EQ(api().graph_io_info(g.ptr, 1, 2, &info), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(api().framework_version()).find("llama.cpp b"), std::string::npos);
}

TEST(LlamaPlugin, WronglyTypedConfigNamesTheKey) {
  Loaded r = load_path(tiny_model(), "{\"n-predict\": 8, \"ctx-size\": \"big\"}");
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(r.detail.find("ctx-size"), std::string::npos) << r.detail;
  r = load_path(tiny_model(), "{\"stream-stdout\": 1}");
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(r.detail.find("stream-stdout"), std::string::npos) << r.detail;
  r = load_path(tiny_model(), "[1, 2]");
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT) << "a config must be an object";
  r = load_path(tiny_model(), "{\"threads\": 1.5}");
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(r.detail.find("\"threads\""), std::string::npos) << r.detail;
  r = load_path(tiny_model(), "{\"threads\": 100000000}");
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT) << "at most 4 threads per hardware thread";
  EXPECT_NE(r.detail.find("between 0 and"), std::string::npos) << r.detail;

  Graph ok = tiny();
  Context c(api(), ok.ptr);
  std::string detail;
  EXPECT_EQ(set_text(c.ptr, 1, "{\"top-p\": 7}", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("top-p"), std::string::npos) << detail;
  EXPECT_EQ(set_text(c.ptr, 1, "{not json", &detail), WASINN_INVALID_ARGUMENT);
}

TEST(LlamaPlugin, UnknownKeysAreLoggedAndIgnored) {
  host_log().take();
  Graph g = tiny("{\"temp\": 0, \"n-predict\": 4, \"threads\": 1, \"no-such-key\": true, \"tensor-split\": \"3,2\"}");
  ASSERT_TRUE(g.ptr);
  std::string log;
  for (const LogLine& l : host_log().take())
    if (has(l.text, "ignoring config key")) {
      EXPECT_EQ(l.level, WASINN_LOG_WARN) << l.text;
      log += l.text + "\n";
    }
  EXPECT_NE(log.find("\"no-such-key\" (unknown key)"), std::string::npos) << log;
  EXPECT_NE(log.find("\"tensor-split\""), std::string::npos) << log;
  Context c(api(), g.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  EXPECT_EQ(output_text(c.ptr, 1).find("\"output_tokens\": 4"), output_text(c.ptr, 1).find("\"output_tokens\""));
}

// llama.cpp's lines reach the host's sink at their own level and never stderr; enable-log (and
// enable-debug-log for the plugin's steps) raises them to the level the host shows; error
// lines also make the detail of the call that failed.
TEST(LlamaPlugin, LlamaLogLinesGoToTheHostNotToStderr) {
  host_log().take();
  testing::internal::CaptureStderr();
  {
    Graph quiet = tiny();
    Context c(api(), quiet.ptr);
    ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
    ASSERT_EQ(compute(c.ptr), WASINN_OK);
  }
  const std::vector<LogLine> quiet = host_log().take();
  {
    Graph loud = tiny(
        "{\"temp\": 0, \"ctx-size\": 128, \"n-predict\": 4, \"threads\": 1, \"enable-log\": true, "
        "\"enable-debug-log\": true}");
    Context c(api(), loud.ptr);
    ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
    ASSERT_EQ(compute(c.ptr), WASINN_OK);
  }
  const std::vector<LogLine> loud = host_log().take();
  const Loaded corrupt = load_builders({file_text((fixtures_dir() / "llama/truncated.gguf").string())});
  const std::vector<LogLine> failed = host_log().take();
  const std::string stderr_text = testing::internal::GetCapturedStderr();
  EXPECT_EQ(stderr_text, "") << "a plugin with a log sink writes nothing to stderr";

  auto joined_lines = [](const std::vector<LogLine>& lines) {
    std::string s;
    for (const LogLine& l : lines) s += std::to_string(l.level) + " " + l.text + "\n";
    return s;
  };
  EXPECT_FALSE(has(joined_lines(quiet), "llama_model_loader")) << "info lines stay below a warn sink";
  bool loader = false, perf = false, step = false;
  for (const LogLine& l : loud) {
    EXPECT_GE(l.level, WASINN_LOG_WARN) << l.text;
    EXPECT_FALSE(has(l.text, "\n")) << "one line per call";
    loader = loader || has(l.text, "llama_model_loader");
    perf = perf || has(l.text, "llama_perf_context_print");
    step = step || has(l.text, "set_input: prompt of");
  }
  EXPECT_TRUE(loader && perf && step) << joined_lines(loud);

  EXPECT_EQ(corrupt.status, WASINN_INVALID_ARGUMENT);
  std::string first_error;
  for (const LogLine& l : failed)
    if (l.level == WASINN_LOG_ERROR && first_error.empty()) first_error = l.text;
  ASSERT_FALSE(first_error.empty()) << joined_lines(failed);
  EXPECT_NE(corrupt.detail.find(first_error.substr(0, 40)), std::string::npos) << corrupt.detail << "\n"
                                                                               << joined_lines(failed);
}

TEST(LlamaPlugin, BadIndicesAndMissingPromptAreInvalidArgument) {
  Graph g = tiny();
  Context c(api(), g.ptr);
  std::string detail;
  EXPECT_EQ(compute(c.ptr, &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("prompt"), std::string::npos) << detail;
  EXPECT_EQ(set_text(c.ptr, 4, "x", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("input index 4"), std::string::npos) << detail;
  const wasinn_tensor_id id = by_index(7);
  wasinn_tensor t{};
  Diag d;
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
}

// The rule of every backend: a slot name the graph does not declare is INVALID_ARGUMENT, and
// the detail lists the names it has; the declared names work like the indices.
TEST(LlamaPlugin, UnknownSlotNamesAreInvalidArgumentListingTheSlots) {
  Graph g = tiny();
  Context c(api(), g.ptr);
  std::string detail;
  ASSERT_EQ(set_text(c.ptr, by_name("metadata"), "{\"n-predict\": 3}", &detail), WASINN_OK) << detail;
  ASSERT_EQ(set_text(c.ptr, by_name("prompt"), kPrompt, &detail), WASINN_OK) << detail;
  ASSERT_EQ(compute(c.ptr, &detail), WASINN_OK) << detail;
  const auto text = output_bytes(api(), c.ptr, by_name("text"), WASINN_TYPE_U8);
  EXPECT_EQ(std::string(text.begin(), text.end()), output_text(c.ptr, 0));
  const auto meta = output_bytes(api(), c.ptr, by_name("metadata"), WASINN_TYPE_U8);
  EXPECT_TRUE(has(std::string(meta.begin(), meta.end()), "\"output_tokens\": 3"));

  EXPECT_EQ(set_text(c.ptr, by_name("question"), kPrompt, &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(detail, "\"question\"") && has(detail, "\"prompt\", \"metadata\"")) << detail;
  EXPECT_EQ(set_text(c.ptr, by_name("text"), kPrompt, &detail), WASINN_INVALID_ARGUMENT)
      << "\"text\" names an output, not an input";

  const std::string answer = "answer";
  const wasinn_tensor_id unknown = by_name(answer);
  wasinn_tensor t{};
  Diag out;
  EXPECT_EQ(api().get_output(c.ptr, &unknown, &t, &out), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(out.detail, "\"answer\"") && has(out.detail, "\"text\", \"metadata\"")) << out.detail;
  Diag single;
  EXPECT_EQ(api().get_output_single(c.ptr, &unknown, &t, &single), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(single.detail, "\"text\", \"metadata\"")) << single.detail;
}

// WasmEdge's Rust guests send prompt and metadata as U8 with dims [1] whatever their length;
// the plugin reads the bytes and ignores the dims (the host must let such tensors through).
TEST(LlamaPlugin, PromptAndMetadataIgnoreDims) {
  Graph g = tiny();
  Context reference(api(), g.ptr);
  ASSERT_EQ(set_text(reference.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(reference.ptr), WASINN_OK);
  Context c(api(), g.ptr);
  const uint32_t one[1] = {1};
  const std::string meta = "{\"n-predict\": 5}";
  const wasinn_tensor m{WASINN_TYPE_U8, 1, one, meta.data(), meta.size()};
  const wasinn_tensor p{WASINN_TYPE_U8, 1, one, kPrompt.data(), kPrompt.size()};
  const wasinn_tensor_id id0 = by_index(0), id1 = by_index(1);
  Diag d;
  ASSERT_EQ(api().set_input(c.ptr, &id1, &m, &d), WASINN_OK) << d.detail;
  ASSERT_EQ(api().set_input(c.ptr, &id0, &p, &d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  const std::string full = output_text(reference.ptr, 0), five = output_text(c.ptr, 0);
  EXPECT_FALSE(five.empty());
  EXPECT_EQ(full.substr(0, five.size()), five) << "the first 5 tokens of the same greedy answer";
  EXPECT_NE(output_text(c.ptr, 1).find("\"output_tokens\": 5"), std::string::npos);
}

TEST(LlamaPlugin, ArbitraryBytesAreAnErrorOrAPromptNeverACrash) {
  Graph g = tiny("{\"temp\": 0, \"n-predict\": 2, \"threads\": 1}");
  Context c(api(), g.ptr);
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));  // invalid UTF-8, NULs
  std::string detail;
  EXPECT_EQ(set_text(c.ptr, 1, bytes, &detail), WASINN_INVALID_ARGUMENT) << detail;
  EXPECT_EQ(set_text(c.ptr, 1, "", &detail), WASINN_INVALID_ARGUMENT) << "an empty config is not JSON";
  EXPECT_EQ(set_text(c.ptr, 1, "{\"n-predict\": 1e300}", &detail), WASINN_INVALID_ARGUMENT) << detail;
  EXPECT_EQ(set_text(c.ptr, 1, "{\"seed\": -2}", &detail), WASINN_INVALID_ARGUMENT) << detail;
  ASSERT_EQ(set_text(c.ptr, 0, bytes), WASINN_OK) << "any bytes tokenize (byte fallback)";
  EXPECT_EQ(compute(c.ptr), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, ""), WASINN_OK) << "an empty prompt is BOS alone";
  EXPECT_EQ(compute(c.ptr), WASINN_OK);
  EXPECT_NE(output_text(c.ptr, 1).find("\"input_tokens\": 1"), std::string::npos);
}

// Input 2: a chat through the model's template. The tiny GGUF has none, so llama.cpp's chat
// layer uses chatml, whose text is known: the answer equals the one to that text given as the
// prompt, and the metadata adds the answer parsed as the assistant's message.
// (llama_chat_test.cpp compares input 2 with llama-server.)
TEST(LlamaPlugin, MessagesGoThroughTheChatTemplate) {
  Graph g = tiny();
  Context chat(api(), g.ptr), plain(api(), g.ptr);
  const std::string messages = R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}])";
  ASSERT_EQ(set_text(chat.ptr, by_name("messages"), messages), WASINN_OK);
  ASSERT_EQ(compute(chat.ptr), WASINN_OK);
  const std::string chatml =
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n";
  ASSERT_EQ(set_text(plain.ptr, 0, chatml), WASINN_OK);
  ASSERT_EQ(compute(plain.ptr), WASINN_OK);
  const std::string answer = output_text(chat.ptr, 0);
  EXPECT_FALSE(answer.empty());
  EXPECT_EQ(answer, output_text(plain.ptr, 0));
  auto meta = nlohmann::json::parse(output_text(chat.ptr, 1));
  const auto message = meta["message"];
  EXPECT_EQ(meta["finish"], "length") << "16 tokens of n-predict 16";
  meta.erase("message");
  meta.erase("finish");
  auto plain_meta = nlohmann::json::parse(output_text(plain.ptr, 1));
  // The plain prompt is the chat's, token for token: the prompt cache held all but its last.
  EXPECT_EQ(plain_meta["cached_tokens"], plain_meta["input_tokens"].get<int>() - 1);
  meta.erase("cached_tokens");
  plain_meta.erase("cached_tokens");
  EXPECT_EQ(meta, plain_meta) << "the same prompt tokens";
  EXPECT_EQ(message, (nlohmann::json{{"role", "assistant"}, {"content", answer}}));

  // Not a chat: invalid-argument saying what to give, and the context still answers after it.
  std::string detail;
  for (const char* bad : {"{", "[]", "{}", R"([{"role": "user"}])", R"([{"role": 1, "content": "x"}])", "[1]"}) {
    EXPECT_EQ(set_text(chat.ptr, 2, bad, &detail), WASINN_INVALID_ARGUMENT) << bad;
    EXPECT_NE(detail.find("messages"), std::string::npos) << detail;
  }
  ASSERT_EQ(compute(chat.ptr), WASINN_OK);
  EXPECT_EQ(output_text(chat.ptr, 0), answer);
}

TEST(LlamaPlugin, StreamEqualsComputeAndRestartsAfterFini) {
  Graph g = tiny();
  Context c(api(), g.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  const std::string text = output_text(c.ptr, 0);
  int end = 0;
  const auto pieces = stream_all(c.ptr, &end);
  EXPECT_EQ(end, WASINN_END_OF_SEQUENCE);
  EXPECT_EQ(pieces.size(), 16u);
  EXPECT_EQ(joined(pieces), text);
  EXPECT_EQ(output_text(c.ptr, 0), text) << "get_output after streaming holds the whole answer";
  EXPECT_EQ(compute_single(c.ptr), WASINN_END_OF_SEQUENCE) << "an ended sequence stays ended";
  Diag d;
  ASSERT_EQ(api().fini_single(c.ptr, &d), WASINN_OK);
  const auto again = stream_all(c.ptr, &end);
  EXPECT_EQ(again, pieces) << "after fini_single the same prompt starts over";
}

// The token metrics the host reads after each call (context_take_token_stats): a compute's whole
// generation at once, a stream a token a call, each counted once.
TEST(LlamaPlugin, TokenStatsCountEachGenerationOnce) {
  ASSERT_NE(api().context_take_token_stats, nullptr);
  Graph g = tiny();
  Context c(api(), g.ptr);
  auto take = [&] {
    wasinn_token_stats t{};
    t.struct_size = sizeof t;
    EXPECT_EQ(api().context_take_token_stats(c.ptr, &t), WASINN_OK);
    return t;
  };
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(take().generated_tokens, 0u) << "nothing generated yet";
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  const auto meta = nlohmann::json::parse(output_text(c.ptr, 1));
  const uint64_t n_prompt = meta["input_tokens"];
  wasinn_token_stats t = take();
  EXPECT_EQ(t.prompt_tokens, n_prompt);
  EXPECT_EQ(t.generated_tokens, 16u);
  EXPECT_EQ(t.first_tokens, 1u);
  EXPECT_GT(t.first_token_nanos, 0u);
  EXPECT_EQ(t.decode_tokens, 15u);
  EXPECT_GT(t.decode_nanos, 0u);
  t = take();
  EXPECT_EQ(t.prompt_tokens + t.generated_tokens + t.first_tokens + t.decode_tokens, 0u) << "taken once";
  // Streamed: the first call evaluates the prompt and makes the first token, each next one a token.
  ASSERT_EQ(compute_single(c.ptr), WASINN_OK);
  t = take();
  EXPECT_EQ(t.prompt_tokens, n_prompt);
  EXPECT_EQ(t.generated_tokens, 1u);
  EXPECT_EQ(t.first_tokens, 1u);
  EXPECT_EQ(t.decode_tokens, 0u);
  ASSERT_EQ(compute_single(c.ptr), WASINN_OK);
  t = take();
  EXPECT_EQ(t.prompt_tokens, 0u);
  EXPECT_EQ(t.generated_tokens, 1u);
  EXPECT_EQ(t.first_tokens, 0u);
  EXPECT_EQ(t.decode_tokens, 1u);
  // The end of the sequence generates nothing more.
  int end = 0;
  const auto rest = stream_all(c.ptr, &end);
  EXPECT_EQ(take().generated_tokens, rest.size());
  EXPECT_EQ(rest.size(), 14u);
  Diag d;
  ASSERT_EQ(api().fini_single(c.ptr, &d), WASINN_OK);
  EXPECT_EQ(take().generated_tokens, 0u);
}

TEST(LlamaPlugin, ContextsOnTwoThreadsMatchSequentialRuns) {
  Graph g = tiny();
  const std::string other = "In a hole in the ground there lived a hobbit.";
  Context seq(api(), g.ptr);
  ASSERT_EQ(set_text(seq.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(seq.ptr), WASINN_OK);
  const std::string a = output_text(seq.ptr, 0);
  ASSERT_EQ(set_text(seq.ptr, 0, other), WASINN_OK);
  ASSERT_EQ(compute(seq.ptr), WASINN_OK);
  const std::string b = output_text(seq.ptr, 0);

  Context c1(api(), g.ptr);
  Context c2(api(), g.ptr);
  std::string r1, r2;
  std::thread t1([&] {
    for (int i = 0; i < 3; ++i) {
      if (set_text(c1.ptr, 0, kPrompt) == WASINN_OK && compute(c1.ptr) == WASINN_OK) r1 += output_text(c1.ptr, 0) + "|";
    }
  });
  std::thread t2([&] {
    for (int i = 0; i < 3; ++i) {
      int end = 0;
      if (set_text(c2.ptr, 0, other) == WASINN_OK) r2 += joined(stream_all(c2.ptr, &end)) + "|";
    }
  });
  t1.join();
  t2.join();
  EXPECT_EQ(r1, a + "|" + a + "|" + a + "|");
  EXPECT_EQ(r2, b + "|" + b + "|" + b + "|");
}

TEST(LlamaPlugin, CancelStopsALongGenerationWithTimeout) {
  Graph g = tiny("{\"temp\": 0, \"ctx-size\": 4096, \"n-predict\": -1, \"threads\": 1}");
  Context c(api(), g.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  std::atomic<bool> done{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!done) api().cancel(c.ptr);
  });
  std::string detail;
  const auto t0 = std::chrono::steady_clock::now();
  const int status = compute(c.ptr, &detail);
  done = true;
  canceller.join();
  EXPECT_EQ(status, WASINN_TIMEOUT) << detail;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  // The context still works afterwards.
  ASSERT_EQ(set_text(c.ptr, 1, "{\"n-predict\": 3}"), WASINN_OK);
  EXPECT_EQ(compute(c.ptr), WASINN_OK);
}

TEST(LlamaPlugin, ContextOptionsAreChangedPerContextWithoutTouchingOthers) {
  Graph g = tiny();
  Context small(api(), g.ptr);
  Context normal(api(), g.ptr);
  std::string detail;
  ASSERT_EQ(set_text(small.ptr, 1, "{\"ctx-size\": 8}"), WASINN_OK);
  ASSERT_EQ(set_text(small.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute(small.ptr, &detail), WASINN_PROMPT_TOO_LONG);
  EXPECT_NE(detail.find("tokens"), std::string::npos) << detail;
  EXPECT_EQ(compute_single(small.ptr), WASINN_PROMPT_TOO_LONG);
  ASSERT_EQ(set_text(normal.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute(normal.ptr), WASINN_OK);
  // Growing the small context again recreates its llama_context; the model is untouched.
  ASSERT_EQ(set_text(small.ptr, 1, "{\"ctx-size\": 128}"), WASINN_OK);
  EXPECT_EQ(compute(small.ptr), WASINN_OK);
  EXPECT_EQ(output_text(small.ptr, 0), output_text(normal.ptr, 0));
}

// OpenAI's max_tokens in one property: over the context it is refused at the generation's start
// with the numbers; within it, it replaces n-predict up to the room the prompt leaves (-1: all).
TEST(LlamaPlugin, MaxTokensIsRefusedOverTheContextAndEndsAtTheRoomLeft) {
  Graph g = tiny();  // ctx-size 128, n-predict 16
  Context c(api(), g.ptr);
  std::string detail;
  ASSERT_EQ(set_text(c.ptr, 1, "{\"max-tokens\": 129}"), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_single(c.ptr, &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_TRUE(has(detail, "max-tokens is 129, over the context's 128 tokens")) << detail;

  ASSERT_EQ(set_text(c.ptr, 1, "{\"max-tokens\": 20}"), WASINN_OK);  // over n-predict's 16: it replaces it
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  int end = 0;
  EXPECT_EQ(stream_all(c.ptr, &end).size(), 20u);
  EXPECT_EQ(end, WASINN_END_OF_SEQUENCE);

  // -1: the room after the prompt, so the usage never passes the context (a 32-token context).
  Context room(api(), g.ptr);
  ASSERT_EQ(set_text(room.ptr, 1, "{\"ctx-size\": 32, \"max-tokens\": -1}"), WASINN_OK);
  ASSERT_EQ(set_text(room.ptr, 0, kPrompt), WASINN_OK);
  const size_t pieces = stream_all(room.ptr, &end).size();
  const auto meta = nlohmann::json::parse(output_text(room.ptr, 1));
  EXPECT_EQ(meta["input_tokens"].get<size_t>() + pieces, 32u) << meta.dump();
  EXPECT_EQ(end, WASINN_END_OF_SEQUENCE);
}

TEST(LlamaPlugin, ReversePromptEndsTheAnswer) {
  Graph g = tiny();
  Context c(api(), g.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  int end = 0;
  const auto pieces = stream_all(c.ptr, &end);
  ASSERT_GE(pieces.size(), 4u);
  // Stop at the third piece's text: the answer ends with the first piece that completes it.
  const std::string stop = pieces[2];
  std::string expected;
  for (const auto& p : pieces) {
    expected += p;
    if (expected.find(stop) != std::string::npos) break;
  }
  ASSERT_EQ(set_text(c.ptr, 1, "{\"reverse-prompt\": " + nlohmann::json(stop).dump() + "}"), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  EXPECT_EQ(output_text(c.ptr, 0), expected);
}

TEST(LlamaPlugin, EmbeddingIsF32WhenAskedAndNotStreamed) {
  // witx's default is WasmEdge's JSON text (llama_schema_test.cpp); f32 when asked for.
  Graph g = tiny("{\"embedding\": true, \"embedding-output\": \"f32\", \"threads\": 1}");
  Context c(api(), g.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  const wasinn_tensor_id id = by_index(0);
  wasinn_tensor t{};
  Diag d;
  ASSERT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_OK);
  EXPECT_EQ(t.type, WASINN_TYPE_F32);
  ASSERT_EQ(t.rank, 1u);
  EXPECT_EQ(t.dims[0], 64u);
  EXPECT_EQ(t.data_length, 64u * 4);
  EXPECT_EQ(compute_single(c.ptr), WASINN_UNSUPPORTED_OPERATION);
}

TEST(LlamaPlugin, ModelSourcesAndCorruptModels) {
  Loaded r = load_builders({});
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  r = load_builders({"not a model"});
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(r.detail.find("GGUF"), std::string::npos) << r.detail;
  r = load_builders({file_text((fixtures_dir() / "llama/truncated.gguf").string())});
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(r.detail.find("could not load"), std::string::npos) << r.detail;
  r = load_builders({"preload:" + tiny_model()});
  EXPECT_EQ(r.status, WASINN_SECURITY) << "guests may not name host files unless the backend config allows it";

  const std::string bad_config = "{\"allow-preload-paths\": 1}";
  wasinn_backend* refused = nullptr;
  Diag d;
  EXPECT_EQ(api().backend_create(bad_config.data(), bad_config.size(), &refused, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("allow-preload-paths"), std::string::npos) << d.detail;

  {
    Backend open(api(), "{\"allow-preload-paths\": true}");
    ASSERT_NE(open.ptr, nullptr);
    r = load_builders({"preload:" + tiny_model(), kGreedy}, open);
    EXPECT_EQ(r.status, WASINN_OK) << r.detail;
    r.graph = Graph();
    r = load_builders({"preload:/no/such/model.gguf"}, open);
    EXPECT_EQ(r.status, WASINN_MODEL_NOT_FOUND) << r.detail;
  }

  // Guest bytes with a trailing config builder: the config applies (n-predict 16).
  r = load_builders({file_text(tiny_model()), kGreedy});
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(api(), r.graph.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c.ptr), WASINN_OK);
  EXPECT_NE(output_text(c.ptr, 1).find("\"output_tokens\": 16"), std::string::npos);
}

// Two contexts on one graph share the weights: the second costs its KV cache and buffers, not
// another copy of the model. Releasing the graph gives the weights back at once.
TEST(LlamaPlugin, ContextsShareWeightsAndReleaseFreesThem) {
  const std::string bench = (fixtures_dir() / "llama/bench.gguf").string();
  // The file's size, not its bytes: a read would leave them resident (ASan's quarantine keeps
  // freed blocks) and hide the weights' cost.
  const size_t model_bytes = std::filesystem::file_size(bench);
  const size_t before = resident_bytes();
  Loaded r = load_path(bench, "{\"temp\": 0, \"ctx-size\": 256, \"n-predict\": 4, \"threads\": 1}");
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  std::optional<Context> c1, c2;
  c1.emplace(api(), r.graph.ptr);
  ASSERT_EQ(set_text(c1->ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c1->ptr), WASINN_OK);
  const size_t one = resident_bytes();
  c2.emplace(api(), r.graph.ptr);
  ASSERT_EQ(set_text(c2->ptr, 0, kPrompt), WASINN_OK);
  ASSERT_EQ(compute(c2->ptr), WASINN_OK);
  const size_t two = resident_bytes();
  EXPECT_GT(one - before, model_bytes / 2) << "the first context touches the weights";
  EXPECT_LT(two - one, model_bytes / 4) << "the second context must not copy them";
  c1.reset();
  c2.reset();
  r.graph = Graph();
  EXPECT_LT(resident_bytes(), one - model_bytes / 2) << "graph_release frees the weights";
}

}  // namespace
}  // namespace wasinn_test
