// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The wasinn command: run wasi-nn guests, list backends, inspect models. Its command line is
// Wasmtime's where the two overlap: `wasinn app.wasm` is `wasinn run app.wasm`, options come
// before the module and everything after it is the guest's, exit codes are Wasmtime's (usage
// errors 2, a module that cannot be read or started 1, the guest's own code, 134 for a trap).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/backends_command.h"
#include "cli/build_info.h"
#include "cli/cli_common.h"
#include "cli/completion.h"
#include "cli/config_file.h"
#include "cli/inspect_command.h"
#include "cli/pull_command.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "cli/stderr_lines.h"
#include "cli/wasmtime_groups.h"
#include "base/log.h"
#include "base/near_names.h"
#include "engine/rust_heap.h"
#include "wasinn/host.h"
#include "wasinn/version.h"

namespace {

using namespace wasinn_cli;

// CLI11 2.1 names a subcommand alone in its usage line ("Usage: inspect ..."): name the whole
// command a user types instead.
class CommandUsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string) const override {
    std::string path = app->get_name();
    for (const CLI::App* p = app->get_parent(); p; p = p->get_parent()) path = p->get_name() + " " + path;
    return CLI::Formatter::make_usage(app, path);
  }
};

// CLI11 2.1 cannot describe a command whose positionals are the guest's own argv.
class RunUsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: wasinn run [OPTIONS] <WASM|-> [ARGS...]\n"
           "       wasinn [OPTIONS] <WASM> [ARGS...]\n\n"
           "The module (binary .wasm or text .wat; - reads it from stdin) and everything after it are the "
           "guest's.\n";
  }
};

class ServeUsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: wasinn serve [OPTIONS] <WASM>\n"
           "       wasinn serve --openai [NAME=]MODEL... [OPTIONS]\n"
           "       wasinn serve --oip-http [HOST[:PORT]] --oip-grpc [HOST[:PORT]] [OPTIONS]\n\n"
           "With --openai and no component: wasinn's OpenAI-compatible endpoint (/v1/...) and its chat page (/) "
           "serve the GGUF models given, each a file or a Hugging Face model pulled at start "
           "(wasinn serve --openai hf://OWNER/REPO:QUANT, wasinn serve --openai NAME=path/to/model.gguf); the "
           "URLs of the API and the page are printed once it listens (docs/serving.md).\n\n"
           "The component exports wasi:http/handler@0.3.0 (WASI 0.3) or wasi:http/incoming-handler@0.2.x. A 0.2 "
           "component's request gets a fresh instance (nothing a request leaves behind reaches the next); a 0.3 "
           "component's instance serves up to --max-instance-reuse-count requests (128; 1: a fresh one each), as "
           "wasmtime serve does, and reads their bodies as they arrive. Models registered with --nn-preload, "
           "--nn-remote or -S nn-graph are loaded once and shared. GET /healthz and /readyz are answered by "
           "wasinn itself (/readyz: 503 once stopping). HTTP/1.1, and HTTP/2 with prior knowledge. SIGTERM or SIGINT: "
           "stop accepting, finish the answers "
           "in progress (--shutdown-timeout), exit 0. The guest's environment holds WASINN_MODELS (NAME:ENCODING,... "
           "of the registered models) and, with --request-timeout, each request the header wasinn-deadline-ms (its "
           "milliseconds); under /v1/ the server's own error answers are OpenAI's JSON errors (docs/serving.md).\n\n"
           "Without --addr it listens on 127.0.0.1:8080, this machine only; on another address give --api-key or "
           "--api-key-file (every request but the health checks then needs 'Authorization: Bearer KEY'), and "
           "--tls-cert and --tls-key for HTTPS. --header-timeout and --max-connections bound slow and idle "
           "clients.\n\n"
           "With --oip-http and/or --oip-grpc and no component: every registered model (--model-repository, "
           "--nn-preload, --nn-remote, -S nn-graph, the config file) served with the Open Inference Protocol "
           "(KServe v2, Triton's REST and gRPC API, MLServer's): health, metadata, infer (JSON and binary "
           "tensors), the model repository, Triton's model configuration and statistics; --workers, --max-queue, "
           "--max-request-bytes, --shutdown-timeout, --log-format, --log-flush-interval, --metrics-addr, --api-key, "
           "--api-key-file and "
           "--header-timeout as for a component "
           "(docs/oip-server.md).\n";
  }
};

std::string indented(const std::string& text) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    out += line.empty() ? "\n" : "  " + line + "\n";
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

// `wasinn --help-all`: the top-level help, then every command's own help under a heading line
// (help2man makes each a section of the man page; CLI11's own all-help stops one level down),
// then the keys of Wasmtime's option groups.
std::string help_all(const CLI::App& app) {
  std::string out = app.help();
  const std::function<void(const CLI::App&, const std::string&)> add = [&](const CLI::App& cmd,
                                                                           const std::string& path) {
    for (const CLI::App* sub : cmd.get_subcommands({})) {
      if (sub->get_name() == "help") continue;  // described in the top-level list
      const std::string sub_path = path + " " + sub->get_name();
      const std::string text = sub->help();
      const size_t end_of_description = text.find('\n') + 1;  // a paragraph of its own in the man page
      out += "\n" + sub_path + ":\n" + indented(text.substr(0, end_of_description)) + "\n" +
             indented(text.substr(end_of_description));
      add(*sub, sub_path);
    }
  };
  add(app, "wasinn");
  for (auto group :
       {&GroupValues::wasm, &GroupValues::wasi, &GroupValues::optimize, &GroupValues::codegen, &GroupValues::debug}) {
    GroupValues values;
    values.*group = {"help"};
    GroupSettings ignored;
    if (auto text = apply_groups(values, ignored)) out += "\n" + *text;
  }
  return out;
}

// The version, the commit and what it was built with: the first line for scripts, the rest for
// a bug report (the frameworks are the plugins' build-time versions; `backends --check` loads them).
std::string version_text() {
  const wasinn_cli::BuildInfo& info = wasinn_cli::build_info();
  std::string text = std::string("wasinn ") + WASINN_VERSION_STRING + " (wasmtime " + WASINN_WASMTIME_VERSION +
                     ", plugin ABI " + std::to_string(WASINN_PLUGIN_ABI) + ", commit " + info.commit + ")";
  text += "\nbuilt with:";
  for (const std::string& framework : info.frameworks) text += "\n  " + framework;
  text += std::string("\nRust heap: ") + wasinn_rust_heap_name();
  return text;
}

// wasinn's own output (help, lists, scripts) to a reader that stopped reading: it has what it wanted.
bool reader_gone(const std::exception& e) {
  const auto* sys = dynamic_cast<const std::system_error*>(&e);
  return sys && sys->code() == std::errc::broken_pipe;
}

int run_main(int argc, char** argv) {
  set_command_line(argc, argv);
  // wasinn's own logger (base/log.h) as the default, so the CLI's spdlog::set_level reaches it.
  spdlog::set_default_logger(wasinn::shared_logger());

  CLI::App app{
      "wasinn: run WebAssembly programs whose wasi-nn calls are served by ONNX Runtime and other "
      "native inference frameworks"};
  app.name("wasinn");
  app.formatter(std::make_shared<CommandUsageFormatter>());  // subcommands added below inherit it
  app.set_version_flag("-V,--version", version_text());
  app.set_help_all_flag("--help-all", "Print the help of every command and its flags (the man page's source)");
  app.require_subcommand(0, 1);
  app.allow_extras();

  CommonOptions common;
  RunOptions run_options;
  auto* run = app.add_subcommand(
      "run", "Run a WASI command module (its _start) or component (its wasi:cli/run) with wasi-nn available");
  run->formatter(std::make_shared<RunUsageFormatter>());
  add_run_options(run, run_options, common);
  run->prefix_command();  // the first plain word is the module: it and the rest are the guest's

  BackendsOptions backends_options;
  ServeCommandOptions serve_options;
  auto* serve = app.add_subcommand("serve",
                                   "Serve HTTP with a wasi:http component (one exporting wasi:http/handler@0.3.0 "
                                   "or wasi:http/incoming-handler@0.2.x), a fresh instance per 0.2 request "
                                   "(0.3: reused, as wasmtime serve), wasi-nn available; "
                                   "or, with --oip-http/--oip-grpc, the registered models with the Open Inference "
                                   "Protocol (KServe v2, Triton, MLServer clients)");
  serve->formatter(std::make_shared<ServeUsageFormatter>());
  add_serve_options(serve, serve_options, common);
  serve->allow_extras();  // the component: checked below

  auto* backends = app.add_subcommand("backends",
                                      "List the backend plugins installed, from their manifests "
                                      "(encodings, config keys), loading none; --check loads each");
  add_backends_options(backends, backends_options, common);
  backends->allow_extras();

  auto* models = app.add_subcommand("models", "Work with models");
  models->require_subcommand(0, 1);  // none: main says which, with the near name of a typo
  InspectOptions inspect_options;
  auto* inspect =
      models->add_subcommand("inspect", "Load a model and list its inputs and outputs in the index order guests use");
  add_inspect_options(inspect, inspect_options, common);
  inspect->allow_extras();
  models->allow_extras();

  PullCommandOptions pull_options;
  auto* pull = add_pull_command(app, pull_options);

  std::string shell;
  auto* completion = app.add_subcommand("completion",
                                        "Print a shell completion script: bash, zsh or fish "
                                        "(e.g. source <(wasinn completion bash))");
  completion->add_option("shell", shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));

  // Set after the subcommands, which would inherit it: it is about `run` alone.
  const std::string implicit_run = "`wasinn app.wasm [ARGS...]` is `wasinn run app.wasm [ARGS...]`, as with Wasmtime.";
  app.footer(implicit_run);
  run->footer(implicit_run);

  // `wasinn help [COMMAND...]` is answered before parsing (below); listed here for --help.
  app.add_subcommand("help", "Print this message or the help of the given subcommand, e.g. help models inspect");
  // Anything after `run ... --` and the module reaches the top level: keep it, unparsed.
  app.prefix_command();

  // Wasmtime's implicit run: `wasinn app.wasm`, `wasinn --dir . app.wasm`.
  std::vector<std::string> args(argv + 1, argv + argc);
  // serve --log-format json: its usage errors too are JSON lines (serve_command captures the rest).
  if (!args.empty() && args[0] == "serve") {
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--log-format=json" || (args[i] == "--log-format" && i + 1 < args.size() && args[i + 1] == "json"))
        wasinn::set_log_format(wasinn::LogFormat::json, stderr);
    }
  }
  if (args.empty()) {
    fmt::print(stderr, "{}", app.help());
    return kExitUsage;
  }
  if (args[0] == "help") {
    const CLI::App* shown = &app;
    std::string path;
    for (size_t i = 1; i < args.size(); ++i) {
      const CLI::App* next = nullptr;
      for (const auto* sub : shown->get_subcommands({})) {
        if (sub->get_name() == args[i]) next = sub;
      }
      path += (path.empty() ? "" : " ") + args[i];
      if (!next || next->get_name() == "help") {
        fmt::print(stderr, "wasinn: error: no command named '{}' (see 'wasinn --help')\n", path);
        return kExitUsage;
      }
      shown = next;
    }
    fmt::print("{}", shown->help());
    return 0;
  }
  static const std::vector<std::string> kTopLevel = {"run",    "serve",      "backends",   "models",
                                                     "pull",   "help",       "completion", "-h",
                                                     "--help", "--help-all", "-V",         "--version"};
  if (std::find(kTopLevel.begin(), kTopLevel.end(), args[0]) == kTopLevel.end()) {
    // A word that is no file but one typo from a command was meant as the command.
    std::error_code ec;
    if (args[0][0] != '-' && !std::filesystem::exists(args[0], ec)) {
      if (const auto near =
              wasinn::nearest_name(args[0], {"run", "serve", "backends", "models", "pull", "help", "completion"})) {
        fmt::print(stderr, "wasinn: error: no command or module named '{}'; did you mean '{}'? (see 'wasinn --help')\n",
                   args[0], *near);
        return kExitUsage;
      }
    }
    args.insert(args.begin(), "run");
  }

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    const CLI::App* shown = &app;
    for (CLI::App* sub = &app; sub;) {
      const auto subs = sub->get_subcommands();
      sub = subs.empty() ? nullptr : subs.front();
      if (sub) shown = sub;
    }
    fmt::print("{}", shown->help());
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    fmt::print("{}", help_all(app));
    return 0;
  } catch (const CLI::CallForVersion&) {
    fmt::print("{}\n", version_text());
    return 0;
  } catch (const CLI::ParseError& e) {
    print_error(e.what());
    return kExitUsage;
  }

  try {
    if (completion->parsed()) {
      check_leftovers(completion->remaining(), *completion, "completion");
      fmt::print("{}", completion_script(app, shell));
      return 0;
    }
    const std::string config = config_file_path(common.config);
    if (backends->parsed()) {
      check_leftovers(backends->remaining(), *backends, "backends");
      check_leftovers(app.remaining(), *backends, "backends");
      common.config_sources = apply_config_file(config, backends, app);
      return backends_command(backends_options, common);
    }
    if (inspect->parsed()) {
      check_leftovers(inspect->remaining(), *inspect, "models inspect");
      check_leftovers(models->remaining(), *models, "models");
      check_leftovers(app.remaining(), *inspect, "models inspect");
      common.config_sources = apply_config_file(config, inspect, app);
      return inspect_command(inspect_options, common);
    }
    if (models->parsed()) {
      check_leftovers(models->remaining(), *models, "models");
      throw UsageError("models needs a subcommand: inspect");
    }
    if (pull->parsed()) {
      check_leftovers(pull->remaining(), *pull, "pull");
      check_leftovers(app.remaining(), *pull, "pull");
      return pull_command(pull_options);
    }
    if (serve->parsed()) {
      // The component is the one plain word; anything else left is an unknown option.
      std::vector<std::string> rest = serve->remaining();
      std::vector<std::string> words;
      std::vector<std::string> options;
      for (auto& a : rest) (a.size() > 1 && a[0] == '-' ? options : words).push_back(a);
      check_leftovers(options, *serve, "serve");
      check_leftovers(app.remaining(), *serve, "serve");
      if (words.size() > 1) {
        throw UsageError(
            fmt::format("serve takes one component, not '{}' after it: a served guest has no arguments", words[1]));
      }
      common.config_sources = apply_config_file(config, serve, app);
      return serve_command(serve_options, common, words.empty() ? "" : words[0]);
    }
    if (!run->parsed()) throw UsageError("no command given (see 'wasinn --help')");
    // run: CLI11 stops at the first plain word (prefix_command), so run's leftovers are the
    // unknown options before the module, then the module and the guest's arguments. After
    // `--`, CLI11 hands the module and its arguments back to the top level instead.
    std::vector<std::string> rest = run->remaining();
    const auto module_at =
        std::find_if(rest.begin(), rest.end(), [](const std::string& a) { return a.size() <= 1 || a[0] != '-'; });
    check_leftovers(std::vector<std::string>(rest.begin(), module_at), *run, "run");
    rest.erase(rest.begin(), module_at);
    if (rest.empty()) rest = app.remaining();
    common.config_sources = apply_config_file(config, run, app);
    return run_command(run_options, common, rest);
  } catch (const UsageError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const CLI::Error& e) {  // an option's callback failing after the parse
    print_error(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    if (reader_gone(e)) return 0;
    print_error(e.what());
    return kExitFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // As Wasmtime's CLI (Rust ignores SIGPIPE): a write to a reader that has gone is EPIPE for its
  // writer, so `wasinn run app.wasm | head` exits with the guest's code, and no server dies of it.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {  // help and version, printed before run_main's own catch
    if (reader_gone(e)) return 0;
    print_error(e.what());
    return kExitFailure;
  }
}
