// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/run_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "base/log.h"
#include "cli/guest_failure.h"
#include "cli/listen_check.h"
#include "cli/metrics_endpoint.h"
#include "cli/model_refs.h"

extern char** environ;

namespace wasinn_cli {

namespace {

constexpr uint64_t kWeekMs = 7ull * 24 * 3600 * 1000;

template <class T>
CLI::Option* add_list(CLI::App* cmd, const std::string& name, std::vector<T>& into, const std::string& help) {
  return cmd->add_option(name, into, help)->allow_extra_args(false);
}

// NAME=VALUE sets; NAME alone inherits the host's value (or nothing if the host has none).
void set_env(std::vector<std::pair<std::string, std::string>>& env, const std::string& name, const std::string& value) {
  for (auto& [k, v] : env) {
    if (k == name) {
      v = value;
      return;
    }
  }
  env.emplace_back(name, value);
}

std::vector<uint8_t> read_stdin() {
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(fmt::format("cannot read the module from stdin: {}", std::strerror(errno)));
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > wasinn::kMaxModuleBytes) {
      throw std::runtime_error(
          fmt::format("cannot read the module from stdin: it is larger than {} MiB, the most "
                      "a module may be",
                      wasinn::kMaxModuleBytes >> 20));
    }
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

// The engine names the limit "--timeout (1000 ms)" (apply_common's name for it, and the embedding
// API's milliseconds); the user may have given -W timeout=1s instead: name the flag as given.
void name_the_timeout(std::string& message, uint64_t timeout_ms, const std::string& flag) {
  const std::string engine_words = fmt::format("the guest ran longer than --timeout ({} ms)", timeout_ms);
  if (!flag.empty() && message.rfind(engine_words, 0) == 0) {
    message.replace(0, engine_words.size(), "the guest ran longer than " + flag);
  }
}

}  // namespace

void add_run_options(CLI::App* run, RunOptions& o, CommonOptions& common) {
  run->add_option("--invoke", o.invoke,
                  "Call this exported function instead of _start (after _initialize, if any) or a component's "
                  "wasi:cli/run; the arguments after the module are its parameters (a component's function "
                  "takes none), its results are printed one per line")
      ->type_name("FUNCTION");
  run->add_option("--argv0", o.argv0, "The guest's argv[0] (default: the module's file name)")->type_name("ARGV0");
  run->add_option("--max-threads", o.host.max_threads,
                  "The most threads a wasi-threads guest may have running besides its main thread; "
                  "wasi.thread-spawn past it returns an error to the guest")
      ->check(whole_number(0, 1u << 14))
      ->capture_default_str();
  run->add_flag("--nn-context-wait", o.host.limits.wait_for_busy_context,
                "A thread that uses an execution context another thread of the guest is using waits its "
                "turn, instead of getting the busy errno (4)");
  run->add_option("--timeout", o.timeout,
                  "Stop the guest after it has run this long: 200ms, 10s, 2m; a number alone is seconds (0: no "
                  "limit); as -W timeout=")
      ->type_name("DURATION")
      ->check(duration());
  add_list(run, "--listen", o.host.network.listen,
           "Let a core module that speaks WasmEdge's socket ABI (sock_open, sock_bind, ...: LlamaEdge's "
           "llama-api-server) bind and listen on this address: ADDR:PORT, ADDR an IPv4 address, [IPv6] or "
           "localhost, PORT a number or * for any; repeatable. Without it a guest's bind is refused (errno 2)")
      ->type_name("ADDR:PORT");
  add_list(run, "--connect", o.host.network.connect,
           "Let such a module connect to this host: HOST[:PORT], an address, [IPv6] or a name (resolved at start; "
           "the guest may look it up too); no PORT: any port; repeatable. Without it a guest's connect is refused "
           "(errno 2)")
      ->type_name("HOST[:PORT]");
  add_guest_options(run, o, common, "while the guest runs");
}

void add_guest_options(CLI::App* run, RunOptions& o, CommonOptions& common, const std::string& metrics_while,
                       const std::string& default_log_level) {
  add_list(run, "--dir", o.dirs,
           "Give the guest a host directory: HOST[::GUEST] (GUEST defaults to HOST; WasmEdge's DIR:DIR, both "
           "sides the same, is taken as DIR); repeatable")
      ->type_name("HOST[::GUEST]");
  add_list(run, "--env", o.envs,
           "Set a guest environment variable: NAME=VALUE, or NAME alone to pass the host's value; repeatable")
      ->type_name("NAME[=VALUE]");
  add_list(run, "--nn-preload", o.host.preloads,
           "Register a model for load_by_name: NAME:ENCODING:TARGET:PATH[:PATH...] (WasmEdge's syntax; "
           "encoding and target are case-insensitive, target AUTO allowed); repeatable. PATH may be a Hugging "
           "Face model, hf://owner/repo[:QUANT] or hf://owner/repo/FILE, or an https:// URL, pulled at start as "
           "`wasinn pull` does (the cache's copy used without the network)")
      ->type_name("SPEC");
  add_remote_options(run, o.remote);
  add_list(run, "-S,--wasi", o.groups.wasi,
           "Wasmtime's WASI options: nn, nn-graph=ENCODING::DIR, inherit-env, inherit-network=n ... "
           "(-S help lists them); repeatable, comma-separated")
      ->type_name("KEY[=VAL[,..]]");
  add_list(run, "-W,--wasm", o.groups.wasm,
           "Wasmtime's wasm options: timeout=DURATION, max-memory-size=BYTES (-W help)")
      ->type_name("KEY[=VAL[,..]]");
  add_list(run, "-O,--optimize", o.groups.optimize,
           "Wasmtime's optimization options: opt-level=2 (or 1, the same), the level wasinn compiles at (-O help)")
      ->type_name("KEY[=VAL[,..]]");
  add_list(run, "-C,--codegen", o.groups.codegen, "Wasmtime's codegen options: cache=y|n, compiler=cranelift (-C help)")
      ->type_name("KEY[=VAL[,..]]");
  add_list(run, "-D,--debug", o.groups.debug, "Wasmtime's debug options (none is supported; -D help)")
      ->type_name("KEY[=VAL[,..]]");
  run->add_flag("--no-cache", o.no_cache,
                "Compile the module on every run instead of keeping its compiled code in the module cache "
                "(~/.cache/wasinn/modules, see --module-cache)");
  run->add_option("--module-cache", o.host.module_cache,
                  "Where compiled modules are kept for the next run: a directory (used only if no other user can "
                  "write it; default ~/.cache/wasinn/modules, or under $XDG_CACHE_HOME) or off")
      ->type_name("DIR|off");
  run->add_option("--max-graphs", o.host.limits.max_graphs,
                  "The most graphs one guest may hold at once; a load past it gets an errno")
      ->check(whole_number(1, 1u << 20))
      ->capture_default_str();
  run->add_option("--max-contexts", o.host.limits.max_contexts,
                  "The most execution contexts one guest may hold at once")
      ->check(whole_number(1, 1u << 20))
      ->capture_default_str();
  run->add_option("--max-tensors", o.host.limits.max_tensors,
                  "The most tensor (and error) resources one component guest may hold at once; a tensor made past "
                  "it traps the guest")
      ->check(whole_number(1, 1u << 24))
      ->capture_default_str();
  run->add_option("--max-model-bytes", o.host.limits.max_model_bytes,
                  "The most bytes one model load may have (all its builders or files together)")
      ->check(whole_number(1, 1ull << 40))
      ->capture_default_str();
  run->add_option("--max-tensor-bytes", o.host.limits.max_tensor_bytes, "The most bytes one input tensor may have")
      ->check(whole_number(1, 1ull << 40))
      ->capture_default_str();
  run->add_option("--max-compute-ms", o.host.limits.max_compute_ms,
                  "Stop one compute after this long; the guest gets an error: 200ms, 2s, 1m; a number alone is "
                  "milliseconds, as the name says (0: no limit)")
      ->type_name("DURATION")
      ->transform(duration_as_ms())
      ->check(whole_number(0, kWeekMs))
      ->capture_default_str();
  run->add_option("--isolate-loads", o.host.isolate_loads,
                  "Load models first in a child process (wasinn-load-check), so a framework that crashes "
                  "on a malformed model refuses it instead of ending wasinn: auto (the backends marked "
                  "for it: llamacpp, whisper, tensorflowlite, pytorch), always, or never. Costs one process "
                  "start plus one extra load the first time a model is seen (see --isolated-load-cache)")
      ->type_name("MODE")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  run->add_option("--isolated-load-max-mb", o.host.isolated_load_max_mb,
                  "Address-space limit of that child process in MiB; a model needing more is refused "
                  "(0: 3072 + 4 x the model's size)")
      ->type_name("MIB")
      ->check(whole_number(0, 1ull << 24))
      ->capture_default_str();
  run->add_option("--isolated-load-timeout", o.host.isolated_load_timeout_ms,
                  "Stop that child process after this long and refuse the model (a model's load may run its own "
                  "code, e.g. TorchScript's __setstate__, which may never end); a served request's deadline stops "
                  "it sooner: 30s, 10m; a number alone is seconds (0: no limit)")
      ->type_name("DURATION")
      ->transform(duration_as_ms(BareNumber::seconds))
      ->check(whole_number(0, kWeekMs))
      ->default_str("5m");
  run->add_option("--isolated-load-cache", o.host.isolated_load_cache,
                  "Where the outcomes of those checks are kept, so a model (by its bytes, config and the "
                  "plugin's build) is checked once: a directory (default: $XDG_CACHE_HOME/wasinn/load-checks, "
                  "else ~/.cache/wasinn/load-checks; used only if no other user can write it), memory "
                  "(this run only), or off (check every load)")
      ->type_name("DIR|memory|off");
  run->add_option("--metrics-addr", o.metrics_addr,
                  "Serve the wasi-nn metrics (loads, computes, errors, compute latency, bytes, live graphs and "
                  "contexts per backend and graph) as Prometheus text at http://HOST:PORT/metrics " +
                      metrics_while +
                      "; HOST is an IPv4 address or localhost, port 0 picks a free port; the URL is printed on stderr")
      ->type_name("HOST:PORT");
  add_common(run, common, default_log_level);
}

std::pair<std::string, std::string> parse_dir(const std::string& d) {
  const auto sep = d.find("::");
  if (d.empty() || sep == 0) throw UsageError(fmt::format("--dir '{}': expected HOST[::GUEST]", d));
  if (sep != std::string::npos) {
    std::string guest = d.substr(sep + 2);
    if (guest.empty()) {
      throw UsageError(
          fmt::format("--dir '{}': the guest path after '::' is empty; write HOST::GUEST, or "
                      "HOST alone to use the same path in the guest",
                      d));
    }
    return {d.substr(0, sep), guest};
  }
  std::error_code ec;
  const auto colon = d.find(':');
  // WasmEdge's examples write --dir .:. (GUEST:HOST with both sides alike): the same as --dir .
  const size_t half = d.size() / 2;
  if (d.size() % 2 == 1 && d[half] == ':' && d.compare(0, half, d, half + 1) == 0 &&
      !std::filesystem::is_directory(d, ec))
    return {d.substr(0, half), d.substr(0, half)};
  if (colon != std::string::npos && !std::filesystem::is_directory(d, ec)) {
    throw UsageError(
        fmt::format("--dir '{}': wasinn writes HOST::GUEST, as Wasmtime does; for WasmEdge's "
                    "GUEST:HOST spelling write --dir {}::{}",
                    d, d.substr(colon + 1), d.substr(0, colon)));
  }
  return {d, d};
}

std::optional<GroupSettings> apply_guest_options(RunOptions& o, const CommonOptions& common, wasinn::Program& program) {
  GroupSettings groups;
  if (auto help = apply_groups(o.groups, groups, /*with_environment=*/true)) {
    fmt::print("{}", *help);
    return std::nullopt;
  }
  if (groups.max_memory_bytes) o.host.max_memory_bytes = *groups.max_memory_bytes;
  if (!groups.p3_off_by.empty()) {
    o.host.wasi_p3 = false;
    o.host.option_names.wasi_p3 = groups.p3_off_by;
  }
  if (!groups.async_off_by.empty()) {
    o.host.component_model_async = false;
    o.host.option_names.component_model_async = groups.async_off_by;
  }
  if (groups.max_resources) o.host.max_resources = *groups.max_resources;
  if (o.no_cache || groups.cache == false) o.host.module_cache = "off";
  for (auto& g : groups.nn_graphs) o.host.wasmtime_graphs.push_back(std::move(g));
  for (const auto& d : o.dirs) program.dirs.push_back(parse_dir(d));
  if (groups.inherit_env) {
    for (char** e = environ; *e; ++e) {
      const std::string kv(*e);
      const auto eq = kv.find('=');
      if (eq != std::string::npos && eq > 0) set_env(program.env, kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  for (const auto& e : o.envs) {
    const auto eq = e.find('=');
    if (e.empty() || eq == 0) throw UsageError(fmt::format("--env '{}': expected NAME[=VALUE]", e));
    if (eq != std::string::npos) {
      set_env(program.env, e.substr(0, eq), e.substr(eq + 1));
    } else if (const char* host_value = std::getenv(e.c_str())) {
      set_env(program.env, e, host_value);
    }
  }
  apply_common(common, o.host);
  apply_remote_options(o.remote, o.host);
  return groups;
}

int run_command(RunOptions& o, const CommonOptions& common, const std::vector<std::string>& module_and_args) {
  wasinn::Program program;
  auto applied = apply_guest_options(o, common, program);
  if (!applied) return 0;
  const GroupSettings& groups = *applied;
  // -W timeout= wins over --timeout; a guest stopped by it is said to be stopped by the flag given.
  std::string timeout_flag;
  if (groups.timeout_ms) {
    o.host.timeout_ms = *groups.timeout_ms;
    timeout_flag = "-W timeout=" + groups.timeout_text;
  } else if (!o.timeout.empty()) {
    o.host.timeout_ms = parse_duration_ms(o.timeout);  // checked by its validator
    timeout_flag = "--timeout " + o.timeout;
  }
  if (module_and_args.empty()) throw UsageError("missing app.wasm: wasinn run [OPTIONS] app.wasm [ARGS...]");
  pull_preload_refs(o, common);  // --nn-preload NAME:ENCODING:TARGET:hf://..., before the host is built
  program.wasm_path = module_and_args[0];
  program.args.assign(module_and_args.begin() + 1, module_and_args.end());
  program.argv0 = o.argv0;
  program.invoke = o.invoke;
  std::optional<MetricsAddress> metrics_address;
  if (!o.metrics_addr.empty()) {
    metrics_address = parse_metrics_address(o.metrics_addr);
    check_can_listen({{"--metrics-addr", {metrics_address->host, metrics_address->port}}});  // before any model loads
  }

  auto host = make_host(o.host);
  // After host: stops before the host goes.
  auto metrics = start_metrics_endpoint(metrics_address, [&host] { return host->metrics_text(); });

  if (program.wasm_path == "-") {
    try {
      program.wasm_bytes = read_stdin();
    } catch (const std::exception& e) {
      fmt::print(stderr, "wasinn: error: {}\n", e.what());
      return kExitFailure;
    }
  }
  auto outcome = host->run(program);
  name_the_timeout(outcome.message, o.host.timeout_ms, timeout_flag);
  for (const auto& r : outcome.results) fmt::print("{}\n", r);
  std::fflush(stdout);
  if (!outcome.message.empty()) {
    // The reason first; of a wasm backtrace, its innermost frames unless -v (info) shows all.
    fmt::print(stderr, "{}", guest_failure_text(outcome.message, wasinn::logger().should_log(spdlog::level::info)));
  }
  if (outcome.unstopped_threads > 0) {
    // Guest threads still parked in memory.atomic.wait: the process ends now, as Wasmtime's CLI
    // does, without running destructors under them.
    std::fflush(stderr);
    ::_exit(outcome.exit_code);
  }
  return outcome.exit_code;
}

}  // namespace wasinn_cli
