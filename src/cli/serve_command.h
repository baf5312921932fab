// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn serve [OPTIONS] <WASM>`: a wasi:http/proxy component behind HTTP, as `wasmtime serve`
// (its --addr and -S/-W flags), with run's model, limit and metrics options, an access log and
// a graceful stop on SIGTERM/SIGINT. With --oip-http/--oip-grpc and no component: the
// registered models behind the Open Inference Protocol (oip_serve_command.cpp).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_common.h"
#include "cli/run_command.h"
#include "serve/api_keys.h"
#include "wasinn/server.h"

namespace wasinn_cli {

struct ServeCommandOptions {
  RunOptions guest;                     // what serve shares with run
  std::string addr = "127.0.0.1:8080";  // loopback: other machines only when asked
  size_t workers = 0;
  size_t max_queue = 64;
  std::string request_timeout;  // DURATION; -W timeout= wins
  uint64_t max_request_bytes = 64ull << 20;
  std::string shutdown_timeout = "30s";
  std::string log_format = "text";
  std::string log_flush_interval = "50ms";  // DURATION; 0: each line as it is logged
  // Both modes' network safety (docs/serving.md, "On a network").
  std::vector<std::string> api_keys;       // --api-key, repeatable
  std::vector<std::string> api_key_files;  // --api-key-file, repeatable; reread on SIGHUP
  std::vector<std::string> public_paths;   // --public-path: GET and HEAD of these need no key
  std::string header_timeout = "10s";      // DURATION
  size_t max_connections = 1024;
  // A 0.3 component's instance reuse (`wasmtime serve`'s flags); 0: Wasmtime's defaults.
  size_t max_instance_reuse_count = 0;
  size_t max_instance_concurrent_reuse_count = 0;
  std::string idle_instance_timeout = "1s";      // DURATION
  std::string busy_poll = "200us";               // DURATION, at most 10ms
  std::string tls_cert, tls_key, tls_client_ca;  // PEM files; none: plain HTTP
  // --openai [NAME=]SOURCE...: the OpenAI endpoint (openai_models.h); given without a MODEL: {""}.
  std::vector<std::string> openai;
  // --mmproj [NAME=]FILE: a projector for --openai's model NAME (images in chat), repeatable.
  std::vector<std::string> mmproj;
  bool no_mmproj = false;  // --no-mmproj: a Hub model's projector is not pulled
  // --vocoder [NAME=]FILE: an OuteTTS --openai model's WavTokenizer decoder (speech), repeatable.
  std::vector<std::string> vocoder;
  // --image-urls MAX[,TIMEOUT]: chats' http(s) image URLs fetched (openai_models.h); "": refused.
  std::string image_urls;
  // Many models (models_dir.h): DIR's GGUF models, loaded on demand, and the rules that keep them.
  std::string models_dir;
  size_t models_max = 0;             // 0: no limit
  std::string models_idle_timeout;   // DURATION; "" or 0: off
  uint64_t models_memory_limit = 0;  // bytes; 0: what the machine and the cgroup have
  // The Open Inference Protocol mode: "" not given; a flag given without a value is "-".
  std::string oip_http, oip_grpc;
  std::string model_repository;
  std::string model_name;                     // a flat --model-repository's one model ("": its file's name)
  std::vector<std::string> pipelines;         // NAME=COMPONENT
  std::vector<std::string> dynamic_batching;  // NAME=MAX_BATCH[:DELAY], as given
};

void add_serve_options(CLI::App* serve, ServeCommandOptions& o, CommonOptions& common);

// Serves until SIGTERM or SIGINT, then drains; returns the exit code (0: every answer in
// progress finished). Throws UsageError for a mistake in the options.
int serve_command(ServeCommandOptions& o, const CommonOptions& common, const std::string& wasm);

// The OIP mode (--oip-http, --oip-grpc): the same flags' meanings (workers, queue, body limit,
// shutdown, access log, metrics, models) for the protocol's server, src/serve/oip/.
int oip_serve_command(ServeCommandOptions& o, const CommonOptions& common);

// Both modes' stop: waits for the SIGTERM or SIGINT serve_command blocked, and logs that the
// requests in progress are being finished (`what` says what the server stops taking first).
void await_stop_signal(const char* what, const std::string& shutdown_timeout);
// A second SIGTERM or SIGINT during the drain ends the process at once (exit 1).
// The drain's exit code: 0 when no request was cut; otherwise says how many were and ends the
// process at once (their work may still run on the server's threads).
int drain_exit(uint64_t cut, const std::string& shutdown_timeout);

// Both modes' stderr: JSON when asked, then info lines (the access log) written in batches.
void start_serve_log(const ServeCommandOptions& o);

// One access-log line at info (warn for 500 and above): the text for people; in the JSON
// format, the record's fields too (method, path, status, bytes_in, bytes_out, duration_ms, note).
void log_request(const wasinn::RequestRecord& r);

// --api-key and --api-key-file's keys, the files read now (a bad one is a UsageError naming it);
// nullptr when neither was given. With files, SIGHUP (blocked by serve_command since the start)
// rereads them on a thread of its own, keeping the keys in use when a file has become bad.
std::shared_ptr<wasinn::ApiKeys> load_api_keys(const ServeCommandOptions& o);

// --tls-cert, --tls-key and --tls-client-ca checked together and read as the servers will: a
// UsageError for a flag without its partner, an error naming a bad or mismatched file. Returns
// whether TLS is on.
bool check_tls_options(const ServeCommandOptions& o);

}  // namespace wasinn_cli
