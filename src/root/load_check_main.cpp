// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn-load-check: loads one model with one backend plugin, through the same core code the
// host uses (NnEnvironment::load_graph), under an address-space limit, releases it, and prints
// one JSON line. The host runs it before loading a model with a backend whose framework may
// crash on malformed input (isolation/isolated_load.h); it is also a tool for trying a model:
//
//   wasinn-load-check [--encoding ENC] [--backend-dir DIR]... MODEL [MODEL...]
//
// stdout: {"ok":true,"backend":...,"load_ms":...,"vm_peak_mb":...} and exit 0, or
// {"ok":false,"errc":"invalid_argument","detail":...} and exit 1 (the load failed cleanly), or
// {"ok":false,"checker_error":true,...} and exit 64 (bad usage, unreadable file). A crash in the
// framework ends the process by its signal, as it would have ended the host.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/log.h"
#include "base/sanitizers.h"
#include "isolation/isolated_load.h"
#include "core/mapped_file.h"
#include "core/nn_environment.h"
#include "root/wired_environment.h"

namespace {

constexpr int kLoadFailed = 1;
constexpr int kCheckerError = 64;  // EX_USAGE

int report_fd = 1;

[[noreturn]] void finish(const nlohmann::json& report, int code) {
  const std::string line =
      report.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(report_fd, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  // _exit: frameworks' static destructors and thread pools have nothing to say about the load.
  std::fflush(stderr);
  _exit(code);
}

[[noreturn]] void checker_error(const std::string& detail) {
  finish({{"ok", false}, {"checker_error", true}, {"detail", detail}}, kCheckerError);
}

// 0 under ASan, whose terabytes of shadow would read as a load that came near a limit it does not
// have (limit_resources sets none there), and keep every refusal from being remembered.
uint64_t vm_peak_mb() {
  if (wasinn::kAddressSanitizer) return 0;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmPeak:", 0) == 0) return std::stoull(line.substr(7)) / 1024;  // kB
  }
  return 0;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) checker_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// No core files (a crash here is expected and reported), and an address-space limit so that
// an absurd allocation fails in the child instead of exhausting the machine.
void limit_resources(uint64_t max_address_space_mb) {
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // ASan reserves terabytes of shadow memory up front: no address-space limit there.
  if (max_address_space_mb > 0 && !wasinn::kAddressSanitizer) {
    const rlim_t bytes = static_cast<rlim_t>(max_address_space_mb) << 20;
    rlimit as{bytes, bytes};
    if (setrlimit(RLIMIT_AS, &as) != 0) checker_error("setrlimit(RLIMIT_AS) failed");
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The report gets stdout to itself: frameworks that print to stdout go to stderr instead.
  report_fd = dup(1);
  if (report_fd < 0) return kCheckerError;
  dup2(2, 1);
  wasinn::logger().set_level(spdlog::level::warn);
  // ggml's abort handler attaches gdb for a backtrace (seconds per crash); the host reports
  // the crash and its assertion line, not a backtrace.
  setenv("GGML_NO_BACKTRACE", "1", /*overwrite=*/0);

  CLI::App app{
      "wasinn-load-check: load a model with a wasinn backend plugin in this process and report "
      "the outcome as one JSON line (what wasinn runs before loading with an isolated backend)"};
  std::string encoding_text = "autodetect", target_text = "cpu", config, config_file;
  std::vector<std::string> backend_dirs, backend_configs, backend_config_files, models;
  int64_t max_as_mb = -1;
  bool bytes_only = false;
  app.add_option("--encoding", encoding_text,
                 "onnx, openvino, pytorch, tensorflowlite, tensorflow, ggml or "
                 "autodetect (default)");
  app.add_option("--target", target_text, "cpu (default), gpu, tpu or auto");
  app.add_option("--backend-dir", backend_dirs, "Directory of backend manifests; repeatable (default: as wasinn)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  app.add_option("--backend-config", backend_configs, "NAME=JSON for one backend's backend_create; repeatable")
      ->type_name("NAME=JSON")
      ->allow_extra_args(false);
  app.add_option("--backend-config-file", backend_config_files, "NAME=FILE: as --backend-config, read from FILE")
      ->type_name("NAME=FILE")
      ->allow_extra_args(false);
  app.add_option("--config", config, "The load's config text (load_by_name_with_config)");
  app.add_option("--config-file", config_file, "As --config, read from FILE")->type_name("FILE");
  app.add_option("--max-address-space-mb", max_as_mb,
                 "RLIMIT_AS of this process in MiB; 0: none; default: 3072 + 4 x the model's MiB (as wasinn)");
  app.add_flag("--bytes-only", bytes_only,
               "Give the backend the files' bytes but not their paths, as a guest's load() does");
  app.add_option("models", models, "The model's files (or a SavedModel directory), as graph builders")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::fputs(app.help().c_str(), stderr);
    return 0;
  } catch (const CLI::ParseError& e) {
    checker_error(e.what());
  }

  auto encoding = wasinn::parse_encoding(encoding_text);
  if (!encoding) checker_error("unknown encoding '" + encoding_text + "'");
  auto target = wasinn::parse_target(target_text);
  if (!target) checker_error("unknown target '" + target_text + "'");
  if (!config_file.empty()) config = read_text(config_file);

  wasinn::EnvironmentOptions options;
  for (const auto& d : backend_dirs) options.backend_dirs.emplace_back(d);
  auto add_config = [&](const std::string& kv, bool from_file) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) checker_error("'" + kv + "': expected NAME=VALUE");
    options.backend_configs[kv.substr(0, eq)] = from_file ? read_text(kv.substr(eq + 1)) : kv.substr(eq + 1);
  };
  for (const auto& kv : backend_configs) add_config(kv, false);
  for (const auto& kv : backend_config_files) add_config(kv, true);
  options.isolation.mode = wasinn::IsolationMode::never;  // this process is the isolation

  const std::vector<std::filesystem::path> paths(models.begin(), models.end());
  auto mapped = wasinn::MappedBuilders::open(paths);
  if (!mapped) checker_error(mapped.error().detail);
  const uint64_t model_bytes = mapped->total_bytes();
  limit_resources(max_as_mb >= 0 ? static_cast<uint64_t>(max_as_mb) : wasinn::default_address_space_mb(model_bytes));

  const wasinn::WiredEnvironment wired = wasinn::wire_environment(std::move(options));
  wasinn::NnEnvironment& env = *wired.env;
  const auto start = std::chrono::steady_clock::now();
  auto graph = env.load_graph(*encoding, *target, mapped->builders(),
                              bytes_only ? std::span<const std::filesystem::path>() : std::span(paths), config);
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!graph) {
    finish({{"ok", false},
            {"errc", std::string(wasinn::errc_name(graph.error().code))},
            {"detail", graph.error().detail},
            {"load_ms", load_ms},
            {"vm_peak_mb", vm_peak_mb()}},
           kLoadFailed);
  }
  const std::string backend = (*graph)->plugin().name();
  graph->reset();  // releasing the graph is part of what the host will do with it
  finish({{"ok", true}, {"backend", backend}, {"load_ms", load_ms}, {"vm_peak_mb", vm_peak_mb()}}, 0);
}
