// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/serve_command.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cli/host_port.h"
#include "cli/listen_check.h"
#include "cli/metrics_endpoint.h"
#include "cli/model_refs.h"
#include "cli/models_dir.h"
#include "cli/openai_models.h"
#include "cli/stderr_lines.h"
#include "engine/tls_check.h"
#include "base/install_layout.h"
#include "base/log.h"

namespace wasinn_cli {
namespace {
constexpr uint64_t kMaxLogFlushUs = 10'000'000;  // a line waits at most this long
}  // namespace

void start_serve_log(const ServeCommandOptions& o) {
  if (o.log_format == "json") log_stderr_as_json();
  wasinn::batch_log_lines(std::chrono::microseconds(parse_duration_us(o.log_flush_interval)));
}

void log_request(const wasinn::RequestRecord& record) {
  // The record's C strings as views, so that comparing them compares text.
  const auto text_of = [](const char* s) { return std::string_view(s ? s : ""); };
  // A key sent in the query string (?api_key=...) never reaches the log.
  const std::string path_shown = wasinn::redact_query_secrets(text_of(record.path));
  const std::string_view path = path_shown;
  const std::string_view method = text_of(record.method), note = text_of(record.note), client = text_of(record.client),
                         request_id = text_of(record.request_id), user_agent = text_of(record.user_agent),
                         outcome = text_of(record.outcome);
  const double ms = static_cast<double>(record.micros) / 1000.0;
  const bool cut = !outcome.empty() && outcome != "completed";
  // A client's mistakes (400, 401, 404, a client that left) are info: a client cannot flood the
  // warnings. The server's failures, and answers it cut, are warnings.
  const auto level =
      record.status >= 500 || (cut && outcome != "cut:client-left") ? spdlog::level::warn : spdlog::level::info;
  // Under -q no line is written: none is made (a request's formatting is a few allocations).
  if (!spdlog::should_log(level)) return;
  // One buffer for the line (a request's formatting is on its thread, at every request).
  fmt::memory_buffer line;
  auto out = std::back_inserter(line);
  fmt::format_to(out, "{}{}{} {} {} in={}B out={}B {:.3f}ms", client, client.empty() ? "" : " ", method, path,
                 record.status, record.bytes_in, record.bytes_out, ms);
  if (!request_id.empty()) fmt::format_to(out, " id={}", request_id);
  if (!user_agent.empty()) fmt::format_to(out, " ua={:?}", user_agent);
  if (cut) fmt::format_to(out, " {}", outcome);
  if (!note.empty()) fmt::format_to(out, ": {}", note);
  const std::string_view text(line.data(), line.size());
  if (wasinn::log_format() == wasinn::LogFormat::text) {
    wasinn::logger().log(level, spdlog::string_view_t(text.data(), text.size()));
    return;
  }
  nlohmann::json fields = {{"method", method},
                           {"path", path},
                           {"status", record.status},
                           {"bytes_in", record.bytes_in},
                           {"bytes_out", record.bytes_out},
                           {"duration_ms", ms},
                           {"outcome", outcome.empty() ? "completed" : outcome}};
  if (!note.empty()) fields["note"] = note;
  if (!client.empty()) fields["client"] = client;
  if (!request_id.empty()) fields["request_id"] = request_id;
  if (!user_agent.empty()) fields["user_agent"] = user_agent;
  wasinn::log_with_fields(level, text, fields);
}

bool check_tls_options(const ServeCommandOptions& o) {
  if (o.tls_cert.empty() != o.tls_key.empty())
    throw UsageError(o.tls_cert.empty() ? "--tls-key needs --tls-cert (the certificate of that key)"
                                        : "--tls-cert needs --tls-key (the certificate's private key)");
  if (!o.tls_client_ca.empty() && o.tls_cert.empty())
    throw UsageError("--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)");
  if (o.tls_cert.empty()) return false;
  if (auto problem = wasinn::tls_files_problem(o.tls_cert, o.tls_key, o.tls_client_ca)) throw UsageError(*problem);
  return true;
}

std::shared_ptr<wasinn::ApiKeys> load_api_keys(const ServeCommandOptions& o) {
  if (o.api_keys.empty() && o.api_key_files.empty()) return nullptr;
  auto keys = wasinn::ApiKeys::make(o.api_keys, o.api_key_files);
  if (!keys) throw UsageError(keys.error().detail);
  if (o.api_key_files.empty()) return *keys;
  std::thread([keys = *keys] {
    sigset_t hup;
    sigemptyset(&hup);
    sigaddset(&hup, SIGHUP);
    for (;;) {
      int sig = 0;
      if (sigwait(&hup, &sig) != 0) return;
      auto reloaded = keys->reload();
      if (reloaded)
        spdlog::info("SIGHUP: {} API key(s) in use, --api-key-file reread", *reloaded);
      else
        spdlog::warn("SIGHUP: the keys in use stay: {}", reloaded.error().detail);
    }
  }).detach();
  return *keys;
}

namespace {

// HOST:PORT, checked at start (binding it is the server's).
HostPort check_address(const std::string& addr) {
  return parse_host_port(addr, "--addr", std::nullopt, "0.0.0.0:8080, 127.0.0.1:0 (any free port) or [::1]:8080");
}

// SIGTERM and SIGINT: what stops a server.
sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// Both modes' --api-key, --header-timeout and --max-connections (docs/serving.md, "On a network").
void add_network_options(CLI::App* serve, ServeCommandOptions& o) {
  serve
      ->add_option(
          "--api-key", o.api_keys,
          "Answer 401 to every request but /healthz, /readyz, /v2/health/* (and --public-path's GET and HEAD) that "
          "does not show this key as 'Authorization: Bearer KEY' (gRPC: the authorization metadata); repeatable. "
          "The guest does not see the header. A key on the command line shows in ps: prefer --api-key-file")
      ->type_name("KEY")
      ->allow_extra_args(false);  // one value each time: the component after it is not a key
  serve
      ->add_option("--api-key-file", o.api_key_files,
                   "As --api-key, with the keys of FILE: one a line ('#' starts a comment); reread on SIGHUP "
                   "(a file that has become bad keeps the keys in use); repeatable")
      ->type_name("FILE")
      ->allow_extra_args(false);
  serve
      ->add_option("--header-timeout", o.header_timeout,
                   "Close a connection whose request headers have not arrived in this long, counted from its start "
                   "or the end of its previous answer (so an idle keep-alive connection too: 200ms, 10s; a number "
                   "alone is seconds); a request body gets this long plus a second per KiB that arrived, else 408; "
                   "a TLS handshake this long (the OIP server: REST alike, gRPC's HTTP/2 handshake deadline). 0: no "
                   "limit")
      ->type_name("DURATION")
      ->check(duration())
      ->capture_default_str();
  serve
      ->add_option("--max-connections", o.max_connections,
                   "Client connections open at once (the OIP server: REST's and gRPC's each, REST's at most 16384); "
                   "past it a new connection is closed at once (the OIP server's REST: answered 503 first) and counted "
                   "(wasinn_http_connections_refused_total) (0: no limit)")
      ->check(whole_number(0, 1u << 20))
      ->capture_default_str();
  serve
      ->add_option("--tls-cert", o.tls_cert,
                   "Serve HTTPS with this PEM certificate chain (a component's server: HTTP/2 or HTTP/1.1 by ALPN; the "
                   "OIP server: HTTPS with HTTP/1.1 for --oip-http, gRPC over TLS for --oip-grpc); needs --tls-key. A "
                   "bad or mismatched file stops the start")
      ->type_name("FILE");
  serve->add_option("--tls-key", o.tls_key, "The PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1)")
      ->type_name("FILE");
  serve
      ->add_option("--tls-client-ca", o.tls_client_ca,
                   "With --tls-cert: require a client certificate signed by a CA of this PEM file (mutual TLS)")
      ->type_name("FILE");
}

}  // namespace

void add_serve_options(CLI::App* serve, ServeCommandOptions& o, CommonOptions& common) {
  serve->add_option("--openai", o.openai, kOpenaiHelp)
      ->type_name("[NAME=]MODEL")
      ->expected(0, CLI::detail::expected_max_vector_size);
  serve->add_option("--mmproj", o.mmproj, kMmprojHelp)->type_name("[NAME=]FILE")->allow_extra_args(false);
  serve->add_option("--vocoder", o.vocoder, kVocoderHelp)->type_name("[NAME=]FILE")->allow_extra_args(false);
  serve->add_flag("--no-mmproj", o.no_mmproj,
                  "With --openai's Hub models: pull no multimodal projector (by default a repository's mmproj "
                  "GGUF comes with its model, as with llama-server's -hf), so their chats take text only");
  serve->add_option("--image-urls", o.image_urls, kImageUrlsHelp)->type_name("MAX[,TIMEOUT]");
  serve
      ->add_option(
          "--models-dir", o.models_dir,
          "Serve every GGUF model of DIR with the OpenAI endpoint (as --openai, which may be given too): "
          "DIR's *.gguf named by their file name without .gguf, and a Hugging Face Hub cache's "
          "(models--OWNER--REPO/snapshots, as `wasinn pull` fills ~/.cache/huggingface/hub) as OWNER/REPO:QUANT "
          "(mmproj files skipped). None loads at start: each loads at its first request, GET /v1/models "
          "lists each with its state (unloaded, loading, loaded), POST /models/load and /models/unload "
          "{\"model\": NAME} load and unload one (under --api-key); --openai's models are then loaded on "
          "demand too")
      ->type_name("DIR");
  serve
      ->add_option("--models-max", o.models_max,
                   "With --models-dir (or --openai): at most N models loaded at once; a load past it first unloads "
                   "the least recently used idle one (no request using it), else is refused with 503 and Retry-After "
                   "(0: no limit)")
      ->type_name("N")
      ->check(whole_number(0, 4096))
      ->capture_default_str();
  serve
      ->add_option("--models-idle-timeout", o.models_idle_timeout,
                   "With --models-dir (or --openai): unload a model no request has used for this long (30s, 10m; a "
                   "number alone is seconds; checked every quarter of it, at most every second; default: never)")
      ->type_name("DURATION")
      ->check(duration());
  serve
      ->add_option("--models-memory-limit", o.models_memory_limit,
                   "With --models-dir (or --openai): refuse (503, with the numbers) a load whose estimate (its files' "
                   "bytes plus a quarter of them, at least 32 MiB, for its context) and the loaded models' would "
                   "pass BYTES; whatever it says, a load that would not fit in MemAvailable or the cgroup's "
                   "memory.max is refused so (0: only those)")
      ->type_name("BYTES")
      ->check(whole_number(0, 1ull << 60))
      ->capture_default_str();
  serve
      ->add_option("--addr", o.addr,
                   "Listen on this address: HOST:PORT (port 0 picks a free one; the address is printed on stderr)")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  add_network_options(serve, o);
  serve
      ->add_option("--public-path", o.public_paths,
                   "With --api-key: answer a GET or HEAD of exactly this path (the query aside; / is the root "
                   "alone) without a key, e.g. a page whose own requests carry the key its user types; every other "
                   "request still needs one; repeatable; a component's server only")
      ->type_name("PATH")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            if (path.empty() || path[0] != '/' || path.find_first_of("?# \t\r\n") != std::string::npos)
              return "a path starts with '/' and has no '?', '#' or space: /, /index.html";
            return {};
          },
          ""));  // the type name says PATH
  serve
      ->add_option("--workers", o.workers,
                   "Guests that run at once, each on a worker thread (0: the CPUs this process may use, from its "
                   "affinity and cgroup CPU quota). With reused WASI 0.3 "
                   "instances, each worker thread serves the connections dealt to it in turn with instances of its "
                   "own, each taking --max-instance-concurrent-reuse-count requests, so --workers x that many "
                   "requests are admitted at once")
      ->check(whole_number(0, 4096))
      ->capture_default_str();
  serve
      ->add_option("--max-queue", o.max_queue,
                   "Requests that may wait for a worker; past it the answer is 503 with Retry-After")
      ->check(whole_number(0, 1u << 20))
      ->capture_default_str();
  serve
      ->add_option("--request-timeout", o.request_timeout,
                   "Answer 504 to a request whose guest has not answered in this long, and stop that guest: "
                   "200ms, 10s, 2m; a number alone is seconds, as in -W timeout= (0: no limit)")
      ->type_name("DURATION")
      ->check(duration());
  serve
      ->add_option("--max-instance-reuse-count", o.max_instance_reuse_count,
                   "Requests one instance of a WASI 0.3 (wasi:http@0.3) component handles before it is dropped, as "
                   "`wasmtime serve`'s flag (0: its default, 128; 1: a fresh instance per request, for isolation). A "
                   "0.2 component gets a fresh instance per request. An instance that traps is dropped at once")
      ->check(whole_number(0, 1u << 30))
      ->capture_default_str();
  serve
      ->add_option("--max-instance-concurrent-reuse-count", o.max_instance_concurrent_reuse_count,
                   "Requests one instance of a WASI 0.3 component handles at once (0: Wasmtime's default, 16); at most "
                   "--workers x this many are admitted at once, the rest queue (--max-queue)")
      ->check(whole_number(0, 4096))
      ->capture_default_str();
  serve
      ->add_option("--idle-instance-timeout", o.idle_instance_timeout,
                   "Keep an idle WASI 0.3 instance this long for the next request, as `wasmtime serve` (200ms, 1s; a "
                   "number alone is seconds)")
      ->type_name("DURATION")
      ->check(duration())
      ->capture_default_str();
  serve
      ->add_option("--busy-poll", o.busy_poll,
                   fmt::format("After its last work, a thread serving reused WASI 0.3 instances polls its connections "
                               "this long before it sleeps, so a client's next request is read without a wake-up (on "
                               "a VM most of a small request's time); less while requests come further apart (50us, "
                               "1ms; a number alone is seconds; at most {}; 0: sleep at once, using no CPU while "
                               "waiting)",
                               duration_text(wasinn::ServeOptions::kMaxBusyPollUs)))
      ->type_name("DURATION")
      ->check(duration_at_most(wasinn::ServeOptions::kMaxBusyPollUs))
      ->capture_default_str();
  serve
      ->add_option("--max-request-bytes", o.max_request_bytes,
                   "Answer 413 to a request whose body is larger, before the guest runs (0: no limit)")
      ->check(whole_number(0, 1ull << 40))
      ->capture_default_str();
  serve
      ->add_option("--shutdown-timeout", o.shutdown_timeout,
                   "On SIGTERM or SIGINT, stop accepting and give the answers in progress this long to finish "
                   "(200ms, 10s, 2m; a number alone is seconds); a second signal stops at once")
      ->type_name("DURATION")
      ->check(duration())
      ->capture_default_str();
  serve
      ->add_option("--log-format", o.log_format,
                   "stderr's lines, the access log's (one per request, at info) among them: text, or json: "
                   "every line one JSON object (time, level, message, the line's fields), what guests and "
                   "frameworks write to stderr included")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  serve
      ->add_option("--log-flush-interval", o.log_flush_interval,
                   fmt::format("How long an info line (the access log's) may wait to be written in one write with "
                               "the lines after it, so that a busy server writes a batch, not a line per request; "
                               "a warning or an error writes the waiting lines and itself at once, and so do "
                               "exit and SIGTERM's drain (10ms, 1s; a number alone is seconds; at most {}; 0: "
                               "every line as it is logged, as on a terminal, which always gets them so)",
                               duration_text(kMaxLogFlushUs)))
      ->type_name("DURATION")
      ->check(duration_at_most(kMaxLogFlushUs))
      ->capture_default_str();
  add_guest_options(serve, o.guest, common, "while it serves, with the HTTP request metrics", "info");
  serve
      ->add_option(
          "--oip-http", o.oip_http,
          "Serve the registered models with the Open Inference Protocol (KServe v2, Triton's HTTP/REST API) "
          "here instead of a component: HOST[:PORT] (HOST 127.0.0.1, port 8000 when omitted; 0.0.0.0 for every "
          "interface; port 0: any free port, printed on stderr); docs/oip-server.md")
      ->option_text("[HOST[:PORT]]")
      ->expected(0, 1)
      ->default_str("-");
  serve
      ->add_option(
          "--oip-grpc", o.oip_grpc,
          "Serve the registered models with the Open Inference Protocol's gRPC API "
          "(inference.GRPCInferenceService) here: HOST[:PORT] (HOST 127.0.0.1, port 8001 when omitted); with or "
          "without --oip-http")
      ->option_text("[HOST[:PORT]]")
      ->expected(0, 1)
      ->default_str("-");
  serve
      ->add_option("--model-repository", o.model_repository,
                   "With --oip-*: serve every model of DIR, laid out as Triton's DIR/NAME/VERSION/model.* (the highest "
                   "VERSION; optional DIR/NAME/config.json: encoding, target, config, max_batch_size, "
                   "max_queue_delay_us)")
      ->type_name("DIR");
  serve
      ->add_option("--model-name", o.model_name,
                   "With --model-repository DIR holding one model's files directly (DIR/model.onnx, as KServe's "
                   "storage initializer leaves a single-file storageUri in /mnt/models): serve it as NAME (default: "
                   "the file's name without its extension). A DIR in Triton's layout names its models by their "
                   "directories and does not use it. Given twice, the last counts")
      ->type_name("NAME")
      // KServe appends an InferenceService's args to its runtime's: the service's name wins.
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  serve
      ->add_option("--pipeline", o.pipelines,
                   "With --oip-*: serve the component COMPONENT as the model NAME, a pipeline in front of the "
                   "registered models (it exports wasinn:pipeline/model, wit/wasinn-pipeline, and reaches the models "
                   "with wasi:nn's load-by-name); repeatable")
      ->type_name("NAME=COMPONENT");
  serve
      ->add_option("--dynamic-batching", o.dynamic_batching,
                   "With --oip-*: batch model NAME's requests as Triton's dynamic batcher does: requests that arrive "
                   "within DELAY of the oldest waiting one (500us, 2ms; a number alone is microseconds, as Triton's "
                   "max_queue_delay_us; default 0: only those already waiting) "
                   "are concatenated along dimension 0, up to MAX_BATCH rows (1 to 65536), computed once and split "
                   "back; the model needs a dynamic dimension 0 on every input and output, else the start fails. "
                   "Repeatable; overrides the model's config.json; docs/oip-server.md")
      ->type_name("NAME=MAX_BATCH[:DELAY]")
      ->allow_extra_args(false);
}

int serve_command(ServeCommandOptions& o, const CommonOptions& common, const std::string& wasm) {
  // SIGTERM and SIGINT are taken by this thread with sigwait: blocked before any thread starts,
  // so every thread inherits the mask and none is interrupted by them.
  sigset_t blocked = stop_signal_set();
  // SIGHUP rereads --api-key-file (load_api_keys' thread); without one it ends the process as ever.
  if (!o.api_key_files.empty()) sigaddset(&blocked, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);

  const bool openai = !o.openai.empty() || !o.models_dir.empty();
  // Any --models-* flag: models load on demand, and the host answers the model routes.
  const bool on_demand =
      !o.models_dir.empty() || o.models_max > 0 || !o.models_idle_timeout.empty() || o.models_memory_limit > 0;
  if (on_demand && !openai)
    throw UsageError(
        "--models-max, --models-idle-timeout and --models-memory-limit are for the OpenAI endpoint's models: give "
        "--models-dir DIR or --openai MODEL");
  if (!o.image_urls.empty() && !openai)
    throw UsageError(
        "--image-urls lets the OpenAI endpoint's chats name images by http(s) URL: give --openai MODEL or "
        "--models-dir DIR");
  // Checked before anything loads: a bad size or time is a usage error at once.
  const std::optional<ImageUrlLimits> image_urls =
      o.image_urls.empty() ? std::nullopt : std::optional<ImageUrlLimits>(parse_image_urls(o.image_urls));
  if (!o.oip_http.empty() || !o.oip_grpc.empty()) {
    if (openai)
      throw UsageError(
          "--openai serves the OpenAI endpoint (a component), --oip-http/--oip-grpc the registered models with the "
          "Open Inference Protocol: one or the other");
    if (!o.public_paths.empty()) throw UsageError("--public-path is for a component's server, not --oip-*");
    if (!o.mmproj.empty()) throw UsageError("--mmproj is for --openai's models, not --oip-*");
    if (!o.vocoder.empty()) throw UsageError("--vocoder is for --openai's models, not --oip-*");
    if (!wasm.empty())
      throw UsageError(
          fmt::format("serve --oip-http/--oip-grpc serves the registered models, not a component: drop "
                      "'{}', or the --oip-* flags to serve it",
                      wasm));
    return oip_serve_command(o, common);
  }
  start_serve_log(o);  // its threads too have them blocked
  if (!o.model_repository.empty()) throw UsageError("--model-repository is for --oip-http/--oip-grpc");
  if (!o.model_name.empty()) throw UsageError("--model-name is for --oip-http/--oip-grpc with --model-repository");
  if (!o.pipelines.empty()) throw UsageError("--pipeline is for --oip-http/--oip-grpc");
  if (!o.dynamic_batching.empty()) throw UsageError("--dynamic-batching is for --oip-http/--oip-grpc");
  wasinn::Program program;
  auto applied = apply_guest_options(o.guest, common, program);
  if (!applied) return 0;
  std::vector<OpenaiModel> openai_served, dir_models;
  if (openai) {
    if (!wasm.empty())
      throw UsageError(fmt::format(
          "--openai serves wasinn's own OpenAI component: drop '{}', or drop --openai to serve that component", wasm));
    if (!o.openai.empty() && !(o.openai.size() == 1 && o.openai[0].empty() && !o.models_dir.empty()))
      openai_served = parse_openai_models(o.openai);
    if (!o.models_dir.empty()) dir_models = scan_models_dir(o.models_dir);
    program.wasm_path = openai_component().string();
  } else if (wasm.empty()) {
    throw UsageError("missing app.wasm: wasinn serve [OPTIONS] app.wasm (or --openai MODEL, or --oip-http/--oip-grpc)");
  } else {
    program.wasm_path = wasm;
  }
  if (!o.mmproj.empty() && openai_served.empty())
    throw UsageError(
        "--mmproj gives an --openai model its projector: wasinn serve --openai NAME=model.gguf --mmproj "
        "NAME=mmproj.gguf");
  if (!o.vocoder.empty() && openai_served.empty())
    throw UsageError(
        "--vocoder gives an --openai OuteTTS model its vocoder: wasinn serve --openai NAME=outetts.gguf --vocoder "
        "NAME=wavtokenizer.gguf");
  std::vector<ListenAddress> listens{{"--addr", check_address(o.addr)}};
  // An access log is what a server is run for: info unless the user chose a level.
  if (common.log_level.empty() && common.quiet == 0 && common.verbose == 0) spdlog::set_level(spdlog::level::info);

  wasinn::ServeOptions serve;
  serve.address = o.addr;
  serve.workers = o.workers;
  serve.max_queue = o.max_queue;
  serve.max_request_bytes = o.max_request_bytes;
  serve.header_timeout_ms = parse_duration_ms(o.header_timeout);
  serve.max_connections = o.max_connections;
  serve.max_instance_reuse_count = o.max_instance_reuse_count;
  serve.max_instance_concurrent_reuse_count = o.max_instance_concurrent_reuse_count;
  serve.idle_instance_timeout_ms = std::max<uint64_t>(1, parse_duration_ms(o.idle_instance_timeout));
  serve.busy_poll_us = parse_duration_us(o.busy_poll);
  serve.public_paths = o.public_paths;
  const bool tls = check_tls_options(o);
  serve.tls_cert = o.tls_cert;
  serve.tls_key = o.tls_key;
  serve.tls_client_ca = o.tls_client_ca;
  if (applied->pooling_allocator) serve.pooling_allocator = *applied->pooling_allocator;
  std::string timeout_flag;
  if (applied->timeout_ms) {
    serve.request_timeout_ms = *applied->timeout_ms;
  } else if (!o.request_timeout.empty()) {
    serve.request_timeout_ms = parse_duration_ms(o.request_timeout);
  }
  const uint64_t grace_ms = parse_duration_ms(o.shutdown_timeout);
  serve.on_request = log_request;
  std::optional<MetricsAddress> metrics_address;
  if (!o.guest.metrics_addr.empty()) {
    metrics_address = parse_metrics_address(o.guest.metrics_addr);
    listens.push_back({"--metrics-addr", {metrics_address->host, metrics_address->port}});
  }
  check_can_listen(listens);  // before the component compiles and any model loads, or is pulled
  pull_preload_refs(o.guest, common);
  if (openai) {
    pull_openai_models(openai_served, common.quiet > 0, !o.no_mmproj);
    attach_projectors(o.mmproj, openai_served);
    attach_vocoders(o.vocoder, openai_served);
    for (const auto& m : dir_models) {
      for (const auto& given : openai_served) {
        if (given.name == m.name)
          throw UsageError(fmt::format(
              "two models named '{}': --openai '{}' and --models-dir's {}: name the --openai one, e.g. --openai "
              "{}-2={}",
              m.name, given.given, m.given, m.name, given.source));
      }
    }
    apply_openai_models(openai_served, dir_models, o.guest.host, program, serve);
    if (image_urls) apply_image_urls(*image_urls, program);
    if (on_demand) {
      auto& rules = o.guest.host.on_demand_models;
      for (const auto& m : openai_served) rules.names.push_back(m.name);
      rules.max_loaded = o.models_max;
      rules.idle_timeout_ms = o.models_idle_timeout.empty() ? 0 : parse_duration_ms(o.models_idle_timeout);
      rules.memory_limit_bytes = o.models_memory_limit;
      serve.model_routes = true;
    }
  }
  const std::shared_ptr<wasinn::ApiKeys> keys = load_api_keys(o);
  if (keys) serve.authorize = [keys](std::string_view authorization) { return keys->check(authorization); };
  // A client certificate authenticates as a key does.
  warn_if_exposed_without_key(listens, keys != nullptr || !o.tls_client_ca.empty(), "run the component");

  // Requests allocate and free large buffers (a text model's KV cache each) on many worker
  // threads: glibc's dynamic mmap threshold would move them into the heap arenas after the first
  // free, where they fragment and RSS grows with every round of requests. A fixed threshold
  // (glibc's initial 128 KiB) hands them back at free. MALLOC_MMAP_THRESHOLD_ set by the user wins.
  if (!std::getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 128 * 1024);

  auto host = make_host(o.guest.host);
  std::string error;
  // A bad NN_OPTIONS is the command line's mistake: said now, before the server says it listens.
  if (!host->check_nn_options(program, &error)) {
    print_error(error);
    return kExitUsage;
  }
  int refused_exit = kExitFailure;
  auto server = host->serve(program, serve, &error, &refused_exit);
  if (!server) {
    print_error(error);
    return refused_exit;
  }
  // After server: stops before it goes.
  auto metrics = start_metrics_endpoint(
      metrics_address, [&host, &server] { return host->metrics_text() + server->metrics_text(); }, keys);
  print_notice(fmt::format("Serving HTTP on {}://{}/", tls ? "https" : "http", server->address()),
               {{"address", server->address()}});
  if (openai) {
    std::vector<OpenaiModel> all = openai_served;
    all.insert(all.end(), dir_models.begin(), dir_models.end());
    print_openai_urls(tls ? "https" : "http", server->address(), all);
  }

  await_stop_signal("no new connections", o.shutdown_timeout);
  server->stop();
  return drain_exit(server->wait(grace_ms), o.shutdown_timeout);
}

void await_stop_signal(const char* what, const std::string& shutdown_timeout) {
  const sigset_t stop_signals = stop_signal_set();
  int sig = 0;
  sigwait(&stop_signals, &sig);
  spdlog::info("{}: {}; finishing the requests in progress (at most {}; {} again stops at once)",
               sig == SIGTERM ? "SIGTERM" : "SIGINT", what, shutdown_timeout, sig == SIGTERM ? "SIGTERM" : "Ctrl-C");
  // The operator who asks twice does not want to wait the drain out.
  std::thread([stop_signals] {
    int again = 0;
    sigwait(&stop_signals, &again);
    print_error(fmt::format("{} again: stopping now, without finishing the requests in progress",
                            again == SIGTERM ? "SIGTERM" : "SIGINT"));
    end_stderr_capture();
    std::fflush(stdout);
    ::_exit(kExitFailure);
  }).detach();
}

int drain_exit(uint64_t cut, const std::string& shutdown_timeout) {
  if (cut == 0) return 0;
  print_error(fmt::format("{} request(s) were still in progress after --shutdown-timeout {} and were cut", cut,
                          shutdown_timeout));
  // Their work may still run on the server's threads (a guest spinning with no
  // --request-timeout): end now, as run does, rather than tear the process down under them.
  end_stderr_capture();
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(kExitFailure);
}

#ifndef WASINN_HAVE_OIP
// The lean `wasinn` hands the OIP mode to wasinn-oip beside it, the same command built with the
// protocol's server: gRPC, protobuf and abseil (50 shared libraries) load only for those who serve it.
int oip_serve_command(ServeCommandOptions&, const CommonOptions&) {
  std::error_code ec;
  const std::filesystem::path full = wasinn::wasinn_bindir() / kOipCommand;
  if (wasinn::wasinn_bindir().empty() || !std::filesystem::is_regular_file(full, ec))
    throw UsageError(
        fmt::format("serve --oip-http/--oip-grpc needs {} beside wasinn, which this installation lacks "
                    "(it is built when protobuf and grpc++ are there: scripts/deps/remote.apt)",
                    kOipCommand));
  std::vector<std::string> args = command_line();
  args[0] = full.string();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(argv[0], argv.data());  // the signal mask goes along: SIGTERM stays pending, not lost
  throw std::runtime_error(fmt::format("cannot start {}: {}", full.string(), std::strerror(errno)));
}
#endif

}  // namespace wasinn_cli
