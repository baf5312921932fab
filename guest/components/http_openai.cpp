// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * http_openai: an OpenAI-compatible endpoint as a wasi:http/proxy component (KIND http, EXT) for
 * `wasinn serve`, over wasi:nn and wasinn:nn-ext's prompt sessions, with the models the server
 * preloads (--nn-preload NAME:GGML:AUTO:model.gguf): a request's "model" is the preload's name.
 *
 *   GET  /v1/models             the names in the guest's environment variable MODELS (comma-
 *                               separated; `wasinn serve --env MODELS=a,b`), default "default"
 *   POST /v1/chat/completions   messages -> the model's chat template (the plugin applies its
 *                               GGUF's tokenizer.chat_template as llama.cpp does) -> the answer
 *   POST /v1/completions        prompt -> the answer
 *   POST /v1/embeddings         input (a string or a list of strings) -> one embedding each
 *
 * The environment variable NN_OPTIONS (a JSON object of the graph's settable properties, e.g.
 * {"ctx-size": 4096, "threads": 8}) is set on every session and context before the request's own
 * fields; a bad one answers 500 naming it.
 *
 * Generation: max_tokens (or max_completion_tokens), temperature, top_p, seed, presence_penalty,
 * frequency_penalty become the session's properties; stop (a string or up to 4) ends the answer
 * before the first stop text, which is left out, as OpenAI does; "stream": true answers with
 * server-sent events (data: chunk, ..., data: [DONE]) a token at a time, and
 * stream_options.include_usage adds the usage chunk. A client that leaves mid-stream ends the
 * generation at its next token: the session (its KV cache) is dropped at once.
 * Errors are OpenAI's shape, {"error": {"message", "type", "param", "code"}}: 400 for a bad
 * request, 404 for an unknown model or path, 405 for a wrong method, 500 for a failed inference.
 *
 * C++ for nlohmann/json (Debian's header-only library), built without exceptions: parsing never
 * throws (parse(..., false) gives a discarded value), every value is type-checked before use,
 * and dump() replaces invalid UTF-8 instead of throwing.
 */
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "http_guest.h"
#include "wasi_nn_wit.h"
#include "wasinn_nn_ext_wit.h"
}

using nlohmann::json;

namespace {

// --- WASI imports beyond http_guest.h: the environment and the wall clock -----------------------

struct WasiString {
  char* ptr;
  uint32_t len;
};
struct EnvPair {
  WasiString name, value;
};
struct EnvList {
  EnvPair* ptr;
  uint32_t len;
};
struct Datetime {
  uint64_t seconds;
  uint32_t nanoseconds;
};
extern "C" __attribute__((import_module("wasi:cli/environment@0.2.12"), import_name("get-environment"))) void
wasi_get_environment(EnvList* ret);
extern "C" __attribute__((import_module("wasi:clocks/wall-clock@0.2.12"), import_name("now"))) void wasi_wall_now(
    Datetime* ret);

std::string env_value(const char* name) {
  EnvList env{nullptr, 0};
  wasi_get_environment(&env);
  std::string found;
  for (uint32_t i = 0; i < env.len; ++i) {
    if (strlen(name) == env.ptr[i].name.len && !memcmp(name, env.ptr[i].name.ptr, env.ptr[i].name.len)) {
      found.assign(env.ptr[i].value.ptr, env.ptr[i].value.len);
    }
    free(env.ptr[i].name.ptr);
    free(env.ptr[i].value.ptr);
  }
  free(env.ptr);
  return found;
}

uint64_t now_seconds() {
  Datetime d{0, 0};
  wasi_wall_now(&d);
  return d.seconds;
}

// --- answers --------------------------------------------------------------------------------------

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void respond_json(wh_response_outparam out, int status, const json& body) {
  const std::string text = dump(body);
  hg_respond(out, status, "application/json", text.data(), text.size());
}

// OpenAI's error object.
void respond_error(wh_response_outparam out, int status, const std::string& message, const char* code = nullptr,
                   const char* param = nullptr) {
  const char* type = status >= 500 ? "server_error" : "invalid_request_error";
  respond_json(out, status,
               {{"error",
                 {{"message", message},
                  {"type", type},
                  {"param", param ? json(param) : json(nullptr)},
                  {"code", code ? json(code) : json(nullptr)}}}});
}

std::string take(wnn_string s) {
  std::string text(s.ptr ? s.ptr : "", s.len);
  free(s.ptr);
  return text;
}

std::string nn_error_text(wnn_error err) {
  const char* code = wnn_error_code_name(wnn_error_get_code(err));
  std::string data = take(wnn_error_get_data(err));
  wnn_error_drop(err);
  return std::string(code) + ": " + data;
}

std::string new_id(const char* prefix) {
  static uint32_t counter = 0;
  Datetime d{0, 0};
  wasi_wall_now(&d);
  return std::string(prefix) + std::to_string(d.seconds) + std::to_string(d.nanoseconds) + "-" +
         std::to_string(++counter);
}

// --- the request ----------------------------------------------------------------------------------

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

// Loads body["model"] (default "default"); on failure answers and returns false.
bool load_model(const json& body, wh_response_outparam out, Model& m) {
  auto it = body.find("model");
  if (it != body.end() && !it->is_string()) {
    respond_error(out, 400, "model must be a string", nullptr, "model");
    return false;
  }
  m.name = it == body.end() ? "default" : it->get<std::string>();
  wnn_error err;
  if (wnn_load_by_name(m.name.data(), static_cast<uint32_t>(m.name.size()), &m.graph, &err)) {
    m.graph = 0;
    const bool missing = wnn_error_get_code(err) == WNN_ERROR_NOT_FOUND;
    const std::string why = nn_error_text(err);
    if (missing) {
      respond_error(out, 404, "The model `" + m.name + "` does not exist (wasinn serve --nn-preload registers models)",
                    "model_not_found", "model");
    } else {
      respond_error(out, 500, "loading model `" + m.name + "` failed: " + why);
    }
    return false;
  }
  return true;
}

// NN_OPTIONS's properties, each given to `set` (name, JSON value); false with `why` on failure.
template <class Set>
bool apply_env_options(Set set, std::string& why) {
  const std::string text = env_value("NN_OPTIONS");
  if (text.empty()) return true;
  const json options = json::parse(text, nullptr, false);
  if (!options.is_object()) {
    why = "NN_OPTIONS must be a JSON object of properties, e.g. {\"ctx-size\": 4096}";
    return false;
  }
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

struct Generation {
  bool stream = false;
  bool include_usage = false;
  int64_t max_tokens = -1;
  std::vector<std::string> stops;
};

// Reads the sampling and length fields into the session's properties and `g`; on a bad value
// answers 400 and returns false.
bool apply_options(const json& body, wh_response_outparam out, wnx_prompt_context session, Generation& g) {
  auto it = body.find("n");
  if (it != body.end() && !(it->is_number_integer() && it->get<int64_t>() == 1)) {
    respond_error(out, 400, "n must be 1: one answer per request", nullptr, "n");
    return false;
  }
  it = body.find("stream");
  if (it != body.end()) {
    if (!it->is_boolean() && !it->is_null()) {
      respond_error(out, 400, "stream must be true or false", nullptr, "stream");
      return false;
    }
    g.stream = it->is_boolean() && it->get<bool>();
  }
  it = body.find("stream_options");
  if (it != body.end() && it->is_object()) {
    auto u = it->find("include_usage");
    g.include_usage = u != it->end() && u->is_boolean() && u->get<bool>();
  }
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    it = body.find(key);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 1000000) {
      respond_error(out, 400, std::string(key) + " must be a whole number from 1", nullptr, key);
      return false;
    }
    g.max_tokens = it->get<int64_t>();
  }
  it = body.find("stop");
  if (it != body.end() && !it->is_null()) {
    if (it->is_string()) {
      g.stops.push_back(it->get<std::string>());
    } else if (it->is_array() && it->size() <= 4) {
      for (const auto& s : *it) {
        if (!s.is_string()) break;
        g.stops.push_back(s.get<std::string>());
      }
    }
    bool ok = (it->is_string() || g.stops.size() == it->size());
    for (const auto& s : g.stops) ok = ok && !s.empty();
    if (!ok) {
      respond_error(out, 400, "stop must be a non-empty string or a list of up to 4", nullptr, "stop");
      return false;
    }
  }
  struct Knob {
    const char* field;
    const char* property;
    double lo, hi;
  };
  // OpenAI's ranges; llama.cpp's property names.
  const Knob knobs[] = {{"temperature", "temp", 0, 2},
                        {"top_p", "top-p", 0, 1},
                        {"presence_penalty", "presence-penalty", -2, 2},
                        {"frequency_penalty", "frequency-penalty", -2, 2},
                        {"seed", "seed", 0, 4294967295.0}};
  std::string why;
  const bool env_ok = apply_env_options(
      [&](const std::string& name, const std::string& value) {
        wnn_string err{};
        if (!wnx_prompt_set_property(session, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                                     static_cast<uint32_t>(value.size()), &err))
          return std::string();
        return take(err);
      },
      why);
  if (!env_ok) {
    respond_error(out, 500, why);
    return false;
  }
  std::vector<std::pair<std::string, std::string>> props;
  props.emplace_back("n-predict", std::to_string(g.max_tokens));
  for (const Knob& k : knobs) {
    it = body.find(k.field);
    if (it == body.end() || it->is_null()) continue;
    const bool integral = !strcmp(k.field, "seed");
    if (!it->is_number() || (integral && !it->is_number_integer()) || it->get<double>() < k.lo ||
        it->get<double>() > k.hi) {
      respond_error(out, 400, std::string(k.field) + " must be a number in [" + dump(k.lo) + ", " + dump(k.hi) + "]",
                    nullptr, k.field);
      return false;
    }
    props.emplace_back(k.property, dump(*it));
  }
  for (const auto& prop : props) {
    const std::string& name = prop.first;
    const std::string& value = prop.second;
    wnn_string err{};
    if (wnx_prompt_set_property(session, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                                static_cast<uint32_t>(value.size()), &err)) {
      respond_error(out, 400, "setting " + name + " failed: " + take(err));
      return false;
    }
  }
  return true;
}

// The text generated so far, with the stop texts applied: what may be sent now, and whether a stop
// text has ended the answer.
class StopScan {
 public:
  explicit StopScan(const std::vector<std::string>& stops) : stops_(stops) {}
  // Adds a piece; returns the text that is now safe to send (never part of a stop text).
  std::string add(const std::string& piece) {
    held_ += piece;
    for (const auto& s : stops_) {
      const size_t at = held_.find(s);
      if (at != std::string::npos) {
        stopped_ = true;
        std::string sendable = held_.substr(0, at);
        held_.clear();
        return sendable;
      }
    }
    // Hold back the longest tail that could begin a stop text.
    size_t keep = 0;
    for (const auto& s : stops_) {
      for (size_t n = std::min(s.size() - 1, held_.size()); n > keep; --n) {
        if (!held_.compare(held_.size() - n, n, s, 0, n)) {
          keep = n;
          break;
        }
      }
    }
    std::string sendable = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return sendable;
  }
  // At the end: what was held back for a stop text that never came.
  std::string rest() {
    std::string r = std::move(held_);
    held_.clear();
    return r;
  }
  bool stopped() const { return stopped_; }

 private:
  const std::vector<std::string>& stops_;
  std::string held_;
  bool stopped_ = false;
};

struct Usage {
  int64_t prompt = 0, completion = 0;
  json as_json() const {
    return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
  }
};

Usage usage_of(wnx_prompt_context session) {
  wnn_string meta{};
  const int failed = wnx_prompt_metadata(session, &meta);
  const std::string text = take(meta);
  Usage u;
  if (failed) return u;
  const json j = json::parse(text, nullptr, false);
  if (j.is_object()) {
    auto in = j.find("input_tokens"), out = j.find("output_tokens");
    if (in != j.end() && in->is_number_integer()) u.prompt = in->get<int64_t>();
    if (out != j.end() && out->is_number_integer()) u.completion = out->get<int64_t>();
  }
  return u;
}

enum class Kind { chat, completion };

// Runs one generation and answers it, whole or as server-sent events.
void generate(Kind kind, Model& m, const Generation& g, const char* input, const std::string& text,
              wh_response_outparam out) {
  wnn_string err{};
  if (wnx_prompt_start(m.session, input, text.data(), static_cast<uint32_t>(text.size()), &err)) {
    const std::string why = take(err);
    respond_error(out, why.rfind("invalid-argument", 0) == 0 ? 400 : 500, "the model refused the input: " + why);
    return;
  }
  const bool chat = kind == Kind::chat;
  const std::string id = new_id(chat ? "chatcmpl-" : "cmpl-");
  const uint64_t created = now_seconds();
  const char* object = chat ? (g.stream ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  auto choice = [&](const std::string& piece, const json& finish, bool first) {
    json c = {{"index", 0}, {"finish_reason", finish}};
    if (!chat) {
      c["text"] = piece;
      c["logprobs"] = nullptr;
    } else if (g.stream) {
      c["delta"] = first ? json{{"role", "assistant"}, {"content", piece}} : json{{"content", piece}};
      if (!finish.is_null()) c["delta"] = json::object();
    } else {
      c["message"] = {{"role", "assistant"}, {"content", piece}};
    }
    return c;
  };
  auto envelope = [&](json choices) {
    return json{{"id", id}, {"object", object}, {"created", created}, {"model", m.name}, {"choices", choices}};
  };

  hg_stream s{};
  if (g.stream) hg_stream_begin(out, 200, "text/event-stream", &s);
  auto send_event = [&](const json& j) {
    const std::string line = "data: " + dump(j) + "\n\n";
    return hg_stream_write(&s, line.data(), line.size()) == 0;
  };

  StopScan scan(g.stops);
  std::string whole;
  bool first = true, gone = false;
  std::string failure;
  while (!scan.stopped()) {
    int has = 0;
    wnn_string piece{};
    if (wnx_prompt_next(m.session, &has, &piece)) {
      failure = take(piece);
      break;
    }
    if (!has) break;
    const std::string sendable = scan.add(take(piece));
    if (!g.stream) {
      whole += sendable;
    } else if (!sendable.empty() || first) {
      if (!send_event(envelope(json::array({choice(sendable, nullptr, first)})))) {
        gone = true;  // the client has left: stop generating; ~Model drops the session
        break;
      }
      first = false;
    }
  }
  if (gone) {
    hg_stream_end(&s);
    return;
  }
  const std::string rest = scan.stopped() ? std::string() : scan.rest();
  const Usage usage = usage_of(m.session);
  const bool at_length = !scan.stopped() && g.max_tokens > 0 && usage.completion >= g.max_tokens;
  const json finish = at_length ? "length" : "stop";
  if (!g.stream) {
    if (!failure.empty()) {
      respond_error(out, 500, "generation failed: " + failure);
      return;
    }
    json answer = envelope(json::array({choice(whole + rest, finish, true)}));
    answer["usage"] = usage.as_json();
    respond_json(out, 200, answer);
    return;
  }
  if (!failure.empty()) {  // the status is sent: the error goes in the stream, as OpenAI's do
    send_event({{"error", {{"message", "generation failed: " + failure}, {"type", "server_error"}}}});
    hg_stream_end(&s);
    return;
  }
  if (!rest.empty()) send_event(envelope(json::array({choice(rest, nullptr, first)})));
  send_event(envelope(json::array({choice("", finish, false)})));
  if (g.include_usage) {
    json u = envelope(json::array());
    u["usage"] = usage.as_json();
    send_event(u);
  }
  const char done[] = "data: [DONE]\n\n";
  hg_stream_write(&s, done, sizeof done - 1);
  hg_stream_end(&s);
}

// A message's content: a string, or OpenAI's list of parts of which the text ones are joined.
bool content_text(const json& content, std::string& text) {
  if (content.is_string()) {
    text = content.get<std::string>();
    return true;
  }
  if (content.is_null()) {
    text.clear();
    return true;
  }
  if (!content.is_array()) return false;
  text.clear();
  for (const auto& part : content) {
    auto type = part.is_object() ? part.find("type") : part.end();
    auto t = part.is_object() ? part.find("text") : part.end();
    if (type == part.end() || *type != "text" || t == part.end() || !t->is_string()) return false;
    text += t->get<std::string>();
  }
  return true;
}

void completions(Kind kind, const json& body, wh_response_outparam out) {
  std::string text;
  const char* input = "prompt";
  if (kind == Kind::chat) {
    auto msgs = body.find("messages");
    if (msgs == body.end() || !msgs->is_array() || msgs->empty()) {
      respond_error(out, 400, "messages must be a non-empty list", nullptr, "messages");
      return;
    }
    json plain = json::array();
    for (const auto& msg : *msgs) {
      auto role = msg.is_object() ? msg.find("role") : msg.end();
      auto content = msg.is_object() ? msg.find("content") : msg.end();
      std::string t;
      if (role == msg.end() || !role->is_string() || content == msg.end() || !content_text(*content, t)) {
        respond_error(out, 400, "each message needs a role and a text content", nullptr, "messages");
        return;
      }
      plain.push_back({{"role", *role}, {"content", t}});
    }
    text = dump(plain);
    input = "messages";
  } else {
    auto p = body.find("prompt");
    if (p != body.end() && p->is_array() && p->size() == 1 && (*p)[0].is_string()) p = p->begin();
    if (p == body.end() || !p->is_string()) {
      respond_error(out, 400, "prompt must be a string (or a list of one)", nullptr, "prompt");
      return;
    }
    text = p->get<std::string>();
  }
  Model m;
  if (!load_model(body, out, m)) return;
  wnn_string err{};
  if (wnx_prompt_init(m.graph, &m.session, &err)) {
    m.session = 0;
    respond_error(out, 400, "model `" + m.name + "` cannot generate text: " + take(err), nullptr, "model");
    return;
  }
  Generation g;
  if (!apply_options(body, out, m.session, g)) return;
  generate(kind, m, g, input, text, out);
}

std::string base64(const std::vector<float>& v) {
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* b = reinterpret_cast<const unsigned char*>(v.data());  // wasm32 is little-endian
  const size_t n = v.size() * sizeof(float);
  std::string s;
  s.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t w = (uint32_t(b[i]) << 16) | (i + 1 < n ? uint32_t(b[i + 1]) << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
    s += table[(w >> 18) & 63];
    s += table[(w >> 12) & 63];
    s += i + 1 < n ? table[(w >> 6) & 63] : '=';
    s += i + 2 < n ? table[w & 63] : '=';
  }
  return s;
}

void embeddings(const json& body, wh_response_outparam out) {
  std::vector<std::string> inputs;
  auto in = body.find("input");
  if (in != body.end() && in->is_string()) {
    inputs.push_back(in->get<std::string>());
  } else if (in != body.end() && in->is_array() && !in->empty() && in->size() <= 2048) {
    for (const auto& s : *in) {
      if (!s.is_string()) break;
      inputs.push_back(s.get<std::string>());
    }
  }
  if (inputs.empty() || (in->is_array() && inputs.size() != in->size())) {
    respond_error(out, 400, "input must be a string or a list of up to 2048 strings", nullptr, "input");
    return;
  }
  bool as_base64 = false;
  auto f = body.find("encoding_format");
  if (f != body.end() && !f->is_null()) {
    if (*f != "float" && *f != "base64") {
      respond_error(out, 400, "encoding_format must be float or base64", nullptr, "encoding_format");
      return;
    }
    as_base64 = *f == "base64";
  }
  Model m;
  if (!load_model(body, out, m)) return;
  wnn_context ctx = 0;
  wnn_error err;
  if (wnn_init_execution_context(m.graph, &ctx, &err)) {
    respond_error(out, 500, "init-execution-context failed: " + nn_error_text(err));
    return;
  }
  std::string why;
  const bool env_ok = apply_env_options(
      [&](const std::string& name, const std::string& value) {
        wnn_error e;
        if (!wnx_set_context_property(ctx, name.data(), static_cast<uint32_t>(name.size()), value.data(),
                                      static_cast<uint32_t>(value.size()), &e))
          return std::string();
        return nn_error_text(e);
      },
      why);
  if (!env_ok) {
    wnn_context_drop(ctx);
    respond_error(out, 500, why);
    return;
  }
  static const char config[] = "{\"embedding\": true}";
  json data = json::array();
  int64_t tokens = 0;
  std::string failure;
  for (size_t i = 0; i < inputs.size() && failure.empty(); ++i) {
    const std::string& text = inputs[i];
    uint32_t dims[1] = {static_cast<uint32_t>(text.size())};
    uint32_t config_dims[1] = {sizeof config - 1};
    wnn_named_tensor tensors[2] = {
        wnn_named("prompt", wnn_tensor_new(dims, 1, WNN_TYPE_U8, text.data(), dims[0])),
        wnn_named("metadata", wnn_tensor_new(config_dims, 1, WNN_TYPE_U8, config, config_dims[0]))};
    wnn_named_tensor_list outputs;
    if (wnn_compute(ctx, tensors, 2, &outputs, &err)) {
      failure = nn_error_text(err);
      break;
    }
    const int k = wnn_find_output(&outputs, "text");
    const int meta = wnn_find_output(&outputs, "metadata");
    if (k < 0 || wnn_tensor_ty(outputs.ptr[k].tensor) != WNN_TYPE_FP32) {
      failure = "the model gave no FP32 output named text (is it a text model?)";
    } else {
      wnn_bytes bytes = wnn_tensor_data(outputs.ptr[k].tensor);
      std::vector<float> v(bytes.len / sizeof(float));
      if (!v.empty()) memcpy(v.data(), bytes.ptr, v.size() * sizeof(float));
      free(bytes.ptr);
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", as_base64 ? json(base64(v)) : json(v)}});
      if (meta >= 0) {
        wnn_bytes mb = wnn_tensor_data(outputs.ptr[meta].tensor);
        const json mj = json::parse(std::string(reinterpret_cast<const char*>(mb.ptr), mb.len), nullptr, false);
        free(mb.ptr);
        if (mj.is_object() && mj.contains("input_tokens") && mj["input_tokens"].is_number_integer()) {
          tokens += mj["input_tokens"].get<int64_t>();
        }
      }
    }
    wnn_named_tensor_list_free(&outputs);
  }
  wnn_context_drop(ctx);
  if (!failure.empty()) {
    respond_error(out, 500, "embedding failed: " + failure);
    return;
  }
  respond_json(out, 200,
               {{"object", "list"},
                {"data", data},
                {"model", m.name},
                {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
}

void models(wh_response_outparam out) {
  std::string names = env_value("MODELS");
  if (names.empty()) names = "default";
  json data = json::array();
  for (size_t start = 0; start <= names.size();) {
    size_t end = names.find(',', start);
    if (end == std::string::npos) end = names.size();
    if (end > start) {
      data.push_back(
          {{"id", names.substr(start, end - start)}, {"object", "model"}, {"created", 0}, {"owned_by", "wasinn"}});
    }
    start = end + 1;
  }
  respond_json(out, 200, {{"object", "list"}, {"data", data}});
}

void route(wh_incoming_request req, wh_response_outparam out, const hg_request* r) {
  const std::string path = r->path;
  const bool post_path = path == "/v1/chat/completions" || path == "/v1/completions" || path == "/v1/embeddings";
  if (path == "/v1/models") {
    if (r->method != WH_GET) return respond_error(out, 405, "use GET /v1/models");
    return models(out);
  }
  if (!post_path) {
    return respond_error(out, 404,
                         "no such path: POST /v1/chat/completions, /v1/completions, /v1/embeddings; GET /v1/models",
                         "unknown_url");
  }
  if (r->method != WH_POST) return respond_error(out, 405, "use POST " + path);
  hg_buf raw = {};
  if (hg_read_body(req, &raw)) {
    hg_buf_free(&raw);
    return respond_error(out, 400, "the request body could not be read");
  }
  const json body = json::parse(std::string(raw.data ? raw.data : "", raw.len), nullptr, false);
  hg_buf_free(&raw);
  if (body.is_discarded() || !body.is_object()) return respond_error(out, 400, "the body must be a JSON object");
  if (path == "/v1/embeddings") return embeddings(body, out);
  completions(path == "/v1/chat/completions" ? Kind::chat : Kind::completion, body, out);
}

}  // namespace

extern "C" WH_EXPORT_HANDLE void handle(wh_incoming_request req, wh_response_outparam out) {
  hg_handle(req, out, route);
}
