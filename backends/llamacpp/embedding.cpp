// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "embedding.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "token_stream.h"

namespace wasinn::llamacpp {
namespace {

const char* pooling_name(enum llama_pooling_type t) {
  switch (t) {
    case LLAMA_POOLING_TYPE_NONE: return "none";
    case LLAMA_POOLING_TYPE_MEAN: return "mean";
    case LLAMA_POOLING_TYPE_CLS: return "cls";
    case LLAMA_POOLING_TYPE_LAST: return "last";
    case LLAMA_POOLING_TYPE_RANK: return "rank";
    default: return "unspecified";
  }
}

// llama-server's tokenize_mixed for a string: llama_tokenize, sized by a first call.
Error tokenize(const llama_vocab* vocab, std::string_view text, bool add_special, bool parse_special,
               std::vector<llama_token>& out) {
  if (text.size() > static_cast<size_t>(INT32_MAX / 2)) return {WASINN_TOO_LARGE, "a text too large to tokenize"};
  const auto len = static_cast<int32_t>(text.size());
  out.resize(std::min<size_t>(text.size() + 8, 4096));
  int32_t n =
      llama_tokenize(vocab, text.data(), len, out.data(), static_cast<int32_t>(out.size()), add_special, parse_special);
  if (n < 0 && n != INT32_MIN) {
    out.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), len, out.data(), -n, add_special, parse_special);
  }
  if (n < 0) return sdk::invalid("a reranking text could not be tokenized");
  out.resize(static_cast<size_t>(n));
  return {};
}

void replace_all(std::string& s, std::string_view search, std::string_view with) {  // common's string_replace_all
  std::string built;
  built.reserve(s.size());
  size_t last = 0;
  for (size_t at; (at = s.find(search, last)) != std::string::npos; last = at + search.size()) {
    built.append(s, last, at - last);
    built.append(with);
  }
  built.append(s, last, std::string::npos);
  s = std::move(built);
}

}  // namespace

Error compute_embedding(llama_context* ctx, std::span<const llama_token> prompt, int32_t n_embd,
                        std::vector<float>& out) {
  if (prompt.empty()) return sdk::invalid("the prompt has no tokens");
  // A reranker's pooled output is n_cls_out scores, not n_embd values.
  if (llama_pooling_type(ctx) == LLAMA_POOLING_TYPE_RANK) {
    return sdk::invalid(
        "\"embedding\": the model is a reranker (its GGUF pools by rank): it scores a query and a document, and "
        "gives no embedding; use \"reranking\": true");
  }
  const uint32_t limit = std::min(llama_n_batch(ctx), llama_n_ctx(ctx));
  if (prompt.size() > limit) {
    return {WASINN_PROMPT_TOO_LONG, "the prompt has " + std::to_string(prompt.size()) +
                                        " tokens; an embedding takes at most batch-size (" + std::to_string(limit) +
                                        ")"};
  }
  llama_memory_clear(llama_get_memory(ctx), true);
  std::vector<llama_token> tokens(prompt.begin(), prompt.end());
  if (Error e = decode_tokens(ctx, tokens)) return e;
  const float* v = llama_get_embeddings_seq(ctx, 0);
  if (!v) v = llama_get_embeddings_ith(ctx, -1);  // pooling none: the last token's state
  if (!v) return sdk::runtime_error("llama.cpp returned no embedding for the prompt");
  double norm = 0.0;
  for (int32_t i = 0; i < n_embd; ++i) norm += static_cast<double>(v[i]) * v[i];
  norm = std::sqrt(norm);
  const double scale = norm > 0.0 ? 1.0 / norm : 0.0;
  out.resize(static_cast<size_t>(n_embd));
  for (int32_t i = 0; i < n_embd; ++i) out[i] = static_cast<float>(v[i] * scale);
  llama_memory_clear(llama_get_memory(ctx), true);  // stateless between calls, as WasmEdge is
  return {};
}

std::string embedding_as_wasmedge_json(std::span<const float> embedding) {
  std::string out = "{\"n_embedding\": " + std::to_string(embedding.size()) + ", \"embedding\": [";
  out.reserve(out.size() + embedding.size() * 16 + 2);
  char number[32];
  for (size_t i = 0; i < embedding.size(); ++i) {
    // fmt's "{:.10}" (WasmEdge's) is C's %.10g: the shortest of fixed and exponent form.
    const int n = std::snprintf(number, sizeof number, "%.10g", static_cast<double>(embedding[i]));
    if (i > 0) out += ',';
    out.append(number, static_cast<size_t>(n));
  }
  out += "]}";
  return out;
}

Error rerank_pairs(const llama_model* model, std::string_view input, size_t max_bytes,
                   std::vector<std::vector<llama_token>>& out, size_t& n_tokens) {
  static constexpr char kShape[] =
      "with \"reranking\": true, input 0 is a JSON object {\"query\": \"...\", \"documents\": [\"...\", ...]}";
  const nlohmann::json doc = nlohmann::json::parse(input.begin(), input.end(), nullptr, false);
  if (!doc.is_object()) return sdk::invalid(std::string(kShape) + "; it is not a JSON object");
  const auto query = doc.find("query");
  const auto documents = doc.find("documents");
  if (query == doc.end() || !query->is_string()) return sdk::invalid(std::string(kShape) + "; \"query\" is missing");
  if (documents == doc.end() || !documents->is_array() || documents->empty())
    return sdk::invalid(std::string(kShape) + "; \"documents\" is missing or empty");
  if (documents->size() > kMaxRerankDocuments) {
    return sdk::invalid("reranking: " + std::to_string(documents->size()) + " documents; at most " +
                        std::to_string(kMaxRerankDocuments));
  }
  for (const auto& [key, value] : doc.items())
    if (key != "query" && key != "documents") return sdk::invalid("reranking input: unknown key \"" + key + "\"");
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const std::string& q = query->get_ref<const std::string&>();
  const char* tmpl = llama_model_chat_template(model, "rerank");
  std::vector<llama_token> query_tokens;
  if (!tmpl) {
    if (q.size() > max_bytes) return {WASINN_PROMPT_TOO_LONG, "reranking: the query cannot fit one batch"};
    if (Error e = tokenize(vocab, q, false, false, query_tokens)) return e;
  }
  llama_token eos = llama_vocab_eos(vocab);
  if (eos == LLAMA_TOKEN_NULL) eos = llama_vocab_sep(vocab);  // as llama-server: SEP stands in
  std::vector<std::vector<llama_token>> pairs;
  pairs.reserve(documents->size());
  size_t total = 0;
  std::vector<llama_token> part;
  for (size_t i = 0; i < documents->size(); ++i) {
    const auto& d = (*documents)[i];
    if (!d.is_string()) return sdk::invalid("reranking input: documents[" + std::to_string(i) + "] is not a string");
    const std::string& text = d.get_ref<const std::string&>();
    if (text.size() + q.size() + (tmpl ? std::strlen(tmpl) : 0) > max_bytes) {
      return {WASINN_PROMPT_TOO_LONG,
              "reranking: documents[" + std::to_string(i) + "] with the query cannot fit one batch of tokens"};
    }
    std::vector<llama_token> pair;
    if (tmpl) {  // the template's own special tokens are parsed; nothing is added
      std::string prompt = tmpl;
      replace_all(prompt, "{query}", q);
      replace_all(prompt, "{document}", text);
      if (Error e = tokenize(vocab, prompt, false, true, pair)) return e;
    } else {
      if (Error e = tokenize(vocab, text, false, false, part)) return e;
      if (llama_vocab_get_add_bos(vocab)) pair.push_back(llama_vocab_bos(vocab));
      pair.insert(pair.end(), query_tokens.begin(), query_tokens.end());
      if (llama_vocab_get_add_eos(vocab)) pair.push_back(eos);
      if (llama_vocab_get_add_sep(vocab)) pair.push_back(llama_vocab_sep(vocab));
      pair.insert(pair.end(), part.begin(), part.end());
      if (llama_vocab_get_add_eos(vocab)) pair.push_back(eos);
    }
    if (pair.empty())
      return sdk::invalid("reranking: documents[" + std::to_string(i) + "] with the query has no tokens");
    total += pair.size();
    pairs.push_back(std::move(pair));
  }
  out = std::move(pairs);
  n_tokens = total;
  return {};
}

Error compute_rank_scores(llama_context* ctx, std::span<const std::vector<llama_token>> pairs,
                          std::vector<float>& out) {
  if (llama_pooling_type(ctx) != LLAMA_POOLING_TYPE_RANK) {
    return sdk::invalid(std::string("\"reranking\": the model is not a reranker: it pools by ") +
                        pooling_name(llama_pooling_type(ctx)) +
                        ", and reranking needs a GGUF that pools by rank, with a classification head (cls.output), "
                        "such as bge-reranker's");
  }
  const size_t limit = std::min(llama_n_batch(ctx), llama_n_ctx(ctx));
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].size() > limit) {
      return {WASINN_PROMPT_TOO_LONG, "reranking: documents[" + std::to_string(i) + "] with the query has " +
                                          std::to_string(pairs[i].size()) +
                                          " tokens; a pair takes at most batch-size (" + std::to_string(limit) + ")"};
    }
  }
  // One pair per decode, as llama-server with one slot: pairs decoded side by side as sequences of
  // one batch scored up to 2e-3 away from it (the fixture's, on the CPU), alone exactly equal.
  std::vector<float> scores(pairs.size());
  std::vector<llama_token> tokens;
  Error result;
  for (size_t i = 0; i < pairs.size() && !result; ++i) {
    llama_memory_clear(llama_get_memory(ctx), true);
    tokens.assign(pairs[i].begin(), pairs[i].end());
    if ((result = decode_tokens(ctx, tokens))) break;
    const float* v = llama_get_embeddings_seq(ctx, 0);
    if (!v)
      result = sdk::runtime_error("llama.cpp returned no score for documents[" + std::to_string(i) + "]");
    else
      scores[i] = v[0];
  }
  llama_memory_clear(llama_get_memory(ctx), true);
  if (result) return result;
  out = std::move(scores);
  return {};
}

}  // namespace wasinn::llamacpp
