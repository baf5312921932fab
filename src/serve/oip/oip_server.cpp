// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/oip_server.h"

#include <chrono>
#include <future>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/log.h"
#include "serve/oip/model_repository.h"

namespace wasinn::oip_server {

Status add_repository_models(NnEnvironment& env, const std::filesystem::path& dir, const std::string& flat_name,
                             std::map<std::string, RepositoryEntry>& repository,
                             std::map<std::string, std::filesystem::path>& pipelines,
                             std::map<std::string, BatchingOptions>* batching) {
  auto found = scan_model_repository(dir, flat_name);
  if (!found) return found.take_error();
  // KServe's runtime passes --model-name whatever storageUri holds: not an error, but not silent.
  if (!flat_name.empty() && !found->empty() && !found->front().flat)
    logger().info("--model-name {}: not used: {} is in Triton's layout, whose models are named by their directories",
                  flat_name, dir.string());
  for (auto& m : *found) {
    if (!m.ignored_fields.empty())
      logger().warn("--model-repository: {}: ignored, as wasinn has no such setting: {}",
                    m.triton_io ? m.triton_io->file.string() : m.model.name, fmt::join(m.ignored_fields, "; "));
    repository[m.model.name] = {m.version, m.config, m.triton_io};
    if (!m.pipeline.empty()) {
      if (m.batching.enabled())
        return make_error(Errc::invalid_argument,
                          fmt::format("--model-repository {}: '{}' is a pipeline (model.wasm): dynamic batching "
                                      "(max_batch_size) is for models; drop it from its config.json",
                                      dir.string(), m.model.name));
      pipelines[m.model.name] = m.pipeline;
      continue;
    }
    if (batching && m.batching.enabled()) (*batching)[m.model.name] = m.batching;
    const std::string name = m.model.name;
    if (Status added = env.models().add(std::move(m.model)); !added) {
      Error e = added.take_error();
      e.detail = fmt::format("--model-repository {}: model '{}': {}", dir.string(), name, e.detail);
      return e;
    }
  }
  return {};
}

Result<std::unique_ptr<OipServer>> OipServer::start(std::shared_ptr<NnEnvironment> env, OipServerOptions options) {
  std::unique_ptr<OipServer> s(new OipServer());
  s->env_ = env;
  const size_t workers = options.effective_workers();
  s->models_ = std::make_unique<ModelSet>(
      env, ModelSetOptions{workers, options.max_queue, options.repository, options.pipelines, options.batching});
  if (Status loaded = s->models_->load_all(); !loaded) return loaded.take_error();
  s->context_.reset(new ServerContext{*s->models_, options.max_request_bytes, options.on_request, s->metrics_});
  s->context_->keys = options.keys;
  if (!options.http_address.empty()) {
    const uint64_t limit = options.max_connections;
    if (limit > RestServer::kMaxConnections)
      return make_error(Errc::invalid_argument,
                        fmt::format("--max-connections {}: the OIP server's REST connections are a thread each: at "
                                    "most {}",
                                    limit, RestServer::kMaxConnections));
    // A thread for every connection --max-connections lets in, so none waits in civetweb's queue.
    // With no limit: connections beyond the computes, so a health probe or metadata call is
    // answered while every worker computes, and a request past the queue gets its 503 at once.
    const size_t threads = limit ? limit + RestServer::kSpareThreads : workers + options.max_queue + 4;
    s->rest_connections_ = std::make_unique<ConnectionLimit>("REST", limit);
    auto rest = RestServer::start(*s->context_, options.http_address, threads, options.header_timeout_ms, options.tls,
                                  s->rest_connections_.get());
    if (!rest) return rest.take_error();
    s->rest_ = std::move(*rest);
  }
  if (!options.grpc_address.empty()) {
    s->grpc_connections_ = std::make_unique<ConnectionLimit>("gRPC", options.max_connections);
    auto grpc = GrpcServer::start(*s->context_, options.grpc_address, options.header_timeout_ms, options.tls,
                                  s->grpc_connections_.get());
    if (!grpc) return grpc.take_error();
    s->grpc_ = std::move(*grpc);
  }
  return s;
}

OipServer::~OipServer() {
  if (stopper_.joinable()) stopper_.detach();  // past the grace: the caller ends the process
  grpc_.reset();
  rest_.reset();
}

const std::string& OipServer::http_address() const { return rest_ ? rest_->address() : no_address_; }
const std::string& OipServer::grpc_address() const { return grpc_ ? grpc_->address() : no_address_; }

uint64_t OipServer::stop_and_wait(uint64_t grace_ms) {
  context_->stopping = true;
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  // Both transports stop together on a thread of their own: civetweb's mg_stop waits for every
  // request in progress with no deadline of its own.
  stopper_ = std::thread([this, grace_ms, done] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
    std::thread grpc_stop([this, grace_ms] {
      if (grpc_) grpc_->shutdown(grace_ms);  // refuses new calls, waits for those in progress
    });
    // REST: new requests are answered 503 (stopping); those that came before finish, then the
    // listener closes.
    while (context_->working.load() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    // Past the deadline, a gRPC call that gRPC cancels was cut by the server.
    if (std::chrono::steady_clock::now() >= deadline) context_->cutting = true;
    if (context_->working.load() == 0) rest_.reset();
    grpc_stop.join();
    if (!rest_) done->set_value();
  });
  if (finished.wait_for(std::chrono::milliseconds(grace_ms) + std::chrono::milliseconds(200)) ==
      std::future_status::ready) {
    stopper_.join();
    return 0;
  }
  // What is still in progress (REST or gRPC) is cut: logged now, as the process will not wait for it.
  context_->cutting = true;
  context_->cut_pending();
  return std::max<uint64_t>(1, context_->working.load());
}

std::string OipServer::metrics_text() const {
  const auto g = models_->gauges();
  RequestMetrics::Gauges gauges{context_->in_flight.load(), g.running, g.queued, g.rejected};
  gauges.has_connections = true;  // REST's and gRPC's together
  for (const ConnectionLimit* c : {rest_connections_.get(), grpc_connections_.get()}) {
    if (!c) continue;
    gauges.connections += c->open();
    gauges.connections_refused += c->refused();
  }
  return metrics_.render(gauges);
}

}  // namespace wasinn::oip_server
