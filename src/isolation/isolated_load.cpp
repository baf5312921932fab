// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/isolated_load.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/install_layout.h"
#include "base/log.h"
#include "core/name_table.h"
#include "isolation/checker_process.h"
#include "isolation/crash_report.h"
#include "isolation/file_identity.h"
#include "isolation/verdict_key.h"

namespace wasinn {

namespace fs = std::filesystem;

constexpr NameTable<IsolationMode, 3> kIsolationModes{
    {{{IsolationMode::by_manifest, "auto"}, {IsolationMode::always, "always"}, {IsolationMode::never, "never"}}}};

std::optional<IsolationMode> parse_isolation_mode(std::string_view text) { return kIsolationModes.value_of(text); }

std::string_view isolation_mode_name(IsolationMode mode) { return kIsolationModes.name_of(mode); }

void set_verdict_cache(IsolationOptions& options, std::string_view setting) {
  options.remember_verdicts = setting != "off";
  options.verdict_cache_dir.clear();
  if (setting.empty()) {
    options.verdict_cache_dir = default_verdict_cache_dir();
  } else if (setting != "off" && setting != "memory") {
    options.verdict_cache_dir = fs::path(setting);
  }
}

uint64_t default_address_space_mb(uint64_t model_bytes) { return 3072 + 4 * ((model_bytes + (1u << 20) - 1) >> 20); }

fs::path find_load_checker() {
  static constexpr const char* kName = "wasinn-load-check";
  if (const char* env = std::getenv("WASINN_LOAD_CHECK"); env && *env) return env;
  // Beside the wasinn command: an embedding program lives elsewhere, libwasinn.so does not.
  std::error_code ec;
  if (const fs::path bindir = wasinn_bindir(); !bindir.empty() && fs::is_regular_file(bindir / kName, ec)) {
    return bindir / kName;
  }
  return {};
}

IsolatedLoadChecker::IsolatedLoadChecker(IsolationOptions options, std::vector<fs::path> backend_dirs,
                                         std::map<std::string, std::string> backend_configs)
    : options_(std::move(options)),
      backend_dirs_(std::move(backend_dirs)),
      backend_configs_(std::move(backend_configs)),
      verdicts_(options_.remember_verdicts ? options_.verdict_cache_dir : fs::path()) {}

bool IsolatedLoadChecker::applies_to(const BackendIdentity& backend) const {
  switch (options_.mode) {
    case IsolationMode::never: return false;
    case IsolationMode::always: return true;
    case IsolationMode::by_manifest: return backend.isolate_load;
  }
  return false;
}

uint64_t IsolatedLoadChecker::address_space_mb(const LoadCheckRequest& r) const {
  if (options_.max_address_space_mb) return options_.max_address_space_mb;
  uint64_t model_bytes = 0;
  for (const auto& b : r.builders) model_bytes += b.size();
  return default_address_space_mb(model_bytes);
}

const std::string* IsolatedLoadChecker::backend_config(std::string_view backend) const {
  const auto it = backend_configs_.find(std::string(backend));
  return it != backend_configs_.end() ? &it->second : nullptr;
}

fs::path IsolatedLoadChecker::checker() {
  if (!options_.checker.empty()) return options_.checker;
  // Looked for until found, then kept: the search (readlink, stat, dladdr) costs ~15 us a load.
  std::lock_guard lock(checker_mu_);
  if (found_checker_.empty()) found_checker_ = find_load_checker();
  return found_checker_;
}

Status IsolatedLoadChecker::check(const LoadCheckRequest& request) {
  const fs::path checker = this->checker();
  const auto key = options_.remember_verdicts
                       ? isolation::verdict_key(request, checker, backend_config(request.backend),
                                                address_space_mb(request), verdicts_)
                       : std::nullopt;
  if (key) {
    if (auto verdict = verdicts_.find(key->key)) {
      logger().debug("isolated load check ({}): remembered: {}", request.backend,
                     verdict->ok ? "loaded" : verdict->error.detail);
      isolation::record_files(*key, request, verdicts_);
      if (verdict->ok) return {};
      return verdict->error;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  Outcome outcome = run_child(request, checker);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++spawned_;
  logger().debug("isolated load check ({}): {} in {:.1f} ms", request.backend,
                 outcome.verdict.ok ? "loaded" : outcome.verdict.error.detail, ms);
  // The child read the files by path: only if they are, unchanged, the bytes the key was made of
  // did it check what the key says.
  if (key && outcome.remember &&
      (request.paths.empty() || identity_if_files_hold(request.paths, request.builders) == key->files)) {
    verdicts_.remember(key->key, outcome.verdict, request.backend);
    if (!key->files_memo.empty()) verdicts_.remember_files(key->files_memo, key->key);
  }
  if (outcome.verdict.ok) return {};
  return outcome.verdict.error;
}

// What is remembered (Outcome::remember), and why: a verdict that follows from the model and the
// code (key) alone. Remembered: a load that succeeded; a clean refusal; a crash by a signal of
// the process's own doing (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS). Not
// remembered: a check that could not run (no checker, spawn or fd failure, a checker error),
// a child killed from outside (SIGKILL from the OOM killer, SIGTERM, ...), a child that exited
// without a result (a missing library exits 127 the same way), and anything about memory: the
// address-space limit's reach varies with thread stacks and allocator arenas between runs.
IsolatedLoadChecker::Outcome IsolatedLoadChecker::run_child(const LoadCheckRequest& r, const fs::path& checker) {
  auto fail = [](Error e, bool remember = false) { return Outcome{LoadVerdict{false, std::move(e)}, remember}; };
  std::error_code ec;
  if (checker.empty() || !fs::is_regular_file(checker, ec)) {
    return fail(
        make_error(Errc::runtime_error,
                   fmt::format("isolated load check: {} loads models in a checked child process, but wasinn-load-check "
                               "was not found{} (install it beside wasinn, set $WASINN_LOAD_CHECK, or run with "
                               "--isolate-loads=never)",
                               r.backend, checker.empty() ? "" : " at " + checker.string())));
  }
  uint64_t model_bytes = 0;
  for (const auto& b : r.builders) model_bytes += b.size();
  const uint64_t limit_mb = address_space_mb(r);

  std::vector<std::string> argv = {checker.string(),
                                   "--encoding",
                                   std::string(encoding_name(r.encoding)),
                                   "--target",
                                   std::string(target_name(r.target)),
                                   "--max-address-space-mb",
                                   std::to_string(limit_mb)};
  for (const auto& d : backend_dirs_) {
    argv.push_back("--backend-dir");
    argv.push_back(d.string());
  }
  std::vector<isolation::Fd> passed;
  auto pass = [&](std::string_view name, std::span<const uint8_t> bytes) -> Result<std::string> {
    auto fd = isolation::memory_file(name, bytes);
    if (!fd) return fd.take_error();
    passed.push_back(std::move(*fd));
    return fmt::format("/dev/fd/{}", 2 + passed.size());
  };
  auto as_bytes = [](std::string_view s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  if (const std::string* config = backend_config(r.backend)) {
    auto file = pass("wasinn-backend-config", as_bytes(*config));
    if (!file) return fail(file.take_error());
    argv.push_back("--backend-config-file");
    argv.push_back(fmt::format("{}={}", r.backend, *file));
  }
  if (!r.config.empty()) {
    auto file = pass("wasinn-load-config", as_bytes(r.config));
    if (!file) return fail(file.take_error());
    argv.push_back("--config-file");
    argv.push_back(*file);
  }
  std::vector<std::string> models;
  if (!r.paths.empty()) {
    for (const auto& p : r.paths) models.push_back(fs::absolute(p, ec).string());
  } else {
    argv.push_back("--bytes-only");
    for (size_t i = 0; i < r.builders.size(); ++i) {
      auto file = pass(fmt::format("wasinn-builder-{}", i), r.builders[i]);
      if (!file) return fail(file.take_error());
      models.push_back(*file);
    }
  }
  argv.push_back("--");
  argv.insert(argv.end(), models.begin(), models.end());

  // The check ends at the earlier of its own limit and the caller's deadline.
  std::optional<std::chrono::steady_clock::time_point> deadline = r.deadline;
  bool own_limit = false;
  if (options_.max_check_ms > 0) {
    const auto own = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.max_check_ms);
    own_limit = !deadline || own < *deadline;
    if (own_limit) deadline = own;
  }
  auto child = isolation::run_checker(argv, std::move(passed), deadline);
  if (!child) return fail(child.take_error());
  if (child->killed_at_deadline) {
    // Not remembered: a slower moment, or a longer limit, may let the same load finish.
    if (!own_limit) {
      return fail(make_error(Errc::timeout, fmt::format("{}: the model's isolated load check ran past the request's "
                                                        "deadline and was stopped",
                                                        r.backend)));
    }
    return fail(make_error(
        Errc::timeout,
        fmt::format("{}: loading this model did not finish within {} in an isolated check, and the host refused it "
                    "(a model's load may run its own code, e.g. TorchScript's __setstate__, which may never end; "
                    "--isolated-load-timeout sets the limit)",
                    r.backend,
                    options_.max_check_ms % 1000 ? fmt::format("{} ms", options_.max_check_ms)
                                                 : fmt::format("{} s", options_.max_check_ms / 1000))));
  }
  const int status = child->status;
  const std::string limit_note = fmt::format("the check's address space was limited to {} MiB", limit_mb);

  if (WIFSIGNALED(status)) {
    const std::string said = isolation::crash_message(child->stderr_tail);
    const int sig = WTERMSIG(status);
    const bool own_fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
                           sig == SIGTRAP || sig == SIGSYS;
    return fail(
        make_error(Errc::invalid_argument,
                   fmt::format("{}: loading this model crashed the framework in an isolated check ({}); the host "
                               "refused it{} ({})",
                               r.backend, isolation::signal_name(sig),
                               said.empty() ? "" : ". The framework said: " + said, limit_note)),
        own_fault && !isolation::about_memory(said) && !isolation::ran_out_of_memory(child->stderr_tail));
  }
  // One JSON line; anything else (a sanitizer's report and exit 1, a framework calling exit())
  // means the load did not finish normally either.
  nlohmann::json report = nlohmann::json::parse(child->report, nullptr, /*allow_exceptions=*/false);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (report.is_discarded() || !report.is_object() || !report.contains("ok") || !report["ok"].is_boolean()) {
    const std::string said = isolation::crash_message(child->stderr_tail);
    return fail(make_error(
        Errc::invalid_argument,
        fmt::format("{}: loading this model ended the framework's process in an isolated check (exit status {} "
                    "without a result); the host refused it{} ({})",
                    r.backend, code, said.empty() ? "" : ". The framework said: " + said, limit_note)));
  }
  if (report["ok"].get<bool>() && code == 0) return Outcome{LoadVerdict{}, true};
  const std::string detail = report.value("detail", std::string("the isolated load check failed"));
  if (report.value("checker_error", false)) {
    return fail(make_error(Errc::runtime_error, "isolated load check: " + detail));
  }
  const auto errc = errc_from_name(report.value("errc", std::string())).value_or(Errc::runtime_error);
  // A clean failure is the load's answer; loading again in the host would only repeat it, or,
  // when the limit caused it, spend the memory the limit was there to refuse.
  // The limit may be why: the child came near it, or the framework says memory or mapping
  // failed (one refused large allocation leaves the peak low).
  const uint64_t peak_mb = report.value("vm_peak_mb", uint64_t{0});
  const bool near_limit = (peak_mb + (model_bytes >> 20)) * 10 >= limit_mb * 9 || isolation::about_memory(detail);
  return fail(
      make_error(
          errc, near_limit ? fmt::format("{} ({}; raise it with --isolated-load-max-mb)", detail, limit_note) : detail),
      !near_limit);
}

}  // namespace wasinn
