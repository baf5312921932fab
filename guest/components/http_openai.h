// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// http_openai's parts (http_openai.cpp: the routes, models and embeddings; http_openai_generation.cpp:
// chat and text completions; http_openai_apis.cpp: the Responses and Messages APIs over them): the
// answers, the environment and the model they share.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "openai_request.h"

extern "C" {
#include "http_guest.h"
#include "wasi_nn_wit.h"
#include "wasinn_nn_ext_wit.h"
}

namespace openai {

using json = nlohmann::ordered_json;  // openai_request.h's: keys in the order they came

// The guest's environment variable `name`, "" when unset.
std::string env_value(const char* name);
// The guest's environment variable `name` as a whole number above 0, or 0 (unset, 0, or not one).
uint64_t env_number(const char* name);
uint64_t now_seconds();
// JSON text; invalid UTF-8 replaced, never thrown.
std::string dump(const json& j);
void respond_json(wh_response_outparam out, int status, const json& body);
// OpenAI's error object.
void respond_error(wh_response_outparam out, int status, const std::string& message, const char* code = nullptr,
                   const char* param = nullptr);
void respond_refusal(wh_response_outparam out, const Refusal& why);
// A WIT string's text; frees it.
std::string take(wnn_string s);
// A wasi:nn error as "code-name: the plugin's text"; drops it.
std::string nn_error_text(wnn_error err);
// The graph's property names (wasinn:nn-ext). Asked before a get-property: the host logs each
// get-property of a property the graph lacks.
std::vector<std::string> property_names(wnn_graph g);
std::string new_id(const char* prefix);

// One graph and, for generation, one prompt session on it; both dropped with this.
struct Model {
  std::string name;
  wnn_graph graph = 0;
  wnx_prompt_context session = 0;
  ~Model() {
    if (session) wnx_prompt_context_drop(session);
    if (graph) wnn_graph_drop(graph);
  }
};

// Loads the model named `name`; without one (""), the only model there is (400 when there are
// several); on failure answers and returns false.
bool load_model(const std::string& name, wh_response_outparam out, Model& m);

// NN_OPTIONS as a JSON object of properties (empty when unset); false with `why` when it is not one.
bool env_options(json& options, std::string& why);

// NN_OPTIONS's properties that the model has (`names()`: the graph's, as property_names gives
// them, asked for only when NN_OPTIONS is set), with their JSON values, into `options`; false with
// `why` when NN_OPTIONS is not an object. NN_OPTIONS is every model's: a model takes the keys it
// has (a chat model's ctx-size, a whisper model's beam-size) and skips the others, which `serve`
// checks at start are some model's.
template <class Names>
bool model_env_options(Names names, json& options, std::string& why) {
  json all;
  if (!env_options(all, why)) return false;
  options = json::object();
  if (all.empty()) return true;
  const std::vector<std::string> properties = names();
  for (auto it = all.begin(); it != all.end(); ++it)
    if (std::find(properties.begin(), properties.end(), it.key()) != properties.end()) options[it.key()] = it.value();
  return true;
}

// model_env_options' properties, each given to `set` (name, value as text); false with `why` on failure.
template <class Names, class Set>
bool apply_env_options(Names names, Set set, std::string& why) {
  json options;
  if (!model_env_options(names, options, why)) return false;
  for (auto it = options.begin(); it != options.end(); ++it) {
    const std::string value = it.value().is_string() ? it.value().get<std::string>() : dump(it.value());
    std::string failed = set(it.key(), value);
    if (!failed.empty()) {
      why = "NN_OPTIONS: setting " + it.key() + " failed: " + failed;
      return false;
    }
  }
  return true;
}

// A request (openai_request.h) and when it must be answered by.
struct Generation : Request {
  uint64_t started_ns = 0;   // the monotonic clock when the request arrived
  uint64_t deadline_ms = 0;  // wasinn-deadline-ms: what the server gives this request; 0: no limit
};

// Another API's answer made from chat completions' shapes (http_openai_apis.cpp: the Responses
// and Messages APIs); none is chat completions' own.
class AnswerFormat {
 public:
  virtual ~AnswerFormat() = default;
  // An error in this API's shape (respond_refusal takes it while the format is current).
  virtual json error(const Refusal& why) const = 0;
  // A whole chat.completion as this API's answer; `stop` is the stop text that ended it, or "".
  virtual json whole(const json& completion, const std::string& stop) = 0;
  // The stream's server-sent events: its opening (the model's name, the usage so far: the prompt's
  // tokens), each chat.completion.chunk's, and its end (the chat's finish_reason) or failure.
  virtual std::string begin(const std::string& model, const json& usage) = 0;
  virtual std::string chunk(const json& chunk) = 0;
  virtual std::string finish(const std::string& finish_reason, const std::string& stop, const json& usage) = 0;
  virtual std::string fail(int status, const std::string& code, const std::string& message) = 0;
};

// The format the current request is answered in (one request at a time in an instance), while
// this lives.
class FormatScope {
 public:
  explicit FormatScope(AnswerFormat* f);
  ~FormatScope();
  static AnswerFormat* current();
};

// POST /v1/chat/completions and /v1/completions: the body checked (openai_request.h), the model's
// session set up, and the answer generated, whole or streamed (in the current format).
void completions(Kind kind, const json& body, wh_response_outparam out, Generation g);
// The chat `body`'s prompt in tokens, as the model's template renders it (nothing generated);
// false after answering when the request or the model refuses it.
bool prompt_tokens(const json& body, wh_response_outparam out, Generation g, int64_t& tokens);

// POST /v1/responses, /v1/messages and /v1/messages/count_tokens (http_openai_apis.cpp).
void responses(const json& body, wh_response_outparam out, Generation g);
void messages(const json& body, wh_response_outparam out, Generation g);
void count_tokens(const json& body, wh_response_outparam out, Generation g);

// POST /v1/audio/transcriptions and /v1/audio/translations (`translate`): OpenAI's multipart form
// (`content_type` its header, `body` the whole form) on a whisper model (http_openai_transcription.cpp).
void transcriptions(const std::string& content_type, const std::string& body, bool translate, wh_response_outparam out,
                    Generation g);
// POST /v1/audio/speech: text to audio on a Piper or OuteTTS model (http_openai_speech.cpp).
void speech(const json& body, wh_response_outparam out, Generation g);
// GET /v1/audio/voices: each Piper model with the voice names `voice` takes, {"object": "list",
// "data": [{"model", "voices"}]} (http_openai_speech.cpp).
void voices(wh_response_outparam out);
// POST /v1/rerank (and /rerank): documents scored against a query by a reranking model
// (http_openai_rerank.cpp).
void rerank(const json& body, wh_response_outparam out, Generation g);

// GET /: the chat page (http_openai_page.cpp).
void chat_page(wh_response_outparam out);

}  // namespace openai
