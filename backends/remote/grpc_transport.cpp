// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// gRPC transport: one channel per graph (HTTP/2 multiplexes the calls of every context over it,
// so contexts in flight at once do not wait for each other), a ClientContext per call with the
// request timeout as its deadline, and TryCancel for the host's watchdog. grpc++ from Debian;
// stubs generated from inference.proto at build time.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>

#include "inference.grpc.pb.h"
#include "oip/proto_codec.h"
#include "transport.h"

namespace wasinn::remote {
namespace {

sdk::Error status_error(const grpc::Status& s, const std::string& what, const ModelTarget& t) {
  const std::string detail = "remote: " + what + " at " + t.url.text() + ": gRPC " +
                             std::to_string(static_cast<int>(s.error_code())) + " " + sdk::one_line(s.error_message());
  switch (s.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::FAILED_PRECONDITION: return sdk::invalid(detail);
    case grpc::StatusCode::NOT_FOUND: return {WASINN_NOT_FOUND, detail};
    case grpc::StatusCode::DEADLINE_EXCEEDED: return {WASINN_TIMEOUT, detail};
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return {WASINN_TOO_LARGE, detail};
    case grpc::StatusCode::UNIMPLEMENTED: return sdk::unsupported(detail);
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED: return {WASINN_SECURITY, detail};
    default: return sdk::runtime_error(detail);
  }
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

class GrpcTransport;

class GrpcCall final : public Call {
 public:
  explicit GrpcCall(GrpcTransport& t) : transport_(t) {}
  sdk::Error infer(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                   std::vector<OutputTensor>& outputs) override;
  void cancel() noexcept override {
    slot_.cancel([](grpc::ClientContext* c) { c->TryCancel(); });
  }
  void reset_cancel() noexcept override { slot_.reset(); }

 private:
  GrpcTransport& transport_;
  CancelSlot<grpc::ClientContext> slot_;
  inference::ModelInferRequest request_;  // reused: its buffers keep their capacity
  inference::ModelInferResponse response_;
};

class GrpcTransport final : public Transport {
 public:
  explicit GrpcTransport(const ModelTarget& t) : target_(t) {}

  sdk::Error start() {
    std::shared_ptr<grpc::ChannelCredentials> creds;
    if (target_.url.tls) {
      grpc::SslCredentialsOptions ssl;
      if (!target_.ca_file.empty() && !read_file(target_.ca_file, ssl.pem_root_certs))
        return sdk::invalid("remote: cannot read ca_file " + target_.ca_file);
      if (!target_.cert_file.empty() &&
          (!read_file(target_.cert_file, ssl.pem_cert_chain) || !read_file(target_.key_file, ssl.pem_private_key)))
        return sdk::invalid("remote: cannot read cert_file or key_file");
      creds = grpc::SslCredentials(ssl);
    } else {
      creds = grpc::InsecureChannelCredentials();
    }
    grpc::ChannelArguments args;
    const int max = static_cast<int>(std::min<uint64_t>(target_.max_message_bytes, INT32_MAX));
    args.SetMaxReceiveMessageSize(max);
    args.SetMaxSendMessageSize(-1);
    // A server that comes back is found again quickly: the default backoff grows to 120 s.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    // (Not GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: it is also the connect deadline, and at 100 ms
    // every attempt to a restarted server ended in "tcp handshaker shutdown".)
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);  // never retry an inference that may have run
    creds_ = creds;
    args_ = args;
    conn_ = connect();
    return {};
  }

  // The channel and stub a call uses. A channel in TRANSIENT_FAILURE (the server was down) is
  // replaced, so the next call connects at once: grpc++ 1.51's pick_first let a channel whose
  // server had come back fail calls fast for up to 5 s before trying to connect again.
  struct Conn {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<inference::GRPCInferenceService::Stub> stub;
  };
  std::shared_ptr<Conn> conn() {
    std::lock_guard lock(conn_mu_);
    if (conn_->channel->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE) conn_ = connect();
    return conn_;
  }

  void prepare(grpc::ClientContext& ctx, uint64_t timeout_ms) const {
    if (timeout_ms) ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
    for (const auto& [k, v] : target_.headers) {
      std::string key = k;
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      ctx.AddMetadata(key, v);
    }
  }

  sdk::Error model_metadata(ModelMeta& out) override {
    inference::ModelMetadataRequest req;
    req.set_name(target_.url.model);
    req.set_version(target_.url.version);
    for (unsigned attempt = 0;; ++attempt) {
      if (attempt) backoff_sleep(attempt);
      inference::ModelMetadataResponse resp;
      grpc::ClientContext ctx;
      // Metadata has its own deadline: a connect that never completes must not hang a load.
      prepare(ctx, std::min<uint64_t>(target_.timeout_ms ? target_.timeout_ms : UINT64_MAX,
                                      target_.connect_timeout_ms + 5000));
      const grpc::Status s = conn()->stub->ModelMetadata(&ctx, req, &resp);
      if (s.ok()) {
        decode_metadata_proto(resp, out);
        return {};
      }
      const bool retry =
          s.error_code() == grpc::StatusCode::UNAVAILABLE || s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
      if (!retry || attempt >= target_.retries) return status_error(s, "model metadata", target_);
    }
  }

  std::unique_ptr<Call> open_call() override { return std::make_unique<GrpcCall>(*this); }
  std::string describe() const override { return "gRPC at " + target_.url.text(); }

  const ModelTarget& target() const { return target_; }

 private:
  std::shared_ptr<Conn> connect() const {
    auto c = std::make_shared<Conn>();
    c->channel = grpc::CreateCustomChannel(target_.url.authority(), creds_, args_);
    c->stub = inference::GRPCInferenceService::NewStub(c->channel);
    return c;
  }

  const ModelTarget target_;
  std::shared_ptr<grpc::ChannelCredentials> creds_;
  grpc::ChannelArguments args_;
  std::mutex conn_mu_;
  std::shared_ptr<Conn> conn_;
};

sdk::Error GrpcCall::infer(std::span<const InputTensor> inputs, std::span<const std::string> output_names,
                           std::vector<OutputTensor>& outputs) {
  const ModelTarget& t = transport_.target();
  encode_infer_proto(t.url.model, t.url.version, inputs, output_names, request_);
  response_.Clear();
  grpc::ClientContext ctx;
  transport_.prepare(ctx, t.timeout_ms);
  slot_.set_active(&ctx);
  if (slot_.cancelled()) ctx.TryCancel();  // a cancel that came before the call started
  const std::shared_ptr<GrpcTransport::Conn> conn = transport_.conn();
  const grpc::Status s = conn->stub->ModelInfer(&ctx, request_, &response_);
  slot_.set_active(nullptr);
  if (slot_.cancelled() && !s.ok())
    return {WASINN_TIMEOUT, "remote: the inference at " + t.url.text() + " was cancelled"};
  if (!s.ok()) return status_error(s, "inference", t);
  return decode_infer_proto(response_, outputs);
}

}  // namespace

sdk::Error make_grpc_transport(const ModelTarget& target, std::unique_ptr<Transport>& out) {
  return start_transport<GrpcTransport>(target, out);
}

}  // namespace wasinn::remote
