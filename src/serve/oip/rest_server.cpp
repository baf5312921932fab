// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/rest_server.h"

#include <dlfcn.h>
#include <signal.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include <civetweb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "serve/oip/error_status.h"
#include "oip/server_json.h"
#include "wasinn/version.h"

namespace wasinn::oip_server {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// One answer: status, body, and the length of its JSON part when binary outputs follow it.
struct Reply {
  int status = 200;
  std::string body;
  std::optional<size_t> json_length;
  std::string note;                 // for the access log: why it failed
  const char* challenge = nullptr;  // a 401's WWW-Authenticate
};

// 401 (--api-key): RFC 6750's challenge, and an error object as OpenAI-style clients read it.
Reply unauthorized(bool presented) {
  Reply r;
  r.status = 401;
  r.note = presented ? "the API key is not one this server takes" : "no API key";
  const json error = {{"error",
                       {{"message", presented ? "the API key is not one this server takes"
                                              : "this server needs an API key: send it as 'Authorization: Bearer KEY'"},
                        {"type", "invalid_request_error"},
                        {"code", presented ? "invalid_api_key" : "missing_api_key"}}}};
  r.body = dump(error);
  r.challenge = presented ? "Bearer realm=\"wasinn\", error=\"invalid_token\"" : "Bearer realm=\"wasinn\"";
  return r;
}

Reply ok_json(const json& j) { return {200, dump(j), std::nullopt, ""}; }
Reply error_reply(int status, const std::string& message) {
  return {status, oip::error_json(message), std::nullopt, message};
}
Reply error_reply(const Error& e) { return error_reply(http_status(e.code), e.detail); }

json config_json(const ModelConfigInfo& c) {
  auto tensors = [](const std::vector<ConfigTensor>& list, bool inputs) {
    json a = json::array();
    for (const auto& t : list) {
      json e = {{"name", t.name}, {"data_type", t.data_type}, {"dims", t.dims}};
      if (inputs) e["optional"] = t.optional;
      a.push_back(std::move(e));
    }
    return a;
  };
  // max_batch_size 0: the shapes are whole; above 0 (dynamic batching), dims leave dimension 0 out.
  json config = {{"name", c.name},
                 {"platform", c.platform},
                 {"backend", c.backend},
                 {"max_batch_size", c.max_batch_size},
                 {"input", tensors(c.inputs, true)},
                 {"output", tensors(c.outputs, false)},
                 {"instance_group", json::array({{{"name", c.name}, {"kind", "KIND_CPU"}, {"count", 1}}})}};
  if (c.max_batch_size > 0) config["dynamic_batching"] = {{"max_queue_delay_microseconds", c.max_queue_delay_us}};
  return config;
}

json stats_json(const ServedModel& m) {
  const ModelStats s = m.stats();
  auto duration = [](uint64_t count, uint64_t ns) { return json{{"count", count}, {"ns", ns}}; };
  json batches = json::array();
  for (const auto& [size, b] : s.batch_stats)
    batches.push_back({{"batch_size", size},
                       {"compute_input", duration(b.count, b.input_ns)},
                       {"compute_infer", duration(b.count, b.compute_ns)},
                       {"compute_output", duration(b.count, b.output_ns)}});
  return {{"name", m.name()},
          {"version", m.version()},
          {"last_inference", s.last_inference_ms},
          {"inference_count", s.success_count},
          {"execution_count", s.execution_count},
          {"inference_stats",
           {{"success", duration(s.success_count, s.success_ns)},
            {"fail", duration(s.fail_count, s.fail_ns)},
            {"queue", duration(s.queue_count, s.queue_ns)},
            {"compute_input", duration(s.compute_count, s.input_ns)},
            {"compute_infer", duration(s.compute_count, s.compute_ns)},
            {"compute_output", duration(s.compute_count, s.output_ns)},
            {"cache_hit", duration(0, 0)},
            {"cache_miss", duration(0, 0)}}},
          {"batch_stats", std::move(batches)}};
}

// The route of a /v2/models/... path: the model, its version ("" any) and what is asked
// ("" metadata, "ready", "infer", "config", "stats").
struct ModelRoute {
  std::string_view name, version, action;
};
std::optional<ModelRoute> model_route(std::string_view rest) {
  std::vector<std::string_view> parts;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  }
  if (parts.empty() || parts[0].empty()) return std::nullopt;
  ModelRoute r{parts[0], "", ""};
  size_t i = 1;
  if (parts.size() >= 3 && parts[1] == "versions") {
    r.version = parts[2];
    i = 3;
  }
  if (parts.size() == i + 1)
    r.action = parts[i];
  else if (parts.size() != i)
    return std::nullopt;
  return r;
}

class Handler {
 public:
  Handler(ServerContext& ctx, mg_connection* conn) : ctx_(ctx), conn_(conn) {}

  // The request's body, or the reply refusing it (413 past --max-request-bytes, before reading).
  std::optional<Reply> read_body(std::string& body) {
    const mg_request_info* info = mg_get_request_info(conn_);
    const uint64_t limit = ctx_.max_request_bytes;
    if (info->content_length >= 0) {
      const auto length = static_cast<uint64_t>(info->content_length);
      if (limit && length > limit) {
        // A client sends its whole body before it reads the answer: the first 64 MiB past the
        // limit are read and dropped, so that it gets the 413 rather than a reset connection.
        if (length - limit <= (64u << 20)) {
          std::vector<char> sink(65536);  // not on this thread's 100 KiB stack
          for (uint64_t left = length; left > 0;) {
            const int n = mg_read(conn_, sink.data(), std::min<uint64_t>(left, sink.size()));
            if (n <= 0) break;
            left -= static_cast<uint64_t>(n);
          }
        }
        return error_reply(413,
                           fmt::format("the request's body of {} bytes exceeds --max-request-bytes {}", length, limit));
      }
      body.resize(length);
      size_t got = 0;
      while (got < length) {
        const int n = mg_read(conn_, body.data() + got, length - got);
        if (n <= 0) return error_reply(400, "the request's body ended early");
        got += static_cast<size_t>(n);
      }
      return std::nullopt;
    }
    std::vector<char> buf(65536);  // chunked: read until the end, or past the limit
    for (;;) {
      const int n = mg_read(conn_, buf.data(), buf.size());
      if (n < 0) return error_reply(400, "the request's body could not be read");
      if (n == 0) return std::nullopt;
      body.append(buf.data(), static_cast<size_t>(n));
      if (limit && body.size() > limit)
        return error_reply(413, fmt::format("the request's body exceeds --max-request-bytes {}", limit));
    }
  }

  Reply route(std::string_view method, std::string_view path, const std::string& body, uint64_t* bytes_in) {
    *bytes_in = body.size();
    const bool get = method == "GET" || method == "HEAD", post = method == "POST";
    if (path == "/v2/health/live") return get ? Reply{200, "", std::nullopt, ""} : not_allowed();
    if (path == "/v2/health/ready") {
      if (!get) return not_allowed();
      if (ctx_.stopping) return error_reply(503, "the server is stopping");
      return {200, "", std::nullopt, ""};
    }
    if (path == "/v2" || path == "/v2/") {
      if (!get) return not_allowed();
      return ok_json({{"name", "wasinn"},
                      {"version", WASINN_VERSION_STRING},
                      {"extensions", {"binary_tensor_data", "model_repository", "model_configuration", "statistics"}}});
    }
    if (path == "/v2/models/stats") return get ? all_stats() : not_allowed();
    if (path == "/v2/repository/index") return post ? index(body) : not_allowed();
    constexpr std::string_view kRepo = "/v2/repository/models/", kModels = "/v2/models/";
    if (path.starts_with(kRepo)) {
      if (!post) return not_allowed();
      const std::string_view rest = path.substr(kRepo.size());
      const size_t slash = rest.find('/');
      if (slash == std::string_view::npos) return error_reply(404, fmt::format("no route {}", path));
      const std::string_view name = rest.substr(0, slash), action = rest.substr(slash + 1);
      if (action == "load") return status_reply(ctx_.models.load(name));
      if (action == "unload") return status_reply(ctx_.models.unload(name));
      return error_reply(404, fmt::format("no route {}", path));
    }
    if (path.starts_with(kModels)) {
      const auto r = model_route(path.substr(kModels.size()));
      if (!r) return error_reply(404, fmt::format("no route {}", path));
      if (r->action == "infer") return post ? infer(*r, body) : not_allowed();
      if (!get) return not_allowed();
      auto m = ctx_.models.find(r->name, r->version, r->action == "ready");
      if (!m) return error_reply(m.error());
      if (r->action == "") return {200, oip::encode_model_metadata_json((*m)->metadata()), std::nullopt, ""};
      if (r->action == "ready") return {200, "", std::nullopt, ""};
      if (r->action == "config") return ok_json(config_json((*m)->config()));
      if (r->action == "stats") return ok_json({{"model_stats", json::array({stats_json(**m)})}});
    }
    return error_reply(404, fmt::format("no route {} {}", method, path));
  }

 private:
  Reply not_allowed() { return error_reply(405, "method not allowed here"); }
  Reply status_reply(Status s) { return s ? Reply{200, "", std::nullopt, ""} : error_reply(s.error()); }

  Reply all_stats() {
    json list = json::array();
    for (const auto& m : ctx_.models.all()) list.push_back(stats_json(*m));
    return ok_json({{"model_stats", std::move(list)}});
  }

  Reply index(const std::string& body) {
    bool ready_only = false;
    if (!body.empty()) {
      const json j = json::parse(body, nullptr, false);
      if (!j.is_object()) return error_reply(400, "the index request is not a JSON object");
      if (auto r = j.find("ready"); r != j.end() && r->is_boolean()) ready_only = r->get<bool>();
    }
    json list = json::array();
    for (const auto& m : ctx_.models.all()) {
      const bool ready = m->ready();
      if (ready_only && !ready) continue;
      json e = {{"name", m->name()}, {"version", m->version()}, {"state", ready ? "READY" : "UNAVAILABLE"}};
      if (!ready) e["reason"] = m->state_reason();
      list.push_back(std::move(e));
    }
    return ok_json(list);
  }

  Reply infer(const ModelRoute& r, const std::string& body) {
    auto model = ctx_.models.find(r.name, r.version, true);
    if (!model) return error_reply(model.error());
    size_t json_length = body.size();
    if (const char* h = mg_get_header(conn_, "Inference-Header-Content-Length")) {
      const std::string_view v(h);
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), json_length);
      if (ec != std::errc() || end != v.data() + v.size() || json_length > body.size())
        return error_reply(400, fmt::format("Inference-Header-Content-Length '{}' is not a length within the body's {} "
                                            "bytes",
                                            v, body.size()));
    }
    oip::InferRequest request;
    const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
    if (sdk::Error e = oip::decode_infer_request_json(std::string_view(body).substr(0, json_length),
                                                      std::span(bytes + json_length, body.size() - json_length),
                                                      request, input_name_check(**model)))
      return error_reply(400, e.detail);
    // The compute and the answer's encoding run on a worker (ModelSet::run): this thread's stack
    // is civetweb's 100 KiB.
    Reply reply;
    // Dynamic batching: the request waits in its model's batch queue from here, not on a worker.
    auto batch = (*model)->join_batch(request);
    const auto served = ctx_.models.run([&](uint64_t queue_ns) {
      try {
        auto answer = (*model)->infer(request, queue_ns, &batch);
        if (!answer) {
          reply = error_reply(answer.error());
          return;
        }
        reply.body = oip::encode_infer_response_json((*model)->name(), (*model)->version(), request.id, answer->outputs,
                                                     &json_length);
        if (json_length != reply.body.size()) reply.json_length = json_length;
      } catch (const std::exception& e) {
        reply = error_reply(500, fmt::format("internal error: {}", e.what()));
      }
    });
    if (!served) return error_reply(503, "every worker is busy and the queue is full (--workers, --max-queue)");
    return reply;
  }

  ServerContext& ctx_;
  mg_connection* conn_;
};

// A connection's mark (civetweb's user connection data, set by RestServer::init_connection): counted
// as open, or refused past --max-connections (answered 503 already).
char counted_mark, refused_mark;

int handle(mg_connection* conn, void* data) {
  // A refused connection's request, come after its 503: no second answer, and not an access-log
  // line (the refusal was counted and logged); the connection closes.
  if (mg_get_user_connection_data(conn) == &refused_mark) {
    mg_disable_connection_keep_alive(conn);  // again: civetweb clears it as each request begins
    return 503;
  }
  auto& ctx = *static_cast<ServerContext*>(data);
  const auto started = Clock::now();
  ctx.in_flight.fetch_add(1);
  const mg_request_info* info = mg_get_request_info(conn);
  const std::string method = info->request_method ? info->request_method : "";
  const std::string path = info->local_uri ? info->local_uri : "";
  auto header = [conn](const char* name) {
    const char* v = mg_get_header(conn, name);
    return std::string_view(v ? v : "");
  };
  const ServerContext::Client client{fmt::format("{}:{}", info->remote_addr, info->remote_port),
                                     ctx.request_id(header("X-Request-Id")), std::string(header("User-Agent"))};
  // Health stays open: probes carry no key.
  const bool needs_key = ctx.keys && !path.starts_with("/v2/health/");
  const uint64_t ticket = ctx.begin_pending(method, path, client, started);
  Handler handler(ctx, conn);
  std::string body;
  uint64_t bytes_in = 0;
  Reply reply;
  ctx.working.fetch_add(1);
  const bool draining = ctx.stopping.load();
  if (draining) ctx.working.fetch_sub(1);
  try {
    if (needs_key && !ctx.keys->check(header("Authorization")))
      reply = unauthorized(mg_get_header(conn, "Authorization") != nullptr);
    else if (draining && path != "/v2/health/live")
      reply = error_reply(503, "the server is stopping");
    else if (auto refused = handler.read_body(body))
      reply = std::move(*refused);
    else
      reply = handler.route(method, path, body, &bytes_in);
  } catch (const std::exception& e) {  // std::bad_alloc for a body the machine cannot hold
    reply = error_reply(500, fmt::format("internal error: {}", e.what()));
  }
  mg_response_header_start(conn, reply.status);
  mg_response_header_add(conn, "Content-Type", reply.json_length ? "application/octet-stream" : "application/json", -1);
  mg_response_header_add(conn, "Content-Length", std::to_string(reply.body.size()).c_str(), -1);
  if (reply.json_length)
    mg_response_header_add(conn, "Inference-Header-Content-Length", std::to_string(*reply.json_length).c_str(), -1);
  if (reply.challenge) mg_response_header_add(conn, "WWW-Authenticate", reply.challenge, -1);
  mg_response_header_add(conn, "X-Request-Id", client.request_id.c_str(), -1);
  // A 413's or a 401's body was not read; once stopping, connections are not kept for more requests.
  if (reply.status == 413 || reply.status == 401 || draining) mg_response_header_add(conn, "Connection", "close", -1);
  const bool sent = mg_response_header_send(conn) >= 0 &&
                    (method == "HEAD" || reply.body.empty() ||
                     mg_write(conn, reply.body.data(), reply.body.size()) == static_cast<int>(reply.body.size()));
  // A 504 is the compute's deadline (--request-timeout, --max-compute-ms) cutting the request.
  const char* outcome = !sent ? "cut:client-left" : reply.status == 504 ? "cut:timeout" : "completed";
  // Unless the drain's end logged it already (cut_pending).
  if (ctx.end_pending(ticket))
    ctx.record(method, path, reply.status, bytes_in, reply.body.size(), started, reply.note, client, outcome);
  if (!draining) ctx.working.fetch_sub(1);
  ctx.in_flight.fetch_sub(1);
  return reply.status;
}

// civetweb's init_thread, on each of its threads: SIGPIPE blocked there. Its own writes use
// MSG_NOSIGNAL, but OpenSSL's (an answer or close_notify over TLS to a client that has gone) are
// plain write()s, whose SIGPIPE would end the process; blocked, the write fails with EPIPE.
void* block_sigpipe(const mg_context*, int) {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  return nullptr;
}

// OpenSSL's last error as text, for a TLS file's message.
std::string openssl_error() {
  char text[256] = "unknown error";
  if (const unsigned long e = ERR_get_error()) ERR_error_string_n(e, text, sizeof text);
  ERR_clear_error();
  return text;
}

// Loads the stand-ins for libssl.so and libcrypto.so (civetweb_openssl_shim.c) before civetweb
// looks for OpenSSL, once per process; "" or why they cannot be loaded.
std::string load_openssl_shims() {
  static const std::string failed = [] {
    for (const char* lib : {"libwasinn_civetweb_crypto.so", "libwasinn_civetweb_ssl.so"}) {
      if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) return std::string(dlerror());
    }
    return std::string();
  }();
  return failed;
}

}  // namespace

// civetweb's init_connection, on the worker that has just taken the connection (over TLS, once its
// handshake is done): within --max-connections it counts as open until connection_close;
// past it the 503 goes out at once, before any request (a client waiting for its answer reads it,
// an idle one sees it), and the connection closes when its client closes it or sends a request,
// or at --header-timeout. Writing here is what civetweb's const discourages, but the socket (or
// TLS session) is ready: mg_write only sends.
int RestServer::init_connection(const mg_connection* conn, void** conn_data) {
  auto* self = static_cast<RestServer*>(mg_get_user_data(mg_get_context(conn)));
  // The client's address is not known yet here (civetweb gives no request info before a request).
  if (self->connections_->admit("")) {
    *conn_data = &counted_mark;
    return 0;
  }
  *conn_data = &refused_mark;
  auto* writable = const_cast<mg_connection*>(conn);
  mg_disable_connection_keep_alive(writable);
  const std::string body = oip::error_json(
      fmt::format("too many connections: --max-connections {} are open; try again later", self->connections_->limit()));
  const std::string answer = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
      "Retry-After: 1\r\nConnection: close\r\n\r\n{}",
      body.size(), body);
  mg_write(writable, answer.data(), answer.size());
  return 0;
}

// civetweb's connection_close: a connection init_connection counted is no longer open (one whose TLS
// handshake failed never was: its mark is null).
void RestServer::connection_close(const mg_connection* conn) {
  if (mg_get_user_connection_data(conn) != &counted_mark) return;
  static_cast<RestServer*>(mg_get_user_data(mg_get_context(conn)))->connections_->closed();
}

// civetweb's init_ssl: the certificate, key and client CA set on civetweb's SSL_CTX by OpenSSL
// itself (civetweb wants the certificate and key in one file, and reads no CA list when a
// callback did the work). 1: done; -1: refused (tls_error_ says why).
int RestServer::init_tls(void* ssl_ctx, void* self_ptr) {
  auto* self = static_cast<RestServer*>(self_ptr);
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  const TlsFiles& tls = self->tls_;
  auto fail = [&](const std::string& flag, const std::string& file, const char* what) {
    self->tls_error_ = fmt::format("{} {}: {} ({})", flag, file, what, openssl_error());
    return -1;
  };
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert.c_str()) != 1)
    return fail("--tls-cert", tls.cert, "not a PEM certificate");
  if (SSL_CTX_use_PrivateKey_file(ctx, tls.key.c_str(), SSL_FILETYPE_PEM) != 1)
    return fail("--tls-key", tls.key, "not a PEM private key");
  if (SSL_CTX_check_private_key(ctx) != 1) return fail("--tls-key", tls.key, "does not match --tls-cert");
  if (!tls.client_ca.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, tls.client_ca.c_str(), nullptr) != 1)
      return fail("--tls-client-ca", tls.client_ca, "not a PEM certificate");
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca.c_str()))
      SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return 1;
}

Result<std::unique_ptr<RestServer>> RestServer::start(ServerContext& context, const std::string& address,
                                                      size_t threads, uint64_t read_timeout_ms, const TlsFiles& tls,
                                                      ConnectionLimit* connections) {
  std::unique_ptr<RestServer> server(new RestServer(context, connections));
  server->tls_ = tls;
  const bool https = !tls.cert.empty();
  // civetweb serves TLS on a port whose number ends in "s".
  const std::string listening = https ? address + "s" : address;
  const std::string thread_count = std::to_string(threads);
  // request_timeout_ms: civetweb's bound on each read and write of a connection, so a client
  // that stops sending its headers or body frees its thread (civetweb's default is 30 s).
  const std::string read_timeout = std::to_string(read_timeout_ms ? read_timeout_ms : 30000);
  // tcp_nodelay: an answer's headers and body are two writes; with Nagle's algorithm the body
  // waits for the client's delayed ACK of the headers (40 ms on Linux) on every keep-alive request.
  // keep_alive_timeout_ms: civetweb's mg_stop waits for its threads, and a thread on an idle
  // keep-alive connection notices the stop only when that connection times out: 5 s (Node's
  // default too) bounds what an idle client adds to a SIGTERM.
  const char* options[] = {"listening_ports",
                           listening.c_str(),
                           "num_threads",
                           thread_count.c_str(),
                           "enable_keep_alive",
                           "yes",
                           "keep_alive_timeout_ms",
                           "5000",
                           "tcp_nodelay",
                           "1",
                           "request_timeout_ms",
                           read_timeout.c_str(),
                           nullptr};
  mg_callbacks callbacks{};
  if (connections) {
    callbacks.init_connection = &RestServer::init_connection;
    callbacks.connection_close = &RestServer::connection_close;
  }
  if (https) {
    if (std::string why = load_openssl_shims(); !why.empty())
      return make_error(Errc::runtime_error,
                        fmt::format("--oip-http over TLS: cannot load OpenSSL for civetweb: {}", why));
    if (!(mg_init_library(MG_FEATURES_TLS) & MG_FEATURES_TLS)) {
      mg_exit_library();
      return make_error(Errc::runtime_error, "--oip-http over TLS: civetweb could not start OpenSSL");
    }
    callbacks.init_ssl = &RestServer::init_tls;
    callbacks.init_thread = &block_sigpipe;
  } else {
    mg_init_library(0);
  }
  // civetweb's master thread sets SIGPIPE to ignored for the whole process as it starts (after
  // mg_start returns, so it cannot be undone here); the CLI ignores it from its start (main.cpp).
  server->server_ = mg_start(&callbacks, server.get(), options);
  if (!server->server_) {
    mg_exit_library();
    if (!server->tls_error_.empty()) return make_error(Errc::invalid_argument, server->tls_error_);
    return make_error(Errc::invalid_argument, fmt::format("--oip-http {}: cannot listen there (is the port taken, or "
                                                          "the address not one of this machine's?)",
                                                          address));
  }
  mg_set_request_handler(server->server_, "/", handle, &context);
  mg_server_port port{};
  const auto colon = address.rfind(':');
  const int chosen = mg_get_server_ports(server->server_, 1, &port) == 1 ? port.port : 0;
  server->address_ = fmt::format("{}:{}", address.substr(0, colon), chosen);
  return server;
}

RestServer::~RestServer() {
  if (!server_) return;
  mg_stop(server_);
  mg_exit_library();
}

}  // namespace wasinn::oip_server
