// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * http_openai: an OpenAI-compatible endpoint as a wasi:http/proxy component (KIND http, EXT) for
 * `wasinn serve`, over wasi:nn and wasinn:nn-ext's prompt sessions, with the models the server
 * preloads (--nn-preload NAME:GGML:AUTO:model.gguf): a request's "model" is the preload's name.
 *
 *   GET  /v1/models             the names in the guest's environment variable MODELS (comma-
 *                               separated; `wasinn serve --env MODELS=a,b`), else the GGML,
 *                               whisper and Piper models the server registered (WASINN_MODELS,
 *                               NAME:ENCODING,...)
 *   POST /v1/chat/completions   messages -> the model's chat template (the plugin applies its
 *                               GGUF's tokenizer.chat_template as llama.cpp does) -> the answer
 *   POST /v1/completions        prompt -> the answer
 *   POST /v1/embeddings         input (a string or a list of strings) -> one embedding each
 *                               (encoding_format float, or base64: little-endian float32)
 *   POST /v1/rerank             query and documents -> the documents by a reranker's score
 *                               (http_openai_rerank.cpp)
 *   POST /v1/audio/speech       input and voice -> the audio file (mp3, opus, flac, wav, pcm) a
 *                               Piper voice speaks (http_openai_speech.cpp)
 *   GET  /v1/audio/voices       each Piper model and the voice names its requests' `voice` takes
 *   POST /v1/audio/transcriptions  a multipart form's audio file (WAV, FLAC, MP3) -> its text
 *                               (json, text, srt, vtt, verbose_json) by a whisper model
 *   POST /v1/audio/translations the same, translated to English (http_openai_transcription.cpp)
 *   GET  /                      a chat page on the above (http_openai_page.cpp)
 *
 * A request without "model" uses the only one (400 when there are several). The environment
 * variable NN_OPTIONS (a JSON object of the graph's settable properties, e.g. {"ctx-size": 4096,
 * "threads": 8}) is set on every session and context before the request's own fields (`serve`
 * checks it at start; a bad one here answers 500 naming it).
 *
 * Generation: the body is checked by openai_request.cpp (no WIT: fuzzed natively), which turns
 * max_tokens (or max_completion_tokens; at most MAX_TOKENS, default the context's size),
 * temperature, top_p, seed, the penalties and llama-server's extras (top_k, min_p, ...) into the
 * session's properties and refuses every field it does not honour; the answer's length is what max_tokens and the
 * context leave, so it never runs past the context, and its finish_reason is "length" when either ended it, "stop" when
 * the model or a stop text did. stop (a string or up to 4) ends the answer before the first stop text, which is left
 * out, as OpenAI does; "stream": true answers with server-sent events (data: chunk, ..., data: [DONE]) a token at a
 * time, and stream_options.include_usage adds the usage chunk. A client that leaves mid-stream ends the generation at
 * its next token: the session (its KV cache) is dropped at once. A stream ends before the server's deadline (the
 * request header wasinn-deadline-ms) with finish_reason "length" and an error event saying why. response_format
 * json_object / json_schema become the plugin's json-schema grammar; logprobs (and top_logprobs)
 * come from the plugin's n-probs metadata, token by token. Tools go to the plugin in the messages'
 * object form; the answer is then the plugin's parsed message (openai_message.cpp: its stream deltas).
 * Images: a message's image_url parts (base64 data: URLs only, at most MAX_IMAGE_BYTES, default 20
 * MiB, decoded per request) go to the plugin as WasmEdge's inline <img src="data:..."> tags in
 * llama.cpp's media_marker parts, which the template renders in place and the plugin decodes with
 * the model's projector (wasinn serve --mmproj); the plugin's refusals become 400s that say what.
 * Errors are OpenAI's shape, {"error": {"message", "type", "param", "code"}}: 400 for a bad
 * request (context_length_exceeded for a prompt the context cannot hold, unsupported_parameter
 * naming a field this endpoint does not implement, "Unrecognized request argument supplied" for an
 * unknown one), 404 for an unknown model or path, 405 for a wrong method, 500 for a failed inference.
 *
 * The parts: http_openai.h (what they share), this file (routes, models, embeddings),
 * http_openai_generation.cpp (completions), openai_request.cpp (the request's fields) and
 * openai_message.cpp (the parsed message's deltas).
 *
 * C++ for nlohmann/json (Debian's header-only library), built without exceptions: parsing never
 * throws (parse(..., false) gives a discarded value), every value is type-checked before use,
 * and dump() replaces invalid UTF-8 instead of throwing.
 */
#include "http_openai.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace openai {

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

uint64_t env_number(const char* name) {
  const std::string text = env_value(name);
  char* end = nullptr;
  const unsigned long long v = text.empty() || text[0] == '-' ? 0 : strtoull(text.c_str(), &end, 10);
  return end && !*end ? v : 0;
}

// wasi:http's request headers: headers() -> own<fields>; fields.get(name) -> list<field-value>.
struct HeaderValue {
  uint8_t* ptr;
  uint32_t len;
};
struct HeaderValues {
  HeaderValue* ptr;
  uint32_t len;
};
extern "C" WH_IMPORT("wasi:http/types", "[method]incoming-request.headers") int32_t
    wasi_request_headers(wh_incoming_request req);
extern "C" WH_IMPORT("wasi:http/types", "[method]fields.get") void wasi_fields_get(int32_t fields, const char* name,
                                                                                   uint32_t name_len,
                                                                                   HeaderValues* ret);
extern "C" WH_IMPORT("wasi:http/types", "[resource-drop]fields") void wasi_fields_drop(int32_t fields);

// The request's first value of header `name` (lower case), "" when absent.
std::string header_value(wh_incoming_request req, const char* name) {
  const int32_t fields = wasi_request_headers(req);
  HeaderValues values{nullptr, 0};
  wasi_fields_get(fields, name, static_cast<uint32_t>(strlen(name)), &values);
  std::string found;
  for (uint32_t i = 0; i < values.len; ++i) {
    if (i == 0) found.assign(reinterpret_cast<const char*>(values.ptr[i].ptr), values.ptr[i].len);
    free(values.ptr[i].ptr);
  }
  free(values.ptr);
  wasi_fields_drop(fields);
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
void respond_error(wh_response_outparam out, int status, const std::string& message, const char* code,
                   const char* param) {
  respond_refusal(out, Refusal{status, message, code ? code : "", param ? param : ""});
}

namespace {
AnswerFormat* current_format = nullptr;
}  // namespace

FormatScope::FormatScope(AnswerFormat* f) { current_format = f; }
FormatScope::~FormatScope() { current_format = nullptr; }
AnswerFormat* FormatScope::current() { return current_format; }

void respond_refusal(wh_response_outparam out, const Refusal& why) {
  respond_json(out, why.status, current_format ? current_format->error(why) : error_json(why));
}

std::string take(wnn_string s) {
  std::string text(s.ptr ? s.ptr : "", s.len);
  free(s.ptr);
  return text;
}

std::vector<std::string> property_names(wnn_graph g) {
  wnx_string_list l = wnx_list_properties(g);
  std::vector<std::string> names;
  for (uint32_t i = 0; i < l.len; ++i) names.emplace_back(l.ptr[i].ptr ? l.ptr[i].ptr : "", l.ptr[i].len);
  wnx_string_list_free(&l);
  return names;
}

bool env_options(json& options, std::string& why) {
  options = json::object();
  const std::string text = env_value("NN_OPTIONS");
  if (text.empty()) return true;
  options = json::parse(text, nullptr, false);
  if (options.is_object()) return true;
  why = "NN_OPTIONS must be a JSON object of properties, e.g. {\"ctx-size\": 4096}";
  return false;
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

// The models this endpoint offers: MODELS (comma-separated names) when set, else the GGML models
// the server registered (WASINN_MODELS, NAME:ENCODING,... set by `wasinn serve`).
std::vector<std::string> known_models() {
  const std::string given = env_value("MODELS");
  const std::string text = given.empty() ? env_value("WASINN_MODELS") : given;
  std::vector<std::string> names;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    if (!given.empty()) {
      if (!item.empty()) names.push_back(item);
      continue;
    }
    // The encodings this endpoint serves: llama.cpp's, whisper.cpp's and Piper's.
    const size_t colon = item.rfind(':');
    const std::string encoding = colon != std::string::npos ? item.substr(colon + 1) : "";
    if (colon > 0 && (encoding == "ggml" || encoding == "whisper" || encoding == "piper"))
      names.push_back(item.substr(0, colon));
  }
  return names;
}

// Loads the model named `name`; without one (""), the only model there is (400 when there are
// several); on failure answers and returns false.
bool load_model(const std::string& name, wh_response_outparam out, Model& m) {
  if (name.empty()) {
    const std::vector<std::string> names = known_models();
    if (names.size() > 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      respond_error(out, 400,
                    "you must provide a model parameter: this server has " + std::to_string(names.size()) +
                        " models (" + list + ")",
                    "missing_required_parameter", "model");
      return false;
    }
    m.name = names.empty() ? "default" : names[0];
  } else {
    m.name = name;
  }
  wnn_error err;
  if (wnn_load_by_name(m.name.data(), static_cast<uint32_t>(m.name.size()), &m.graph, &err)) {
    m.graph = 0;
    const int code = wnn_error_get_code(err);
    const std::string why = nn_error_text(err);
    if (code == WNN_ERROR_NOT_FOUND) {
      respond_error(out, 404, "The model `" + m.name + "` does not exist (wasinn serve --nn-preload registers models)",
                    "model_not_found", "model");
    } else if (code == WNN_ERROR_TOO_LARGE) {
      // The server has no room for it now (serve --models-max, memory): its reason, as a busy server's.
      respond_error(out, 503, "The model `" + m.name + "` cannot be loaded now: " + why, "model_not_loaded", "model");
    } else {
      respond_error(out, 500, "loading model `" + m.name + "` failed: " + why);
    }
    return false;
  }
  return true;
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
  auto model = body.find("model");
  if (model != body.end() && !model->is_string() && !model->is_null()) {
    respond_error(out, 400, "model must be a string", nullptr, "model");
    return;
  }
  Model m;
  if (!load_model(model != body.end() && model->is_string() ? model->get<std::string>() : "", out, m)) return;
  wnn_context ctx = 0;
  wnn_error err;
  if (wnn_init_execution_context(m.graph, &ctx, &err)) {
    respond_error(out, 500, "init-execution-context failed: " + nn_error_text(err));
    return;
  }
  std::string why;
  const bool env_ok =
      apply_env_options([&] { return property_names(m.graph); },
                        [&](const std::string& name, const std::string& value) {
                          wnn_error e;
                          if (!wnx_set_context_property(ctx, name.data(), static_cast<uint32_t>(name.size()),
                                                        value.data(), static_cast<uint32_t>(value.size()), &e))
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
    // The model's refusal of this input (a reranker, which gives scores) is the request's mistake.
    respond_error(out, failure.rfind("invalid-argument", 0) == 0 ? 400 : 500, "embedding failed: " + failure);
    return;
  }
  respond_json(out, 200,
               {{"object", "list"},
                {"data", data},
                {"model", m.name},
                {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
}

void models(wh_response_outparam out) {
  json data = json::array();
  for (const auto& name : known_models())
    data.push_back({{"id", name}, {"object", "model"}, {"created", 0}, {"owned_by", "wasinn"}});
  respond_json(out, 200, {{"object", "list"}, {"data", data}});
}

void route(wh_incoming_request req, wh_response_outparam out, const hg_request* r) {
  Generation g;
  g.started_ns = wh_monotonic_now();
  // The server's deadline for this request (docs/serving.md), ahead of wasi:http saying one.
  g.deadline_ms = strtoull(header_value(req, "wasinn-deadline-ms").c_str(), nullptr, 10);
  const std::string asked = r->path;
  // Each API route answers with and without /v1, as llama-server's and Ollama's do.
  const bool bare = asked == "/chat/completions" || asked == "/completions" || asked == "/embeddings" ||
                    asked == "/models" || asked == "/responses" || asked == "/messages" ||
                    asked == "/messages/count_tokens" || asked == "/rerank";
  const std::string path = bare ? "/v1" + asked : asked;
  const bool post_path = path == "/v1/chat/completions" || path == "/v1/completions" || path == "/v1/embeddings" ||
                         path == "/v1/responses" || path == "/v1/messages" || path == "/v1/messages/count_tokens" ||
                         path == "/v1/audio/transcriptions" || path == "/v1/audio/translations" ||
                         path == "/v1/audio/speech" || path == "/v1/rerank";
  // HEAD too (--public-path / lets both through): the server sends HEAD's headers without the body.
  if (path == "/" && (r->method == WH_GET || r->method == WH_HEAD)) return chat_page(out);
  if (path == "/v1/models") {
    if (r->method != WH_GET) return respond_error(out, 405, "use GET " + asked);
    return models(out);
  }
  if (path == "/v1/audio/voices") {
    if (r->method != WH_GET) return respond_error(out, 405, "use GET " + asked);
    return voices(out);
  }
  if (!post_path) {
    return respond_error(out, 404,
                         "no route for " + asked +
                             "; this server answers POST /v1/chat/completions, /v1/completions, /v1/embeddings, "
                             "/v1/responses, /v1/messages, /v1/messages/count_tokens, /v1/audio/transcriptions, "
                             "/v1/audio/translations, /v1/audio/speech and /v1/rerank, GET /v1/models and "
                             "/v1/audio/voices (each but audio also without /v1: POST /chat/completions, "
                             "/completions, /embeddings, /responses, /messages, /messages/count_tokens, /rerank, GET "
                             "/models) and GET / (the chat page)",
                         "unknown_url");
  }
  if (r->method != WH_POST) return respond_error(out, 405, "use POST " + asked);
  hg_buf raw = {};
  if (hg_read_body(req, &raw)) {
    hg_buf_free(&raw);
    return respond_error(out, 400, "the request body could not be read");
  }
  std::string text(raw.data ? raw.data : "", raw.len);
  hg_buf_free(&raw);
  // OpenAI's audio uploads are multipart forms, not JSON (http_openai_transcription.cpp).
  if (path == "/v1/audio/transcriptions" || path == "/v1/audio/translations")
    return transcriptions(header_value(req, "content-type"), text, path == "/v1/audio/translations", out, g);
  json body;
  Refusal why;
  const bool parsed = parse_body(text, body, why);
  if (!parsed) return respond_refusal(out, why);
  if (path == "/v1/embeddings") return embeddings(body, out);
  if (path == "/v1/responses") return responses(body, out, g);
  if (path == "/v1/messages") return messages(body, out, g);
  if (path == "/v1/messages/count_tokens") return count_tokens(body, out, g);
  if (path == "/v1/audio/speech") return speech(body, out, g);
  if (path == "/v1/rerank") return rerank(body, out, g);
  completions(path == "/v1/chat/completions" ? Kind::chat : Kind::completion, body, out, g);
}

}  // namespace openai

extern "C" WH_EXPORT_HANDLE void handle(wh_incoming_request req, wh_response_outparam out) {
  hg_handle(req, out, openai::route);
}
