// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// POST /v1/rerank (and /rerank): documents scored against a query by a reranking GGUF (llama.cpp's
// rank pooling), in Jina's and Cohere's shape, as llama-server answers it:
//   {"query": "...", "documents": ["...", ...], "top_n": N, "return_documents": bool, "model": "..."}
//   -> {"model", "object": "list", "usage": {"prompt_tokens", "total_tokens"},
//       "results": [{"index", "relevance_score", "document": {"text"}?}, ...]}
// results sorted by score, highest first (ties by index), the first top_n of them. The plugin
// formats each pair and scores them all in one compute with "reranking": true (backends/llamacpp/
// embedding.h); the scores are the model's raw logits, as llama-server's.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "http_openai.h"

namespace openai {

namespace {

// The most documents one request takes (Cohere's limit): each is scored with the query.
constexpr size_t kMaxDocuments = 1000;

struct RerankRequest {
  std::string model;
  std::string query;
  std::vector<std::string> documents;
  size_t top_n = 0;  // 0: all
  bool return_documents = false;
};

// The body's fields, each checked; false after answering a 400 that names the field.
bool parse(const json& body, RerankRequest& r, wh_response_outparam out) {
  static const char* const kFields[] = {"query", "documents", "top_n", "return_documents", "model"};
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (std::none_of(std::begin(kFields), std::end(kFields), [&](const char* f) { return it.key() == f; })) {
      respond_error(out, 400,
                    "Unrecognized request argument supplied: " + it.key() +
                        " (this route takes query, documents, top_n, return_documents and model)",
                    "unknown_parameter", it.key().c_str());
      return false;
    }
  }
  const auto model = body.find("model");
  if (model != body.end() && !model->is_null()) {
    if (!model->is_string()) return respond_error(out, 400, "model must be a string", "invalid_type", "model"), false;
    r.model = model->get<std::string>();
  }
  const auto query = body.find("query");
  if (query == body.end() || query->is_null())
    return respond_error(out, 400, "you must provide a query", "missing_required_parameter", "query"), false;
  if (!query->is_string()) return respond_error(out, 400, "query must be a string", "invalid_type", "query"), false;
  r.query = query->get<std::string>();
  const auto docs = body.find("documents");
  if (docs == body.end() || docs->is_null())
    return respond_error(out, 400, "you must provide documents", "missing_required_parameter", "documents"), false;
  if (!docs->is_array() || docs->empty()) {
    respond_error(out, 400, "documents must be a non-empty list of strings", "invalid_type", "documents");
    return false;
  }
  if (docs->size() > kMaxDocuments) {
    respond_error(out, 400,
                  "documents has " + std::to_string(docs->size()) + " entries; this server takes at most " +
                      std::to_string(kMaxDocuments) + " per request",
                  "invalid_value", "documents");
    return false;
  }
  for (size_t i = 0; i < docs->size(); ++i) {
    const json& d = (*docs)[i];
    if (!d.is_string()) {
      // llama-server takes strings only, so objects ({"text": ...}) are refused here too.
      const std::string param = "documents[" + std::to_string(i) + "]";
      respond_error(out, 400, param + " must be a string, not " + std::string(d.type_name()), "invalid_type",
                    param.c_str());
      return false;
    }
    r.documents.push_back(d.get<std::string>());
  }
  const auto top_n = body.find("top_n");
  if (top_n != body.end() && !top_n->is_null()) {
    if (!top_n->is_number_integer() || top_n->get<int64_t>() < 1) {
      respond_error(out, 400, "top_n must be a positive integer", "invalid_value", "top_n");
      return false;
    }
    r.top_n = static_cast<size_t>(std::min<int64_t>(top_n->get<int64_t>(), static_cast<int64_t>(kMaxDocuments)));
  }
  const auto ret = body.find("return_documents");
  if (ret != body.end() && !ret->is_null()) {
    if (!ret->is_boolean()) {
      respond_error(out, 400, "return_documents must be true or false", "invalid_type", "return_documents");
      return false;
    }
    r.return_documents = ret->get<bool>();
  }
  return true;
}

// The plugin's refusal as an answer: the request's or the model's fault is a 400 that says what.
void respond_failure(const std::string& model, const std::string& why, wh_response_outparam out) {
  if (why.find("is not a reranker") != std::string::npos) {
    respond_error(out, 400, "model `" + model + "` cannot rerank: " + why, "model_not_reranker", "model");
  } else if (why.find("prompt-too-long") != std::string::npos || why.rfind("too-large", 0) == 0) {
    respond_error(out, 400, "the model refused the input: " + why, "context_length_exceeded", "documents");
  } else if (why.rfind("timeout", 0) == 0) {
    respond_error(out, 504, "reranking was cut at the server's request deadline: " + why, "timeout");
  } else {
    respond_error(out, why.rfind("invalid-argument", 0) == 0 ? 400 : 500, "reranking failed: " + why);
  }
}

}  // namespace

void rerank(const json& body, wh_response_outparam out, Generation) {
  RerankRequest r;
  if (!parse(body, r, out)) return;
  Model m;
  if (!load_model(r.model, out, m)) return;
  wnn_context ctx = 0;
  wnn_error err;
  if (wnn_init_execution_context(m.graph, &ctx, &err)) {
    respond_error(out, 500, "init-execution-context failed: " + nn_error_text(err));
    return;
  }
  auto set = [&](const std::string& name, const std::string& value) {
    wnn_error e;
    if (!wnx_set_context_property(ctx, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                                  static_cast<uint32_t>(value.size()), &e))
      return std::string();
    return nn_error_text(e);
  };
  std::string why;
  if (!apply_env_options([&] { return property_names(m.graph); }, set, why)) {
    wnn_context_drop(ctx);
    respond_error(out, 500, why);
    return;
  }
  // Set before the input, which the plugin then reads as {"query", "documents"}.
  why = set("reranking", "true");
  if (!why.empty()) {
    wnn_context_drop(ctx);
    respond_error(out, 500, "the model's plugin cannot rerank (setting reranking failed: " + why + ")");
    return;
  }
  const std::string input = dump({{"query", r.query}, {"documents", r.documents}});
  uint32_t dims[1] = {static_cast<uint32_t>(input.size())};
  wnn_named_tensor tensors[1] = {
      wnn_named("prompt", wnn_tensor_new(dims, 1, WNN_TYPE_U8, input.data(), static_cast<uint32_t>(input.size())))};
  wnn_named_tensor_list outputs;
  if (wnn_compute(ctx, tensors, 1, &outputs, &err)) {
    const std::string failure = nn_error_text(err);
    wnn_context_drop(ctx);
    respond_failure(m.name, failure, out);
    return;
  }
  std::vector<float> scores;
  int64_t tokens = 0;
  const int k = wnn_find_output(&outputs, "text");
  const int meta = wnn_find_output(&outputs, "metadata");
  if (k >= 0 && wnn_tensor_ty(outputs.ptr[k].tensor) == WNN_TYPE_FP32) {
    wnn_bytes bytes = wnn_tensor_data(outputs.ptr[k].tensor);
    scores.resize(bytes.len / sizeof(float));
    if (!scores.empty()) memcpy(scores.data(), bytes.ptr, scores.size() * sizeof(float));
    free(bytes.ptr);
  }
  if (meta >= 0) {
    wnn_bytes mb = wnn_tensor_data(outputs.ptr[meta].tensor);
    const json mj = json::parse(std::string(reinterpret_cast<const char*>(mb.ptr), mb.len), nullptr, false);
    free(mb.ptr);
    if (mj.is_object() && mj.contains("input_tokens") && mj["input_tokens"].is_number_integer())
      tokens = mj["input_tokens"].get<int64_t>();
  }
  wnn_named_tensor_list_free(&outputs);
  wnn_context_drop(ctx);
  if (scores.size() != r.documents.size()) {
    respond_error(out, 500,
                  "reranking failed: the model gave " + std::to_string(scores.size()) + " scores for " +
                      std::to_string(r.documents.size()) + " documents");
    return;
  }
  std::vector<size_t> order(scores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // A NaN (a broken model's) sorts last: the comparison must stay a strict weak order.
  auto key = [&](size_t i) { return std::isnan(scores[i]) ? -INFINITY : scores[i]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) > key(b); });
  if (r.top_n > 0 && r.top_n < order.size()) order.resize(r.top_n);
  json results = json::array();
  for (size_t i : order) {
    json item = {{"index", i}, {"relevance_score", static_cast<double>(scores[i])}};
    if (r.return_documents) item["document"] = {{"text", r.documents[i]}};
    results.push_back(std::move(item));
  }
  respond_json(out, 200,
               {{"model", m.name},
                {"object", "list"},
                {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}},
                {"results", results}});
}

}  // namespace openai
