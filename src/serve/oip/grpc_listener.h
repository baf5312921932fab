// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GrpcListener: the gRPC port's listening sockets, owned by wasinn rather than by gRPC so that
// --max-connections refuses a connection as it is accepted (gRPC 1.51 has no connection limit).
// A connection within the limit goes to gRPC through ServerBuilder's external connection
// acceptor, which runs it through the server's credentials (plaintext or TLS alike); one past
// the limit is closed at once and counted. A connection counts as open until its socket is shut
// down (gRPC shuts down every socket it drops before closing it) or its client closes it, which
// the listener sees on a duplicate of its descriptor that it holds meanwhile.
#pragma once

#include <grpcpp/server_builder.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "core/error.h"
#include "serve/oip/connection_limit.h"

namespace wasinn::oip_server {

class GrpcListener {
 public:
  // Listens on HOST:PORT (every address HOST resolves to; port 0: a free one).
  static Result<std::unique_ptr<GrpcListener>> bind(const std::string& address);
  ~GrpcListener();  // stop()
  GrpcListener(const GrpcListener&) = delete;
  GrpcListener& operator=(const GrpcListener&) = delete;

  int port() const { return port_; }
  // Accepts on a thread of its own from now on, handing each connection `limit` admits to
  // `acceptor` (its server started). `limit` outlives the listener.
  void start(std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor, ConnectionLimit& limit);
  // Stops accepting and closes the listening sockets; connections handed to gRPC stay gRPC's.
  void stop();

 private:
  GrpcListener() = default;
  static Result<std::unique_ptr<GrpcListener>> bind_host(const std::string& host, const std::string& port,
                                                         const std::string& address);
  void run();
  void accept_all(int listening);

  std::vector<int> listening_;
  int port_ = 0;
  int epoll_ = -1, stop_event_ = -1;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;
  ConnectionLimit* limit_ = nullptr;
  std::unordered_set<int> watched_;  // the duplicates of open connections; the thread's own
  std::chrono::steady_clock::time_point last_accept_warning_{};
  std::thread thread_;
};

}  // namespace wasinn::oip_server
