// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn serve --oip-http/--oip-grpc`: the registered models behind the Open Inference
// Protocol (src/serve/oip/), and --pipeline's components in front of them. The environment is
// built from the same HostOptions a Host would take (root/host_environment: engine-free), so
// every model flag, backend option and limit means what it means for `run` and `serve`; a
// Wasmtime engine exists only for the pipelines (serve/pipeline/component_pipeline).

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cli/host_port.h"
#include "cli/listen_check.h"
#include "cli/metrics_endpoint.h"
#include "cli/model_refs.h"
#include "cli/pipeline_models.h"
#include "cli/serve_command.h"
#include "cli/stderr_lines.h"
#include "base/near_names.h"
#include "core/prometheus_text.h"
#include "root/host_environment.h"
#include "serve/oip/oip_server.h"

namespace wasinn_cli {

namespace {

// HOST[:PORT] with the protocol's default port ("-": the flag given without a value).
HostPort oip_address(const std::string& given, const char* flag, uint16_t default_port) {
  // Loopback unless told otherwise: models on the network only when asked.
  return parse_host_port(given == "-" ? "127.0.0.1" : given, flag, default_port,
                         fmt::format("0.0.0.0:{} or 127.0.0.1:0 (any free port)", default_port));
}

// --dynamic-batching NAME=MAX_BATCH[:DELAY] into `batching`, over what a repository's
// config.json asked; a usage error names a model that is not registered, or a bad number.
void apply_dynamic_batching(const std::vector<std::string>& given, wasinn::NnEnvironment& env,
                            const std::map<std::string, std::shared_ptr<wasinn::oip_server::Pipeline>>& pipelines,
                            std::map<std::string, wasinn::oip_server::BatchingOptions>& batching) {
  std::vector<std::string> names;
  for (const auto& m : env.models().list()) names.push_back(m.name);
  std::set<std::string> seen;
  for (const std::string& entry : given) {
    auto bad = [&](const std::string& why) {
      return UsageError(fmt::format("--dynamic-batching '{}': {}", entry, why));
    };
    const auto eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw bad("expected NAME=MAX_BATCH[:DELAY], e.g. digits=16:2ms (16 rows, 2 ms; a number alone is microseconds)");
    const std::string name = entry.substr(0, eq), numbers = entry.substr(eq + 1);
    const auto colon = numbers.find(':');
    auto number = [&](const std::string& text, const char* what, uint64_t lo, uint64_t hi) {
      uint64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < lo || n > hi)
        throw bad(fmt::format("{} '{}' is not a whole number from {} to {}", what, text, lo, hi));
      return n;
    };
    wasinn::oip_server::BatchingOptions b;
    b.max_batch_size =
        static_cast<uint32_t>(number(numbers.substr(0, colon), "MAX_BATCH", 1, wasinn::oip_server::kMaxBatchSize));
    if (colon != std::string::npos) {
      // A duration as every flag's (2ms, 0.5s); a number alone keeps meaning microseconds, as Triton's key.
      const std::string delay = numbers.substr(colon + 1);
      try {
        b.max_queue_delay_us = parse_duration_us(delay, BareNumber::microseconds);
      } catch (const std::invalid_argument& e) {
        throw bad(fmt::format("DELAY {}", e.what()));
      }
      if (b.max_queue_delay_us > wasinn::oip_server::kMaxQueueDelayUs)
        throw bad(fmt::format("DELAY '{}' is more than {} s", delay, wasinn::oip_server::kMaxQueueDelayUs / 1000000));
    }
    if (pipelines.count(name))
      throw bad(
          fmt::format("'{}' is a pipeline: dynamic batching is for models (batch the model the pipeline calls "
                      "instead)",
                      name));
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw bad(fmt::format("no model '{}' is registered{} (the models: {})", name, wasinn::did_you_mean(name, names),
                            fmt::join(names, ", ")));
    if (!seen.insert(name).second) throw bad(fmt::format("model '{}' is given twice", name));
    batching[name] = b;
  }
}

// --model-name: a segment of the protocol's paths (/v2/models/NAME/infer), as KServe's
// InferenceService names (DNS labels) and Triton's directory names are.
void check_model_name(const std::string& name) {
  const bool ok =
      name.size() <= 253 && name[0] != '.' &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
  if (!ok)
    throw UsageError(
        fmt::format("--model-name '{}': a model name is up to 253 letters, digits, '.', '_' and '-', "
                    "not starting with '.' (it is a path segment: /v2/models/NAME/infer)",
                    name));
}

}  // namespace

int oip_serve_command(ServeCommandOptions& o, const CommonOptions& common) {
  start_serve_log(o);      // after serve_command blocked the stop signals
  wasinn::Program unused;  // the guest flags (-S nn-graph, --env...) are read alike; only the models matter here
  auto applied = apply_guest_options(o.guest, common, unused);
  if (!applied) return 0;
  if (!o.model_name.empty()) {
    if (o.model_repository.empty())
      throw UsageError("--model-name names the model of a --model-repository: give that too");
    check_model_name(o.model_name);
  }
  wasinn::oip_server::OipServerOptions options;
  std::vector<ListenAddress> listens;
  if (!o.oip_http.empty()) {
    listens.push_back({"--oip-http", oip_address(o.oip_http, "--oip-http", 8000)});
    options.http_address = listens.back().address.text();
  }
  if (!o.oip_grpc.empty()) {
    listens.push_back({"--oip-grpc", oip_address(o.oip_grpc, "--oip-grpc", 8001)});
    options.grpc_address = listens.back().address.text();
  }
  options.workers = o.workers;
  options.max_connections = o.max_connections;
  if (!o.oip_http.empty() && o.max_connections > wasinn::oip_server::RestServer::kMaxConnections)
    throw UsageError(
        fmt::format("--max-connections {}: the OIP server serves each REST connection on a thread of its "
                    "own: at most {} (0: no limit, the connections past its threads wait)",
                    o.max_connections, wasinn::oip_server::RestServer::kMaxConnections));
  options.max_queue = o.max_queue;
  options.max_request_bytes = o.max_request_bytes;
  if (common.log_level.empty() && common.quiet == 0 && common.verbose == 0) spdlog::set_level(spdlog::level::info);
  options.on_request = log_request;
  const uint64_t grace_ms = parse_duration_ms(o.shutdown_timeout);
  // No guest runs here: a request's time is its compute's, so --request-timeout bounds that
  // (504 and DEADLINE_EXCEEDED past it) unless --max-compute-ms says otherwise.
  if (!o.request_timeout.empty() && o.guest.host.limits.max_compute_ms == 0)
    o.guest.host.limits.max_compute_ms = parse_duration_ms(o.request_timeout);
  std::optional<MetricsAddress> metrics_address;
  if (!o.guest.metrics_addr.empty()) {
    metrics_address = parse_metrics_address(o.guest.metrics_addr);
    listens.push_back({"--metrics-addr", {metrics_address->host, metrics_address->port}});
  }
  check_can_listen(listens);  // before any pipeline compiles and any model loads, or is pulled
  pull_preload_refs(o.guest, common);
  options.keys = load_api_keys(o);
  const std::shared_ptr<const wasinn::ApiKeys> api_keys = options.keys;  // the metrics port's too
  options.header_timeout_ms = parse_duration_ms(o.header_timeout);
  if (check_tls_options(o)) options.tls = {o.tls_cert, o.tls_key, o.tls_client_ca};
  warn_if_exposed_without_key(listens, options.keys != nullptr || !o.tls_client_ca.empty(), "use every model");

  auto wired = wasinn::make_environment(o.guest.host);
  if (!wired) throw UsageError(wired.error().detail);
  std::shared_ptr<wasinn::NnEnvironment> env = wired->env;
  std::vector<std::string> pipelines = o.pipelines;  // NAME=COMPONENT, the repository's model.wasm too
  if (!o.model_repository.empty()) {
    std::map<std::string, std::filesystem::path> found;
    if (auto added = wasinn::oip_server::add_repository_models(*env, o.model_repository, o.model_name,
                                                               options.repository, found, &options.batching);
        !added)
      throw UsageError(added.error().detail);
    for (const auto& [name, path] : found) pipelines.push_back(name + "=" + path.string());
  }
  wasinn::PipelineOptions pipeline_options;
  pipeline_options.max_memory_bytes = o.guest.host.max_memory_bytes;
  if (!o.request_timeout.empty()) pipeline_options.timeout_ms = parse_duration_ms(o.request_timeout);
  pipeline_options.max_idle = options.effective_workers();
  options.pipelines = open_pipelines(pipelines, env, pipeline_options);
  if (env->models().list().empty() && options.pipelines.empty() && !o.model_repository.empty())
    throw UsageError(
        fmt::format("serve --oip-*: --model-repository {0} holds no model: put one model's file in it "
                    "({0}/model.onnx, served as --model-name) or each model in {0}/NAME/VERSION/ "
                    "(Triton's layout)",
                    o.model_repository));
  if (env->models().list().empty() && options.pipelines.empty())
    throw UsageError(
        "serve --oip-*: no models to serve: register them with --model-repository, --nn-preload, "
        "-S nn-graph, --nn-remote or the config file, or give a --pipeline");
  apply_dynamic_batching(o.dynamic_batching, *env, options.pipelines, options.batching);

  auto server = wasinn::oip_server::OipServer::start(env, std::move(options));
  if (!server) {
    print_error(server.error().detail);
    return kExitFailure;
  }
  auto& oip = **server;
  // After the server: stops before it goes.
  auto metrics = start_metrics_endpoint(
      metrics_address,
      [&env, &oip] { return wasinn::render_prometheus_text(env->metrics().snapshot()) + oip.metrics_text(); },
      api_keys);
  const std::string models = fmt::format("{} model{}", oip.model_count(), oip.model_count() == 1 ? "" : "s");
  if (!oip.http_address().empty())
    print_notice(fmt::format("Serving the Open Inference Protocol (REST) on {}://{}/v2 ({})",
                             o.tls_cert.empty() ? "http" : "https", oip.http_address(), models),
                 {{"protocol", "rest"}, {"address", oip.http_address()}, {"models", oip.model_count()}});
  if (!oip.grpc_address().empty())
    print_notice(fmt::format("Serving the Open Inference Protocol (gRPC{}) on {} ({})",
                             o.tls_cert.empty() ? "" : " over TLS", oip.grpc_address(), models),
                 {{"protocol", "grpc"}, {"address", oip.grpc_address()}, {"models", oip.model_count()}});

  await_stop_signal("not ready", o.shutdown_timeout);
  return drain_exit(oip.stop_and_wait(grace_ms), o.shutdown_timeout);
}

}  // namespace wasinn_cli
