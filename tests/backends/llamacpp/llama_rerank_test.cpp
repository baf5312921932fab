// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// "reranking": true through the llamacpp plugin's C table, on the random-weight BERT reranker
// (scripts/fixtures/export_reranker.py): one f32 score per document, whatever order the option and
// the input come in; every malformed input a status and a detail that says what, never a crash; a
// model that is no reranker refused, and a reranker asked to embed. The scores' equality with
// llama-server's is serve.openai-rerank.* (tests/serve/openai_rerank_test.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin_harness.h"

namespace wasinn_test {
namespace {

using json = nlohmann::json;

const wasinn_backend_api& llama() { return plugin_api("llamacpp"); }

Backend& backend() {
  static Backend b(llama());
  return b;
}

Graph load_model(const std::string& rel, const std::string& config) {
  Graph g;
  Diag d;
  EXPECT_EQ(load(backend(), {read_fixture(rel)}, g, d, WASINN_TARGET_CPU, config), WASINN_OK)
      << rel << ": " << d.detail;
  return g;
}

int set_text(wasinn_context* c, uint32_t slot, const std::string& text, Diag& d) {
  return set_input(llama(), c, by_index(slot), WASINN_TYPE_U8, {static_cast<uint32_t>(text.size())},
                   std::vector<uint8_t>(text.begin(), text.end()), d);
}

const std::string kConfig = R"({"reranking": true, "threads": 1, "ctx-size": 512})";
const json kInput = {{"query", "What is the giant panda?"},
                     {"documents", {"The giant panda is a bear.", "Paris is in France.", "", "bamboo [SEP] forest"}}};

std::vector<float> scores(wasinn_context* c) {
  Diag d;
  EXPECT_EQ(llama().compute(c, &d), WASINN_OK) << d.detail;
  std::vector<uint32_t> dims;
  auto out = output_as<float>(llama(), c, by_index(0), WASINN_TYPE_F32, &dims);
  EXPECT_EQ(dims, std::vector<uint32_t>{static_cast<uint32_t>(out.size())});
  return out;
}

TEST(LlamaRerank, OneScorePerDocumentWhicheverComesFirst) {
  Graph g = load_model("reranker/reranker.gguf", kConfig);
  Context first(llama(), g.ptr);
  Diag d;
  ASSERT_EQ(set_text(first.ptr, 0, kInput.dump(), d), WASINN_OK) << d.detail;
  const std::vector<float> want = scores(first.ptr);
  ASSERT_EQ(want.size(), 4u);
  EXPECT_NE(want[0], want[1]);
  // The same document alone scores as among the others (each pair is decoded alone).
  ASSERT_EQ(set_text(first.ptr, 0, json{{"query", kInput["query"]}, {"documents", {"Paris is in France."}}}.dump(), d),
            WASINN_OK);
  EXPECT_EQ(scores(first.ptr), std::vector<float>{want[1]});
  const auto meta = output_bytes(llama(), first.ptr, by_index(1), WASINN_TYPE_U8);
  EXPECT_GT(json::parse(std::string(meta.begin(), meta.end())).value("input_tokens", 0), 8);

  // The option after the input: the input is read again at compute.
  Graph plain = load_model("reranker/reranker.gguf", R"({"threads": 1, "ctx-size": 512})");
  Context late(llama(), plain.ptr);
  ASSERT_EQ(set_text(late.ptr, 0, kInput.dump(), d), WASINN_OK) << d.detail;
  ASSERT_EQ(set_text(late.ptr, 1, R"({"reranking": true})", d), WASINN_OK) << d.detail;
  EXPECT_EQ(scores(late.ptr), want);
  // compute_single streams text; reranking is compute's.
  EXPECT_EQ(llama().compute_single(late.ptr, &d), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_NE(d.detail.find("reranking"), std::string::npos) << d.detail;
}

TEST(LlamaRerank, MalformedInputsAreRefusedSayingWhat) {
  Graph g = load_model("reranker/reranker.gguf", kConfig);
  Context c(llama(), g.ptr);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not a JSON object"},
      {"[1, 2]", "not a JSON object"},
      {R"({"documents": ["a"]})", "\"query\" is missing"},
      {R"({"query": 3, "documents": ["a"]})", "\"query\" is missing"},
      {R"({"query": "q"})", "\"documents\" is missing or empty"},
      {R"({"query": "q", "documents": []})", "\"documents\" is missing or empty"},
      {R"({"query": "q", "documents": "a"})", "\"documents\" is missing or empty"},
      {R"({"query": "q", "documents": ["a", {"text": "b"}]})", "documents[1] is not a string"},
      {R"({"query": "q", "documents": ["a"], "top_n": 1})", "unknown key \"top_n\""},
      {json{{"query", "q"}, {"documents", std::vector<std::string>(10001, "a")}}.dump(), "at most 10000"},
  };
  Diag d;
  for (const auto& [input, says] : cases) {
    EXPECT_EQ(set_text(c.ptr, 0, input, d), WASINN_INVALID_ARGUMENT) << input.substr(0, 80);
    EXPECT_NE(d.detail.find(says), std::string::npos) << input.substr(0, 80) << ": " << d.detail;
  }
  // A pair longer than one batch: refused at compute, naming the document.
  std::string words;
  for (int i = 0; i < 600; ++i) words += "word" + std::to_string(i) + " ";
  ASSERT_EQ(set_text(c.ptr, 0, json{{"query", "q"}, {"documents", {"short", words}}}.dump(), d), WASINN_OK);
  EXPECT_EQ(llama().compute(c.ptr, &d), WASINN_PROMPT_TOO_LONG);
  EXPECT_NE(d.detail.find("documents[1]"), std::string::npos) << d.detail;
  // And the context scores the next input as any other.
  ASSERT_EQ(set_text(c.ptr, 0, kInput.dump(), d), WASINN_OK);
  EXPECT_EQ(scores(c.ptr).size(), 4u);
}

TEST(LlamaRerank, OnlyARerankerRanksAndItGivesNoEmbedding) {
  Graph chat = load_model("llama/tiny.gguf", R"({"reranking": true, "threads": 1, "ctx-size": 128})");
  Context c(llama(), chat.ptr);
  Diag d;
  ASSERT_EQ(set_text(c.ptr, 0, kInput.dump(), d), WASINN_OK) << d.detail;
  EXPECT_EQ(llama().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("the model is not a reranker: it pools by none"), std::string::npos) << d.detail;

  Graph rr = load_model("reranker/reranker.gguf", R"({"embedding": true, "threads": 1})");
  Context e(llama(), rr.ptr);
  ASSERT_EQ(set_text(e.ptr, 0, "a text", d), WASINN_OK) << d.detail;
  EXPECT_EQ(llama().compute(e.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("the model is a reranker"), std::string::npos) << d.detail;
}

}  // namespace
}  // namespace wasinn_test
