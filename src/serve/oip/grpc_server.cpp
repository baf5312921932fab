// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "inference.grpc.pb.h"
#include "serve/oip/error_status.h"
#include "serve/oip/grpc_call_auth.h"
#include "serve/oip/grpc_listener.h"
#include "oip/server_proto.h"
#include "wasinn/version.h"

namespace wasinn::oip_server {
namespace {

using Clock = std::chrono::steady_clock;

grpc::Status to_grpc(const Error& e) { return {static_cast<grpc::StatusCode>(grpc_code(e.code)), e.detail}; }

class Service final : public inference::GRPCInferenceService::Service {
 public:
  explicit Service(ServerContext& ctx) : ctx_(ctx) {}

  grpc::Status ServerLive(grpc::ServerContext* call, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* out) override {
    return logged(call, "ServerLive", "", 0, [&] {
      out->set_live(true);
      return grpc::Status::OK;
    });
  }
  grpc::Status ServerReady(grpc::ServerContext* call, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* out) override {
    return logged(call, "ServerReady", "", 0, [&] {
      out->set_ready(!ctx_.stopping);
      return grpc::Status::OK;
    });
  }
  grpc::Status ServerMetadata(grpc::ServerContext* call, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* out) override {
    return logged(call, "ServerMetadata", "", 0, [&] {
      out->set_name("wasinn");
      out->set_version(WASINN_VERSION_STRING);
      for (const char* e : {"binary_tensor_data", "model_repository", "model_configuration", "statistics"})
        out->add_extensions(e);
      return grpc::Status::OK;
    });
  }
  grpc::Status ModelReady(grpc::ServerContext* call, const inference::ModelReadyRequest* in,
                          inference::ModelReadyResponse* out) override {
    return logged(call, "ModelReady", in->name(), 0, [&] {
      auto m = ctx_.models.find(in->name(), in->version(), false);
      if (!m) return to_grpc(m.error());
      out->set_ready((*m)->ready());
      return grpc::Status::OK;
    });
  }
  grpc::Status ModelMetadata(grpc::ServerContext* call, const inference::ModelMetadataRequest* in,
                             inference::ModelMetadataResponse* out) override {
    return logged(call, "ModelMetadata", in->name(), 0, [&] {
      auto m = ctx_.models.find(in->name(), in->version(), false);
      if (!m) return to_grpc(m.error());
      oip::encode_metadata_proto((*m)->metadata(), *out);
      return grpc::Status::OK;
    });
  }
  grpc::Status ModelInfer(grpc::ServerContext* call, const inference::ModelInferRequest* in,
                          inference::ModelInferResponse* out) override {
    return logged(call, "ModelInfer", in->model_name(), in->ByteSizeLong(), [&] {
      auto m = ctx_.models.find(in->model_name(), in->model_version(), true);
      if (!m) return to_grpc(m.error());
      oip::InferRequest request;
      if (sdk::Error e = oip::decode_infer_request_proto(*in, request, input_name_check(**m)))
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.detail);
      // On a worker (ModelSet::run), as REST's: one pool, one queue, for both transports.
      grpc::Status status;
      auto batch = (*m)->join_batch(request);  // dynamic batching: gathers while waiting for a worker
      const auto served = ctx_.models.run([&](uint64_t queue_ns) {
        try {
          auto answer = (*m)->infer(request, queue_ns, &batch);
          if (!answer) {
            status = to_grpc(answer.error());
            return;
          }
          oip::encode_infer_response_proto((*m)->name(), (*m)->version(), request.id, answer->outputs, *out);
        } catch (const std::exception& e) {
          status = grpc::Status(grpc::StatusCode::INTERNAL, fmt::format("internal error: {}", e.what()));
        }
      });
      if (!served)
        return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "every worker is busy and the queue is full (--workers, --max-queue)");
      return status;
    });
  }
  grpc::Status ModelConfig(grpc::ServerContext* call, const inference::ModelConfigRequest* in,
                           inference::ModelConfigResponse* out) override {
    return logged(call, "ModelConfig", in->name(), 0, [&] {
      auto m = ctx_.models.find(in->name(), in->version(), false);
      if (!m) return to_grpc(m.error());
      const ModelConfigInfo c = (*m)->config();
      auto* config = out->mutable_config();
      config->set_name(c.name);
      config->set_platform(c.platform);
      config->set_backend(c.backend);
      config->set_max_batch_size(static_cast<int32_t>(c.max_batch_size));
      if (c.max_batch_size > 0)
        config->mutable_dynamic_batching()->set_max_queue_delay_microseconds(c.max_queue_delay_us);
      auto type = [](const std::string& name) {
        inference::DataType t = inference::TYPE_INVALID;
        inference::DataType_Parse(name, &t);
        return t;
      };
      for (const auto& t : c.inputs) {
        auto* i = config->add_input();
        i->set_name(t.name);
        i->set_data_type(type(t.data_type));
        for (int64_t d : t.dims) i->add_dims(d);
        i->set_optional(t.optional);
      }
      for (const auto& t : c.outputs) {
        auto* o = config->add_output();
        o->set_name(t.name);
        o->set_data_type(type(t.data_type));
        for (int64_t d : t.dims) o->add_dims(d);
      }
      auto* group = config->add_instance_group();
      group->set_name(c.name);
      group->set_count(1);
      return grpc::Status::OK;
    });
  }
  grpc::Status ModelStatistics(grpc::ServerContext* call, const inference::ModelStatisticsRequest* in,
                               inference::ModelStatisticsResponse* out) override {
    return logged(call, "ModelStatistics", in->name(), 0, [&] {
      std::vector<std::shared_ptr<ServedModel>> models;
      if (in->name().empty()) {
        models = ctx_.models.all();
      } else {
        auto m = ctx_.models.find(in->name(), in->version(), false);
        if (!m) return to_grpc(m.error());
        models.push_back(*m);
      }
      for (const auto& m : models) {
        const ModelStats s = m->stats();
        auto* st = out->add_model_stats();
        st->set_name(m->name());
        st->set_version(m->version());
        st->set_last_inference(s.last_inference_ms);
        st->set_inference_count(s.success_count);
        st->set_execution_count(s.execution_count);
        auto* is = st->mutable_inference_stats();
        is->mutable_success()->set_count(s.success_count);
        is->mutable_success()->set_ns(s.success_ns);
        is->mutable_fail()->set_count(s.fail_count);
        is->mutable_fail()->set_ns(s.fail_ns);
        auto set = [](inference::StatisticDuration* d, uint64_t count, uint64_t ns) {
          d->set_count(count);
          d->set_ns(ns);
        };
        set(is->mutable_queue(), s.queue_count, s.queue_ns);
        set(is->mutable_compute_input(), s.compute_count, s.input_ns);
        set(is->mutable_compute_infer(), s.compute_count, s.compute_ns);
        set(is->mutable_compute_output(), s.compute_count, s.output_ns);
        set(is->mutable_cache_hit(), 0, 0);
        set(is->mutable_cache_miss(), 0, 0);
        for (const auto& [size, b] : s.batch_stats) {
          auto* bs = st->add_batch_stats();
          bs->set_batch_size(size);
          set(bs->mutable_compute_input(), b.count, b.input_ns);
          set(bs->mutable_compute_infer(), b.count, b.compute_ns);
          set(bs->mutable_compute_output(), b.count, b.output_ns);
        }
      }
      return grpc::Status::OK;
    });
  }
  grpc::Status RepositoryIndex(grpc::ServerContext* call, const inference::RepositoryIndexRequest* in,
                               inference::RepositoryIndexResponse* out) override {
    return logged(call, "RepositoryIndex", "", 0, [&] {
      for (const auto& m : ctx_.models.all()) {
        const bool ready = m->ready();
        if (in->ready() && !ready) continue;
        auto* e = out->add_models();
        e->set_name(m->name());
        e->set_version(m->version());
        e->set_state(ready ? "READY" : "UNAVAILABLE");
        if (!ready) e->set_reason(m->state_reason());
      }
      return grpc::Status::OK;
    });
  }
  grpc::Status RepositoryModelLoad(grpc::ServerContext* call, const inference::RepositoryModelLoadRequest* in,
                                   inference::RepositoryModelLoadResponse*) override {
    return logged(call, "RepositoryModelLoad", in->model_name(), 0, [&] {
      Status s = ctx_.models.load(in->model_name());
      return s ? grpc::Status::OK : to_grpc(s.error());
    });
  }
  grpc::Status RepositoryModelUnload(grpc::ServerContext* call, const inference::RepositoryModelUnloadRequest* in,
                                     inference::RepositoryModelUnloadResponse*) override {
    return logged(call, "RepositoryModelUnload", in->model_name(), 0, [&] {
      Status s = ctx_.models.unload(in->model_name());
      return s ? grpc::Status::OK : to_grpc(s.error());
    });
  }

 private:
  // Runs one call, with its access-log line ("gRPC /inference.../ModelInfer model=NAME") and
  // count; HTTP's number for the status, so both transports log and count alike.
  // With keys (--api-key), the port's credentials (grpc_call_auth) refused a call without one
  // before its message was read; the check here holds should a call get past them.
  template <class Body>
  grpc::Status logged(grpc::ServerContext* call, std::string_view method, const std::string& model, uint64_t bytes_in,
                      Body&& body) {
    const auto started = Clock::now();
    ctx_.in_flight.fetch_add(1);
    const auto& metadata = call->client_metadata();
    auto meta = [&](const char* key) {
      const auto it = metadata.find(key);
      return it == metadata.end() ? std::string_view() : std::string_view(it->second.data(), it->second.size());
    };
    std::string peer = call->peer();  // "ipv4:127.0.0.1:5555"
    if (const auto colon = peer.find(':'); peer.starts_with("ipv") && colon != std::string::npos)
      peer = peer.substr(colon + 1);
    const ServerContext::Client client{peer, ctx_.request_id(meta("x-request-id")), std::string(meta("user-agent"))};
    call->AddInitialMetadata("x-request-id", client.request_id);
    const std::string path = model.empty() ? fmt::format("/inference.GRPCInferenceService/{}", method)
                                           : fmt::format("/inference.GRPCInferenceService/{} model={}", method, model);
    const uint64_t ticket = ctx_.begin_pending("gRPC", path, client, started);
    grpc::Status status;
    try {
      if (ctx_.keys && !grpc_method_is_probe(method) && !ctx_.keys->check(meta("authorization")))
        status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                              grpc_unauthenticated_message(metadata.count("authorization") > 0));
      else
        status = body();
    } catch (const std::exception& e) {
      status = grpc::Status(grpc::StatusCode::INTERNAL, fmt::format("internal error: {}", e.what()));
    }
    static constexpr int kHttpOf[] = {200, 499, 500, 400, 504, 404, 409, 403, 413,
                                      400, 409, 400, 501, 500, 503, 500, 401};
    const int code = static_cast<int>(status.error_code());
    const char* outcome = call->IsCancelled() ? ctx_.cutting ? "cut:shutdown" : "cut:client-left"
                          : status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? "cut:timeout"
                                                                                       : "completed";
    // Unless the drain's end logged it already (cut_pending).
    if (ctx_.end_pending(ticket))
      ctx_.record("gRPC", path, code >= 0 && code <= 16 ? kHttpOf[code] : 500, bytes_in, 0, started,
                  status.error_message(), client, outcome);
    ctx_.in_flight.fetch_sub(1);
    return status;
  }

  ServerContext& ctx_;
};

}  // namespace

struct GrpcServer::Impl {
  explicit Impl(ServerContext& ctx) : service(ctx) {}
  Service service;
  std::unique_ptr<GrpcListener> listener;  // stops before the server
  std::unique_ptr<grpc::Server> server;
};

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<GrpcServer>> GrpcServer::start(ServerContext& context, const std::string& address,
                                                      uint64_t handshake_timeout_ms, const TlsFiles& tls,
                                                      ConnectionLimit* connections) {
  static ConnectionLimit no_limit("gRPC", 0);  // counts, limits nothing
  auto impl = std::make_unique<Impl>(context);
  auto listener = GrpcListener::bind(address);
  if (!listener) return listener.take_error();
  impl->listener = std::move(*listener);
  grpc::ServerBuilder builder;
  // Plaintext or TLS, the key checked as a call starts (with --api-key).
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc_port_credentials(context, tls);
  // The listening sockets are GrpcListener's (--max-connections); gRPC serves what it accepts.
  auto acceptor = builder.experimental().AddExternalConnectionAcceptor(
      grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD, credentials);
  // A connection that has not finished its HTTP/2 handshake in time is closed (--header-timeout),
  // and one with no call for a minute too (clients reconnect when they call again).
  if (handshake_timeout_ms)
    builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                               static_cast<int>(std::min<uint64_t>(handshake_timeout_ms, INT32_MAX)));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 60000);
  // With keys, no BDP probing: with it gRPC grows the flow-control windows to megabytes, which a
  // client may fill before its key is checked (24 refused 60 MB calls still grew RSS by 10 to 75
  // MB, and not all of it came back); without it they stay near HTTP/2's 64 KiB (RSS +0.3 MB).
  // The price: a large message gets about 1 MB a round trip (60 MB: 0.25 s on loopback either
  // way, 2.7 s instead of 0.5 s at 40 ms). Without keys there is no check to come first.
  if (context.keys) builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  builder.RegisterService(&impl->service);
  const uint64_t limit = context.max_request_bytes;
  builder.SetMaxReceiveMessageSize(limit == 0 || limit > INT32_MAX ? INT32_MAX : static_cast<int>(limit));
  builder.SetMaxSendMessageSize(INT32_MAX);
  impl->server = builder.BuildAndStart();
  if (!impl->server)
    return make_error(Errc::runtime_error, fmt::format("--oip-grpc {}: gRPC's server did not start", address));
  const int port = impl->listener->port();
  impl->listener->start(std::move(acceptor), connections ? *connections : no_limit);
  std::unique_ptr<GrpcServer> server(new GrpcServer(std::move(impl)));
  server->address_ = fmt::format("{}:{}", address.substr(0, address.rfind(':')), port);
  return server;
}

void GrpcServer::shutdown(uint64_t grace_ms) {
  if (impl_->listener) impl_->listener->stop();  // no new connection reaches a server shutting down
  if (!impl_->server) return;
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(grace_ms));
  impl_->server->Wait();
  impl_->server.reset();
}

GrpcServer::~GrpcServer() { shutdown(0); }

}  // namespace wasinn::oip_server
