// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/grpc_call_auth.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace wasinn::oip_server {
namespace {

constexpr std::string_view kServicePrefix = "/inference.GRPCInferenceService/";

std::string_view text_of(const grpc_slice& s) {
  return {reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(s)), GRPC_SLICE_LENGTH(s)};
}

// A call's path as the access log and the route label take it: the client chose it (any method
// name is refused alike), so at most 128 bytes and printable ASCII only.
std::string loggable_path(std::string_view path) {
  std::string out(path.substr(0, 128));
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return out;
}

// gRPC core's auth metadata processor (grpc_auth_metadata_processor::process), run on gRPC's
// thread as a call's headers arrive; `state` is the ServerContext. It answers at once (the key
// check is a few SHA-256 blocks), so it runs inline rather than on a thread of its own.
void check_call(void* state, grpc_auth_context*, const grpc_metadata* metadata, size_t count,
                grpc_process_auth_metadata_done_cb done, void* user_data) {
  auto& ctx = *static_cast<ServerContext*>(state);
  const auto started = std::chrono::steady_clock::now();
  std::string_view path, authorization, request_id, user_agent;
  bool sent_authorization = false;
  for (size_t i = 0; i < count; ++i) {
    const std::string_view key = text_of(metadata[i].key), value = text_of(metadata[i].value);
    if (key == ":path") {
      path = value;
    } else if (key == "authorization" && !sent_authorization) {  // the first, as the service's check takes it
      authorization = value;
      sent_authorization = true;
    } else if (key == "x-request-id") {
      request_id = value;
    } else if (key == "user-agent") {
      user_agent = value;
    }
  }
  const bool probe = path.starts_with(kServicePrefix) && grpc_method_is_probe(path.substr(kServicePrefix.size()));
  if (probe || ctx.keys->check(authorization)) {
    done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_OK, nullptr);
    return;
  }
  // The service logs and counts every call it answers; this one never reaches it. gRPC tells the
  // processor neither the peer's address nor a way to answer metadata (x-request-id) on a refusal.
  const char* message = grpc_unauthenticated_message(sent_authorization);
  ctx.record("gRPC", loggable_path(path), 401, 0, 0, started, message,
             {"", ctx.request_id(request_id), std::string(user_agent)});
  done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_UNAUTHENTICATED, message);
}

// A grpc::ServerCredentials over gRPC core's credentials, which it owns: what ServerBuilder's
// external connection acceptor (GrpcListener) needs is AddPortToServer, which grpc++ calls with
// the acceptor's "external:N" name.
class CoreServerCredentials final : public grpc::ServerCredentials {
 public:
  CoreServerCredentials(ServerContext& context, const TlsFiles& tls) {
    // Here, not before: the base class has initialized gRPC.
    if (tls.cert.empty()) {
      core_ = grpc_insecure_server_credentials_create();
    } else {
      auto read = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
      };
      const std::string key = read(tls.key), cert = read(tls.cert), client_ca = read(tls.client_ca);
      grpc_ssl_pem_key_cert_pair pair{key.c_str(), cert.c_str()};
      core_ = grpc_ssl_server_credentials_create_ex(client_ca.empty() ? nullptr : client_ca.c_str(), &pair, 1,
                                                    client_ca.empty()
                                                        ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                                        : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY,
                                                    nullptr);
    }
    if (context.keys) grpc_server_credentials_set_auth_metadata_processor(core_, {check_call, [](void*) {}, &context});
  }
  ~CoreServerCredentials() override { grpc_server_credentials_release(core_); }

  // The key check is these credentials' processor; another would replace it.
  void SetAuthMetadataProcessor(const std::shared_ptr<grpc::AuthMetadataProcessor>&) override {
    throw std::logic_error("the gRPC port's credentials check the API key; they take no other processor");
  }

 private:
  int AddPortToServer(const std::string& address, grpc_server* server) override {
    return grpc_server_add_http2_port(server, address.c_str(), core_);
  }

  grpc_server_credentials* core_ = nullptr;
};

}  // namespace

bool grpc_method_is_probe(std::string_view method) { return method == "ServerLive" || method == "ServerReady"; }

const char* grpc_unauthenticated_message(bool sent_authorization) {
  return sent_authorization ? "the API key is not one this server takes"
                            : "this server needs an API key: send it as the metadata 'authorization: Bearer KEY'";
}

std::shared_ptr<grpc::ServerCredentials> grpc_port_credentials(ServerContext& context, const TlsFiles& tls) {
  return std::make_shared<CoreServerCredentials>(context, tls);
}

}  // namespace wasinn::oip_server
