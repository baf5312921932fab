// The wasinn command: run wasi-nn guests, list backends.
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "wasinn/host.h"
#include "wasinn/version.h"

namespace {

// CLI11 2.1 cannot describe a command whose positionals are the guest's own argv.
class RunUsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: wasinn run [OPTIONS] app.wasm [ARGS...]\n";
  }
};

struct CommonOptions {
  std::vector<std::string> backend_dirs;
  std::vector<std::string> backend_configs;
  std::string log_level = "warn";
};

void add_common(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--backend-dir", o.backend_dirs,
                  "Directory of backend manifests (*.json); repeatable. Default: $WASINN_BACKEND_PATH, "
                  "then <prefix>/lib/wasinn/backends")
      ->type_name("DIR")->allow_extra_args(false);
  cmd->add_option("--backend-config", o.backend_configs,
                  "NAME=JSON settings for one backend, e.g. onnxruntime={\"intra_op_threads\":1}; repeatable")
      ->type_name("NAME=JSON")->allow_extra_args(false);
  cmd->add_option("--log-level", o.log_level, "error, warn, info or debug (default warn: guest errors are shown)")
      ->type_name("LEVEL")->check(CLI::IsMember({"error", "warn", "info", "debug", "off"}));
}

// Options of commands that load models.
void add_isolation(CLI::App* cmd, wasinn::HostOptions& o) {
  cmd->add_option("--isolate-loads", o.isolate_loads,
                  "Load models first in a child process (wasinn-load-check), so a framework that crashes "
                  "on a malformed model refuses it instead of ending wasinn: auto (the backends marked "
                  "for it: llamacpp, tensorflowlite, pytorch), always, or never. Costs one process "
                  "start plus one extra load per model file or guest load (files: once)")
      ->type_name("MODE")->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();
  cmd->add_option("--isolated-load-max-mb", o.isolated_load_max_mb,
                  "Address-space limit of that child process in MiB; a model needing more is refused "
                  "(0: 3072 + 4 x the model's size)")
      ->type_name("MIB")->capture_default_str();
}

bool apply_common(const CommonOptions& o, wasinn::HostOptions& host) {
  host.backend_dirs = o.backend_dirs;
  for (const auto& kv : o.backend_configs) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      fmt::print(stderr, "wasinn: --backend-config '{}': expected NAME=JSON\n", kv);
      return false;
    }
    host.backend_configs[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  spdlog::set_level(spdlog::level::from_str(o.log_level));
  return true;
}

int run_backends(const CommonOptions& common) {
  wasinn::HostOptions options;
  if (!apply_common(common, options)) return 2;
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  if (!host) {
    fmt::print(stderr, "wasinn: {}\n", error);
    return 2;
  }
  const auto backends = host->probe_backends();
  fmt::print("searched: {}\n", fmt::join(host->backend_search_dirs(), ", "));
  if (backends.empty()) {
    fmt::print("no backend plugins found\n");
    return 1;
  }
  for (const auto& b : backends) {
    if (b.loadable) {
      fmt::print("{:<14} {:<22} {:<12} ok\n", b.name, fmt::join(b.encodings, ","), b.framework_version);
    } else {
      fmt::print("{:<14} {:<22} {:<12} {}\n", b.name, fmt::join(b.encodings, ","), "-", b.problem);
    }
  }
  return 0;
}

void print_tensors(const char* title, const std::vector<wasinn::TensorInfo>& tensors) {
  fmt::print("{}:\n", title);
  if (tensors.empty()) fmt::print("  (none declared; the backend learns them at compute)\n");
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    std::string shape = "?";
    if (t.rank_known) {
      std::vector<std::string> d;
      for (int64_t v : t.dims) d.push_back(v < 0 ? "?" : std::to_string(v));
      shape = fmt::format("[{}]", fmt::join(d, ", "));
    }
    fmt::print("  {:>3}  {:<28} {:<5} {}\n", i, t.name.empty() ? "-" : t.name, t.type, shape);
  }
}

int run_inspect(const CommonOptions& common, wasinn::HostOptions options, const std::vector<std::string>& model,
                const std::string& encoding) {
  if (!apply_common(common, options)) return 2;
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  wasinn::ModelInfo info;
  if (!host || !host->inspect_model(model, encoding, &info, &error)) {
    fmt::print(stderr, "wasinn: {}\n", error);
    return 1;
  }
  fmt::print("backend: {} {} (encoding {})\n", info.backend, info.framework_version, info.encoding);
  print_tensors("inputs (set_input index)", info.inputs);
  print_tensors("outputs (get_output index)", info.outputs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_st("wasinn");
  logger->set_pattern("wasinn: %^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{"wasinn: run WebAssembly programs whose wasi-nn calls are served by ONNX Runtime and other "
               "native inference frameworks"};
  app.set_version_flag("--version", std::string("wasinn ") + WASINN_VERSION_STRING + " (wasmtime " +
                                        WASINN_WASMTIME_VERSION + ", plugin ABI " +
                                        std::to_string(WASINN_PLUGIN_ABI) + ")");
  app.require_subcommand(1);

  CommonOptions common;
  wasinn::HostOptions host_options;
  std::vector<std::string> dirs, envs;

  auto* run = app.add_subcommand("run", "Run a WASI command module (its _start) with wasi-nn available");
  run->formatter(std::make_shared<RunUsageFormatter>());
  run->add_option("--dir", dirs, "Give the guest a host directory: HOST[::GUEST] (GUEST defaults to HOST); repeatable")
      ->type_name("HOST[::GUEST]")->allow_extra_args(false);
  run->add_option("--env", envs, "Set a guest environment variable K=V; repeatable")
      ->type_name("K=V")->allow_extra_args(false);
  run->add_option("--nn-preload", host_options.preloads,
                  "Register a model for load_by_name: NAME:ENCODING:TARGET:PATH[:PATH...] (WasmEdge's syntax; "
                  "encoding and target are case-insensitive, target AUTO allowed); repeatable")
      ->type_name("SPEC")->allow_extra_args(false);
  std::vector<std::string> wasi_options;
  run->add_option("-S,--wasi", wasi_options,
                  "Wasmtime's WASI options, for scripts written for it: `nn` (accepted; wasi-nn is always on) "
                  "and nn-graph=ENCODING::DIR (register DIR's model.onnx / model.xml+model.bin / model.pt ... "
                  "under DIR's base name); repeatable")
      ->type_name("KEY[=VALUE]")->allow_extra_args(false);
  run->add_option("--max-graphs", host_options.limits.max_graphs, "Live graphs per guest")
      ->capture_default_str();
  run->add_option("--max-contexts", host_options.limits.max_contexts, "Live execution contexts per guest")
      ->capture_default_str();
  run->add_option("--max-model-bytes", host_options.limits.max_model_bytes, "Bytes of one model load")
      ->capture_default_str();
  run->add_option("--max-tensor-bytes", host_options.limits.max_tensor_bytes, "Bytes of one input tensor")
      ->capture_default_str();
  run->add_option("--max-compute-ms", host_options.limits.max_compute_ms,
                  "Stop one compute after this long; the guest gets an error (0: no limit)")
      ->capture_default_str();
  run->add_option("--timeout", host_options.timeout_ms,
                  "Stop the guest after this many milliseconds of running (0: no limit)")
      ->capture_default_str();
  add_isolation(run, host_options);
  add_common(run, common);

  auto* backends = app.add_subcommand("backends", "List the backend plugins found, their framework versions, "
                                                  "and why any of them cannot load");
  add_common(backends, common);

  auto* models = app.add_subcommand("models", "Work with models");
  models->require_subcommand(1);
  auto* inspect = models->add_subcommand(
      "inspect", "Load a model and list its inputs and outputs in the index order guests use");
  std::vector<std::string> inspect_model;
  std::string inspect_encoding = "autodetect";
  wasinn::HostOptions inspect_options;
  inspect->add_option("model", inspect_model,
                      "A name registered with --nn-preload, or the model's file(s)/directory")
      ->required();
  inspect->add_option("--encoding", inspect_encoding, "Encoding of model files (default: detected from the bytes)");
  inspect->add_option("--nn-preload", inspect_options.preloads, "As for run; then name the model")
      ->type_name("SPEC")->allow_extra_args(false);
  add_isolation(inspect, inspect_options);
  add_common(inspect, common);

  // app.wasm and everything after it belong to the guest; CLI11 2.1 cannot stop parsing at a
  // subcommand's first positional, so split argv here: every `run` option takes a value.
  std::vector<std::string> rest;
  int host_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) != "run") continue;
    for (int j = i + 1; j < argc; ++j) {
      std::string_view a = argv[j];
      if (a == "--") {
        host_argc = j;
        rest.assign(argv + j + 1, argv + argc);
        break;
      }
      if (a.empty() || a[0] != '-') {
        host_argc = j;
        rest.assign(argv + j, argv + argc);
        break;
      }
      if (a != "-h" && a != "--help" && a.find('=') == std::string_view::npos) ++j;  // skip its value
    }
    break;
  }
  try {
    app.parse(host_argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (backends->parsed()) return run_backends(common);
  if (inspect->parsed()) return run_inspect(common, inspect_options, inspect_model, inspect_encoding);

  if (rest.empty()) {
    fmt::print(stderr, "wasinn run: missing app.wasm\n{}", run->help());
    return 2;
  }
  wasinn::Program program;
  program.wasm_path = rest[0];
  program.args.assign(rest.begin() + 1, rest.end());
  for (const auto& d : dirs) {
    const auto sep = d.find("::");
    if (sep == 0 || d.empty()) {
      fmt::print(stderr, "wasinn run: --dir '{}': expected HOST[::GUEST]\n", d);
      return 2;
    }
    program.dirs.emplace_back(d.substr(0, sep), sep == std::string::npos ? d : d.substr(sep + 2));
  }
  for (const auto& e : envs) {
    const auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0) {
      fmt::print(stderr, "wasinn run: --env '{}': expected K=V\n", e);
      return 2;
    }
    program.env.emplace_back(e.substr(0, eq), e.substr(eq + 1));
  }
  // Wasmtime also accepts comma-separated lists: -S nn,nn-graph=onnx::dir.
  std::vector<std::string> wasi_items;
  for (const auto& opt : wasi_options) {
    size_t start = 0;
    while (start <= opt.size()) {
      const size_t comma = opt.find(',', start);
      wasi_items.push_back(opt.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  for (const auto& w : wasi_items) {
    if (w == "nn" || w == "nn=y" || w == "nn=yes") continue;
    if (w.rfind("nn-graph=", 0) == 0) {
      host_options.wasmtime_graphs.push_back(w.substr(9));
      continue;
    }
    fmt::print(stderr, "wasinn run: -S {}: wasinn knows only the Wasmtime options nn and nn-graph=ENCODING::DIR\n", w);
    return 2;
  }
  if (!apply_common(common, host_options)) return 2;
  std::string error;
  auto host = wasinn::Host::create(host_options, &error);
  if (!host) {
    fmt::print(stderr, "wasinn: {}\n", error);
    return 2;
  }
  const auto outcome = host->run(program);
  std::fflush(stdout);
  if (!outcome.message.empty()) fmt::print(stderr, "wasinn: {}\n", outcome.message);
  return outcome.exit_code;
}
