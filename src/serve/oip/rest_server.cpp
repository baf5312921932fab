// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/rest_server.h"

#include <signal.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include <civetweb.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "oip/server_json.h"
#include "serve/oip/error_status.h"
#include "serve/oip/http_framing.h"
#include "serve/oip/rest_body.h"
#include "wasinn/version.h"

namespace wasinn::oip_server {
namespace {

using nlohmann::json;
using Clock = ReadDeadlines::Clock;

// A connection refused past --max-connections is closed this long after its 503 at the latest
// (at once when its client sends a request or closes), so that it holds its thread no longer.
constexpr uint64_t kRefusedGraceMs = 1000;
// civetweb's bound on a read with --header-timeout 0 (its default), and on an idle kept-alive
// connection at most: civetweb's mg_stop waits for its threads, and a thread on an idle kept-alive
// connection notices the stop only when that connection times out (Node's default is 5 s too).
constexpr uint64_t kCivetwebReadTimeoutMs = 30000, kMaxKeepAliveMs = 5000;

// When the calling worker began to wait for its client's request headers (for a header
// timeout's access-log line): civetweb serves one connection on a thread at a time.
thread_local Clock::time_point t_waiting_since;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// One answer: status, body, and the length of its JSON part when binary outputs follow it.
struct Reply {
  int status = 200;
  std::string body;
  std::optional<size_t> json_length;
  std::string note;                 // for the access log: why it failed
  const char* challenge = nullptr;  // a 401's WWW-Authenticate
  bool close = false;               // the connection closes after it (its body was not read whole)
  const char* outcome = nullptr;    // the access log's, when not "completed" (a 408: cut:timeout)
  bool known_route = false;         // the path is one of the server's routes (a metrics label)
};

// 401 (--api-key): RFC 6750's challenge, and the protocol's own error shape, which Triton's
// clients print. The body is not read: the connection closes after it.
Reply unauthorized(bool presented) {
  Reply r;
  r.status = 401;
  r.note = presented ? "the API key is not one this server takes" : "no API key";
  r.body = oip::error_json(presented ? "the API key is not one this server takes"
                                     : "this server needs an API key: send it as 'Authorization: Bearer KEY'");
  r.challenge = presented ? "Bearer realm=\"wasinn\", error=\"invalid_token\"" : "Bearer realm=\"wasinn\"";
  r.close = true;
  return r;
}

Reply ok_body(std::string body) {
  Reply r;
  r.body = std::move(body);
  r.known_route = true;
  return r;
}
Reply ok_json(const json& j) { return ok_body(dump(j)); }
Reply ok_empty() {
  Reply r;
  r.known_route = true;
  return r;
}
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

// A reply for a route the server has (a fixed one, or a model's that is registered): its path
// is the request metrics' route label; any other path counts as "other".
Reply known(Reply r) {
  r.known_route = true;
  return r;
}

// What a request's handling needs of its server.
struct Front {
  ServerContext& context;
  uint64_t header_timeout_ms;
  ReadDeadlines* deadlines;
};

class Handler {
 public:
  Handler(const Front& front, mg_connection* conn) : ctx_(front.context), front_(front), conn_(conn) {}

  // The request's body, or the reply refusing it: 413 past --max-request-bytes, 408 slower than
  // the least rate, 400 cut short; all three close the connection.
  std::optional<Reply> read_body(std::string& body) {
    const BodyRead read =
        read_request_body(conn_, {ctx_.max_request_bytes, front_.header_timeout_ms, front_.deadlines}, body);
    const mg_request_info* info = mg_get_request_info(conn_);
    Reply r;
    switch (read.end) {
      case BodyRead::End::whole: return std::nullopt;
      case BodyRead::End::too_large:
        r = error_reply(413,
                        info->content_length >= 0
                            ? fmt::format("the request's body of {} bytes exceeds --max-request-bytes {}",
                                          info->content_length, ctx_.max_request_bytes)
                            : fmt::format("the request's body exceeds --max-request-bytes {}", ctx_.max_request_bytes));
        break;
      case BodyRead::End::too_slow:
        r = error_reply(408, fmt::format("the request's body came slower than 1 KiB/s: {} bytes in {:.1f} s "
                                         "(--header-timeout {} ms, plus a second for each KiB)",
                                         read.bytes, read.seconds, front_.header_timeout_ms));
        r.outcome = "cut:timeout";
        break;
      case BodyRead::End::broken:
        r = error_reply(
            400, info->content_length >= 0 ? "the request's body ended early" : "the request's body could not be read");
        break;
    }
    r.close = true;
    return r;
  }

  Reply route(std::string_view method, std::string_view path, const std::string& body, uint64_t* bytes_in) {
    *bytes_in = body.size();
    const bool get = method == "GET" || method == "HEAD", post = method == "POST";
    if (path == "/v2/health/live") return known(get ? ok_empty() : not_allowed());
    if (path == "/v2/health/ready") {
      if (!get) return known(not_allowed());
      if (ctx_.stopping) return known(error_reply(503, "the server is stopping"));
      return ok_empty();
    }
    if (path == "/v2" || path == "/v2/") {
      if (!get) return known(not_allowed());
      return ok_json({{"name", "wasinn"},
                      {"version", WASINN_VERSION_STRING},
                      {"extensions", {"binary_tensor_data", "model_repository", "model_configuration", "statistics"}}});
    }
    if (path == "/v2/models/stats") return known(get ? all_stats() : not_allowed());
    if (path == "/v2/repository/index") return known(post ? index(body) : not_allowed());
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
      if (r->action == "") return ok_body(oip::encode_model_metadata_json((*m)->metadata()));
      if (r->action == "ready") return ok_empty();
      if (r->action == "config") return ok_json(config_json((*m)->config()));
      if (r->action == "stats") return ok_json({{"model_stats", json::array({stats_json(**m)})}});
    }
    return error_reply(404, fmt::format("no route {} {}", method, path));
  }

 private:
  Reply not_allowed() { return error_reply(405, "method not allowed here"); }
  Reply status_reply(Status s) { return s ? ok_empty() : error_reply(s.error()); }

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
    return known(infer_on(*model, body));
  }

  Reply infer_on(const std::shared_ptr<ServedModel>& model, const std::string& body) {
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
                                                      request, input_name_check(*model)))
      return error_reply(400, e.detail);
    // The compute and the answer's encoding run on a worker (ModelSet::run): this thread's stack
    // is civetweb's 100 KiB.
    Reply reply;
    // Dynamic batching: the request waits in its model's batch queue from here, not on a worker.
    auto batch = model->join_batch(request);
    const auto served = ctx_.models.run([&](uint64_t queue_ns) {
      try {
        auto answer = model->infer(request, queue_ns, &batch);
        if (!answer) {
          reply = error_reply(answer.error());
          return;
        }
        reply.body =
            oip::encode_infer_response_json(model->name(), model->version(), request.id, answer->outputs, &json_length);
        if (json_length != reply.body.size()) reply.json_length = json_length;
      } catch (const std::exception& e) {
        reply = error_reply(500, fmt::format("internal error: {}", e.what()));
      }
    });
    if (!served) return error_reply(503, "every worker is busy and the queue is full (--workers, --max-queue)");
    return reply;
  }

  ServerContext& ctx_;
  const Front& front_;
  mg_connection* conn_;
};

// A plaintext connection's mark (civetweb's user connection data, set by init_connection):
// counted as open, or refused past --max-connections (answered 503 already). Over TLS the count
// is the SSL session's (rest_tls.cpp), and there is no refused connection to answer.
char counted_mark, refused_mark;

// The response's head and body; false when the client did not take them.
bool send_reply(mg_connection* conn, const Reply& reply, std::string_view method, const std::string& request_id) {
  mg_response_header_start(conn, reply.status);
  mg_response_header_add(conn, "Content-Type", reply.json_length ? "application/octet-stream" : "application/json", -1);
  mg_response_header_add(conn, "Content-Length", std::to_string(reply.body.size()).c_str(), -1);
  if (reply.json_length)
    mg_response_header_add(conn, "Inference-Header-Content-Length", std::to_string(*reply.json_length).c_str(), -1);
  if (reply.challenge) mg_response_header_add(conn, "WWW-Authenticate", reply.challenge, -1);
  mg_response_header_add(conn, "X-Request-Id", request_id.c_str(), -1);
  return mg_response_header_send(conn) >= 0 &&
         (method == "HEAD" || reply.body.empty() ||
          mg_write(conn, reply.body.data(), reply.body.size()) == static_cast<int>(reply.body.size()));
}

// civetweb's init_thread, on each of its threads: SIGPIPE blocked there (its own writes use
// MSG_NOSIGNAL, but OpenSSL's, an answer or close_notify over TLS to a client that has gone, are
// plain write()s, whose SIGPIPE would end the process; blocked, the write fails with EPIPE), and
// ReadDeadlines' signal let through.
void* prepare_thread(const mg_context*, int) {
  sigset_t pipe, wake;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  sigemptyset(&wake);
  sigaddset(&wake, ReadDeadlines::wake_signal());
  pthread_sigmask(SIG_UNBLOCK, &wake, nullptr);
  return nullptr;
}

}  // namespace

// The request handler of every path: strict framing, the key, then the body (each refusal closes
// the connection, its body unread or cut), then the route; one access-log line and one count.
int RestServer::handle(mg_connection* conn, void* self_ptr) {
  auto& self = *static_cast<RestServer*>(self_ptr);
  self.deadlines_->disarm();  // the request's headers are in
  // A refused connection's request, come after its 503: no second answer, and not an access-log
  // line (the refusal was counted and logged); the connection closes.
  if (mg_get_user_connection_data(conn) == &refused_mark) {
    mg_disable_connection_keep_alive(conn);  // again: civetweb clears it as each request begins
    return 503;
  }
  ServerContext& ctx = self.context_;
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
  const Front front{ctx, self.header_timeout_ms_, self.deadlines_.get()};
  Handler handler(front, conn);
  std::string body;
  uint64_t bytes_in = 0;
  Reply reply;
  ctx.working.fetch_add(1);
  const bool draining = ctx.stopping.load();
  if (draining) ctx.working.fetch_sub(1);
  try {
    if (auto bad = framing_error(*info)) {
      reply = error_reply(bad->status, bad->message);
      reply.close = true;
    } else if (needs_key && !ctx.keys->check(header("Authorization"))) {
      reply = unauthorized(mg_get_header(conn, "Authorization") != nullptr);
    } else if (draining && path != "/v2/health/live") {
      reply = error_reply(503, "the server is stopping");
    } else if (auto refused = handler.read_body(body)) {
      reply = std::move(*refused);
    } else {
      reply = handler.route(method, path, body, &bytes_in);
    }
  } catch (const std::exception& e) {  // std::bad_alloc for a body the machine cannot hold
    reply = error_reply(500, fmt::format("internal error: {}", e.what()));
    reply.close = true;  // the body may be unread
  }
  // A body not read whole closes the connection (civetweb would read the rest to keep it, for as
  // long as its client sends); so does stopping. civetweb says "Connection: close" then.
  const bool closing = reply.close || draining;
  if (closing) mg_disable_connection_keep_alive(conn);
  const bool sent = send_reply(conn, reply, method, client.request_id);
  // A 504 is the compute's deadline (--request-timeout, --max-compute-ms) cutting the request.
  const char* outcome = !sent                 ? "cut:client-left"
                        : reply.outcome       ? reply.outcome
                        : reply.status == 504 ? "cut:timeout"
                                              : "completed";
  // Unless the drain's end logged it already (cut_pending).
  if (ctx.end_pending(ticket))
    ctx.record(method, path, reply.status, bytes_in, reply.body.size(), started, reply.note, client, outcome,
               reply.known_route ? std::string_view(path) : RequestMetrics::kOtherRoute);
  if (!draining) ctx.working.fetch_sub(1);
  ctx.in_flight.fetch_sub(1);
  if (!closing && sent) self.wait_for_headers(self.keep_alive_ms_);
  return reply.status;
}

void RestServer::wait_for_headers(uint64_t ms) {
  t_waiting_since = Clock::now();
  if (ms) deadlines_->arm(t_waiting_since + std::chrono::milliseconds(ms));
}

// civetweb's init_connection, on the worker that has just taken the connection (over TLS, once its
// handshake is done): the wait for its first request's headers starts. A plaintext connection
// within --max-connections counts as open until connection_close; past it the 503 goes out at
// once, before any request (a client waiting for its answer reads it, an idle one sees it), and
// the connection closes when its client sends a request or closes, or kRefusedGraceMs later.
// Writing here is what civetweb's const discourages, but the socket is ready: mg_write only sends.
int RestServer::init_connection(const mg_connection* conn, void** conn_data) {
  auto* self = static_cast<RestServer*>(mg_get_user_data(mg_get_context(conn)));
  // The client's address is not known yet here (civetweb gives no request info before a request).
  if (self->https_ || !self->connections_ || self->connections_->admit("")) {
    if (!self->https_ && self->connections_) *conn_data = &counted_mark;
    self->wait_for_headers(self->header_timeout_ms_);
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
  self->wait_for_headers(self->header_timeout_ms_ ? std::min(self->header_timeout_ms_, kRefusedGraceMs)
                                                  : kRefusedGraceMs);
  return 0;
}

// civetweb's connection_close (also after a failed TLS handshake): the thread no longer waits on
// the client, and a plaintext connection init_connection counted is no longer open.
void RestServer::connection_close(const mg_connection* conn) {
  auto* self = static_cast<RestServer*>(mg_get_user_data(mg_get_context(conn)));
  self->deadlines_->disarm();
  if (mg_get_user_connection_data(conn) == &counted_mark) self->connections_->closed();
}

// civetweb's answer to a request it could not read (headers past --header-timeout, cut by
// ReadDeadlines: 408; malformed: 400; too large: 413; an HTTP version it does not speak: 505), in
// the protocol's error shape and logged as every answer is; the connection closes after it.
int RestServer::http_error(mg_connection* conn, int status, const char* message) {
  auto* self = static_cast<RestServer*>(mg_get_user_data(mg_get_context(conn)));
  const bool cut = self->deadlines_->disarm();
  if (mg_get_user_connection_data(conn) == &refused_mark) return 0;  // answered 503 already
  std::string text = message ? message : "";
  if (cut) {
    status = 408;
    text =
        fmt::format("the request's headers did not arrive within --header-timeout ({} ms)", self->header_timeout_ms_);
  }
  ServerContext& ctx = self->context_;
  const mg_request_info* info = mg_get_request_info(conn);
  ServerContext::Client client;
  if (info) client.address = fmt::format("{}:{}", info->remote_addr, info->remote_port);
  client.request_id = ctx.request_id("");
  const std::string body = oip::error_json(text);
  const std::string answer = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nX-Request-Id: {}\r\nConnection: "
      "close\r\n\r\n{}",
      status, mg_get_response_code_text(conn, status), body.size(), client.request_id, body);
  mg_disable_connection_keep_alive(conn);
  const bool sent = mg_write(conn, answer.data(), answer.size()) == static_cast<int>(answer.size());
  const char* outcome = !sent ? "cut:client-left" : cut ? "cut:timeout" : "completed";
  // What civetweb parsed of the request, if it got that far (its path without the query).
  const std::string method = info && info->request_method ? info->request_method : "-";
  const std::string_view uri = info && info->local_uri     ? info->local_uri
                               : info && info->request_uri ? info->request_uri
                                                           : "-";
  const std::string path(uri.substr(0, uri.find('?')));
  ctx.record(method, path, status, 0, body.size(), t_waiting_since, text, client, outcome, RequestMetrics::kOtherRoute);
  return 0;
}

void* RestServer::init_thread(const mg_context* ctx, int thread_type) { return prepare_thread(ctx, thread_type); }

// A worker that ends (the server stopping) waits on no client.
void RestServer::exit_thread(const mg_context* ctx, int, void*) {
  static_cast<RestServer*>(mg_get_user_data(ctx))->deadlines_->disarm();
}

// civetweb's init_ssl: the certificate, key, client CA and policy set on civetweb's SSL_CTX by
// OpenSSL itself (civetweb wants the certificate and key in one file, and reads no CA list when a
// callback did the work). 1: done; -1: refused (tls_error_ says why).
int RestServer::init_tls(void* ssl_ctx, void* self_ptr) {
  auto* self = static_cast<RestServer*>(self_ptr);
  self->tls_error_ = configure_tls_context(ssl_ctx, self->tls_, &self->handshakes_);
  return self->tls_error_.empty() ? 1 : -1;
}

Result<std::unique_ptr<RestServer>> RestServer::start(ServerContext& context, const std::string& address,
                                                      size_t threads, uint64_t header_timeout_ms, const TlsFiles& tls,
                                                      ConnectionLimit* connections) {
  std::unique_ptr<RestServer> server(new RestServer(context, connections));
  auto deadlines = ReadDeadlines::start();
  if (!deadlines) return deadlines.take_error();
  server->deadlines_ = std::move(*deadlines);
  server->header_timeout_ms_ = header_timeout_ms;
  server->keep_alive_ms_ = header_timeout_ms ? std::min(header_timeout_ms, kMaxKeepAliveMs) : kMaxKeepAliveMs;
  server->tls_ = tls;
  server->https_ = !tls.cert.empty();
  server->handshakes_ = {connections, server->deadlines_.get(), header_timeout_ms};
  // civetweb serves TLS on a port whose number ends in "s".
  const std::string listening = server->https_ ? address + "s" : address;
  const std::string thread_count = std::to_string(threads);
  // request_timeout_ms: civetweb's bound on the silence between two reads, on a request's headers
  // in all and on a TLS handshake; ReadDeadlines keeps to it exactly (read_deadlines.h).
  const std::string read_timeout = std::to_string(header_timeout_ms ? header_timeout_ms : kCivetwebReadTimeoutMs);
  const std::string keep_alive = std::to_string(server->keep_alive_ms_);
  // tcp_nodelay: an answer's headers and body are two writes; with Nagle's algorithm the body
  // waits for the client's delayed ACK of the headers (40 ms on Linux) on every keep-alive request.
  const char* options[] = {"listening_ports",
                           listening.c_str(),
                           "num_threads",
                           thread_count.c_str(),
                           "enable_keep_alive",
                           "yes",
                           "keep_alive_timeout_ms",
                           keep_alive.c_str(),
                           "tcp_nodelay",
                           "1",
                           "request_timeout_ms",
                           read_timeout.c_str(),
                           nullptr};
  mg_callbacks callbacks{};
  callbacks.init_connection = &RestServer::init_connection;
  callbacks.connection_close = &RestServer::connection_close;
  callbacks.http_error = &RestServer::http_error;
  callbacks.init_thread = &RestServer::init_thread;
  callbacks.exit_thread = &RestServer::exit_thread;
  if (server->https_) {
    if (std::string why = load_openssl_shims(); !why.empty())
      return make_error(Errc::runtime_error,
                        fmt::format("--oip-http over TLS: cannot load OpenSSL for civetweb: {}", why));
    if (!(mg_init_library(MG_FEATURES_TLS) & MG_FEATURES_TLS)) {
      mg_exit_library();
      return make_error(Errc::runtime_error, "--oip-http over TLS: civetweb could not start OpenSSL");
    }
    callbacks.init_ssl = &RestServer::init_tls;
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
  mg_set_request_handler(server->server_, "/", &RestServer::handle, server.get());
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
