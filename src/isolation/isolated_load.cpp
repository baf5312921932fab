// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "isolation/isolated_load.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/install_layout.h"
#include "base/log.h"
#include "base/sha256.h"
#include "isolation/file_identity.h"
#include "wasinn/version.h"

extern char** environ;

namespace wasinn {

namespace fs = std::filesystem;

namespace {

constexpr size_t kStderrTail = 16 * 1024;    // bytes of the child's stderr kept for the detail
constexpr size_t kReportMax = 1 << 20;       // a report line longer than this is not a report

// An fd closed on scope exit.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

Error sys_error(std::string_view what) {
  return make_error(Errc::runtime_error,
                    fmt::format("isolated load check: {}: {}", what, std::strerror(errno)));
}

// An anonymous in-memory file holding `bytes`, for the child to map as /dev/fd/N.
Result<Fd> memory_file(std::string_view name, std::span<const uint8_t> bytes) {
  Fd fd(memfd_create(std::string(name).c_str(), MFD_CLOEXEC));
  if (fd.get() < 0) return sys_error("memfd_create");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("writing the model for the check");
    done += static_cast<size_t>(n);
  }
  return fd;
}

// Moves fd to a number >= floor (close-on-exec), so the child's dup2 targets below floor
// never collide with a source.
Result<Fd> raised(Fd fd, int floor) {
  if (fd.get() >= floor) return fd;
  Fd moved(fcntl(fd.get(), F_DUPFD_CLOEXEC, floor));
  if (moved.get() < 0) return sys_error("fcntl(F_DUPFD_CLOEXEC)");
  return moved;
}

std::string signal_name(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return fmt::format("SIG{}", abbrev);
  return fmt::format("signal {}", sig);
}

// Changing what goes into a verdict key changes this, so no older key can match.
constexpr std::string_view kKeyVersion = "wasinn load-check key 2";

// Whether a failed check's evidence is about memory: the address-space limit (whose reach
// varies with thread stacks and allocator arenas from run to run) or the machine's.
bool about_memory(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view mark : {"memory", "alloc", "mmap", "fileio"}) {
    if (lower.find(mark) != std::string::npos) return true;
  }
  return false;
}

// The same for a crashed child's whole stderr, where frameworks log "alloc" in passing: only
// the words of a failed allocation count.
bool ran_out_of_memory(std::string_view stderr_tail) {
  for (std::string_view mark : {"bad_alloc", "out of memory", "Out of memory", "Cannot allocate memory",
                                "failed to allocate"}) {
    if (stderr_tail.find(mark) != std::string_view::npos) return true;
  }
  return false;
}

std::optional<Errc> errc_from_name(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Errc::model_not_found); ++i) {
    if (errc_name(static_cast<Errc>(i)) == name) return static_cast<Errc>(i);
  }
  return std::nullopt;
}

// The line of a crashed child's stderr that says why: an assertion, an abort message or the
// terminate handler's "what()". Frameworks print much else (logs, backtraces) around it.
std::string crash_message(std::string_view tail) {
  static constexpr std::string_view kMarks[] = {"GGML_ASSERT", "Assertion", "assert", "terminate called",
                                                "what():", "Check failed", "FATAL", "Fatal", "ERROR:",
                                                "error:"};
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < tail.size()) {
    size_t end = tail.find('\n', pos);
    if (end == std::string_view::npos) end = tail.size();
    std::string_view line = tail.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    // Log lines at info and warning level (LiteRT, TensorFlow) never say why a process died.
    if (!line.empty() && !line.starts_with("INFO") && !line.starts_with("WARNING")) lines.push_back(line);
    pos = end + 1;
  }
  for (std::string_view mark : kMarks) {
    for (std::string_view line : lines) {
      if (line.find(mark) == std::string_view::npos) continue;
      std::string out(line.substr(0, 300));
      for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
      }
      return out;
    }
  }
  return {};
}

struct ChildExit {
  int status = 0;  // as from waitpid
  std::string report;
  std::string stderr_tail;
};

// Spawns argv with `passed` at fds 3, 4, ... and collects its stdout (the report) and the
// tail of its stderr until it exits. posix_spawn, not fork: the host is multithreaded.
Result<ChildExit> run_checker(const std::vector<std::string>& argv, std::vector<Fd> passed) {
  const int first_free = 3 + static_cast<int>(passed.size());
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return sys_error("pipe2");
  Fd out_r(out_pipe[0]), out_w_low(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return sys_error("pipe2");
  Fd err_r(err_pipe[0]), err_w_low(err_pipe[1]);
  auto out_w = raised(std::move(out_w_low), first_free);
  if (!out_w) return out_w.take_error();
  auto err_w = raised(std::move(err_w_low), first_free);
  if (!err_w) return err_w.take_error();
  for (auto& fd : passed) {
    auto r = raised(std::move(fd), first_free);
    if (!r) return r.take_error();
    fd = std::move(*r);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w->get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_w->get(), 2);
  for (size_t i = 0; i < passed.size(); ++i) {
    posix_spawn_file_actions_adddup2(&actions, passed[i].get(), 3 + static_cast<int>(i));
  }
  // Nothing else of the host leaks into the child (fds opened without O_CLOEXEC included).
  posix_spawn_file_actions_addclosefrom_np(&actions, first_free);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Default dispositions and an empty mask: the host may block or ignore signals the framework
  // relies on, and a crash must be able to kill the child.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, cargv[0], &actions, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return sys_error(fmt::format("cannot start {}", argv[0]));
  }
  out_w->reset();
  err_w->reset();
  passed.clear();

  ChildExit result;
  std::string err_all;
  pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}};
  int open_count = 2;
  char buf[16384];
  while (open_count > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      if (i == 0) {
        if (result.report.size() < kReportMax) result.report.append(buf, static_cast<size_t>(n));
      } else {
        err_all.append(buf, static_cast<size_t>(n));
        if (err_all.size() > 2 * kStderrTail) err_all.erase(0, err_all.size() - kStderrTail);
      }
    }
  }
  if (err_all.size() > kStderrTail) err_all.erase(0, err_all.size() - kStderrTail);
  result.stderr_tail = std::move(err_all);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return sys_error("waitpid on the check");
  }
  result.status = status;
  return result;
}

}  // namespace

std::optional<IsolationMode> parse_isolation_mode(std::string_view text) {
  if (text == "auto") return IsolationMode::by_manifest;
  if (text == "always") return IsolationMode::always;
  if (text == "never") return IsolationMode::never;
  return std::nullopt;
}

std::string_view isolation_mode_name(IsolationMode mode) {
  switch (mode) {
    case IsolationMode::by_manifest: return "auto";
    case IsolationMode::always: return "always";
    case IsolationMode::never: return "never";
  }
  return "?";
}

void set_verdict_cache(IsolationOptions& options, std::string_view setting) {
  options.remember_verdicts = setting != "off";
  options.verdict_cache_dir.clear();
  if (setting.empty()) {
    options.verdict_cache_dir = default_verdict_cache_dir();
  } else if (setting != "off" && setting != "memory") {
    options.verdict_cache_dir = fs::path(setting);
  }
}

uint64_t default_address_space_mb(uint64_t model_bytes) {
  return 3072 + 4 * ((model_bytes + (1u << 20) - 1) >> 20);
}

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

std::optional<IsolatedLoadChecker::VerdictKey> IsolatedLoadChecker::verdict_key(const LoadCheckRequest& r,
                                                                               const fs::path& checker) {
  if (!options_.remember_verdicts || checker.empty() || r.plugin_library.empty() || r.framework_version.empty()) {
    return std::nullopt;
  }
  // A gpu, tpu or auto load's verdict also follows from the machine's devices and the
  // environment that shows them (a driver installed later, VK_ICD_FILENAMES, CUDA_VISIBLE_DEVICES),
  // which no key holds: only CPU verdicts are remembered.
  if (r.target != Target::cpu) return std::nullopt;
  // A new build of the checker (and the core in it) or of the plugin never trusts old verdicts.
  const auto checker_id = file_identity(checker);
  const auto plugin_id = file_identity(r.plugin_library);
  if (!checker_id || !plugin_id) return std::nullopt;
  VerdictKey out;
  bool settled = false;
  if (!r.paths.empty()) {
    auto files = model_files_identity(r.paths, r.builders, &settled);
    if (!files) return std::nullopt;  // a SavedModel directory, or a file changed since it was mapped
    out.files = std::move(*files);
  }
  // Everything but the model's bytes that decides the outcome, in a fixed order.
  auto context = [&](Sha256& h) {
    h.field(kKeyVersion);
    h.field(std::string_view(WASINN_VERSION_STRING));
    h.field(*checker_id);
    h.field(r.backend);
    h.field(r.plugin_library.string());
    h.field(*plugin_id);
    h.field(r.framework_version);
    const auto config = backend_configs_.find(std::string(r.backend));
    h.field(uint64_t{config != backend_configs_.end()});
    h.field(config != backend_configs_.end() ? std::string_view(config->second) : std::string_view());
    h.field(encoding_name(r.encoding));
    h.field(target_name(r.target));
    h.field(r.config);
    h.field(address_space_mb(r));
    // By path or as bytes: a plugin may read a file's neighbours, or map it instead of copying.
    h.field(uint64_t{r.paths.size()});
    std::error_code ec;
    for (const auto& p : r.paths) h.field(fs::absolute(p, ec).string());
  };
  if (!r.paths.empty() && settled) {
    Sha256 memo;
    context(memo);
    memo.field(out.files);
    out.files_memo = memo.hex_digest();
    if (auto key = verdicts_.key_of_files(out.files_memo)) {
      out.key = std::move(*key);
      out.memo_hit = true;
      return out;
    }
  }
  Sha256 content;
  context(content);
  const auto bytes = r.bytes_digest ? *r.bytes_digest : builders_digest(r.builders);
  content.field(std::span<const uint8_t>(bytes));
  out.key = content.hex_digest();
  return out;
}

// Records the files' identity -> key after a remembered verdict answered, so that their next
// loads skip the hash; only when the files still are the bytes that were hashed.
void IsolatedLoadChecker::record_files(const VerdictKey& key, const LoadCheckRequest& r) {
  if (key.files_memo.empty() || key.memo_hit) return;
  if (identity_if_files_hold(r.paths, r.builders) == key.files) verdicts_.remember_files(key.files_memo, key.key);
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
  const auto key = verdict_key(request, checker);
  if (key) {
    if (auto verdict = verdicts_.find(key->key)) {
      logger().debug("isolated load check ({}): remembered: {}", request.backend,
                    verdict->ok ? "loaded" : verdict->error.detail);
      record_files(*key, request);
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
    return fail(make_error(
        Errc::runtime_error,
        fmt::format("isolated load check: {} loads models in a checked child process, but wasinn-load-check "
                    "was not found{} (install it beside wasinn, set $WASINN_LOAD_CHECK, or run with "
                    "--isolate-loads=never)",
                    r.backend, checker.empty() ? "" : " at " + checker.string())));
  }
  uint64_t model_bytes = 0;
  for (const auto& b : r.builders) model_bytes += b.size();
  const uint64_t limit_mb = address_space_mb(r);

  std::vector<std::string> argv = {checker.string(), "--encoding", std::string(encoding_name(r.encoding)),
                                   "--target", std::string(target_name(r.target)),
                                   "--max-address-space-mb", std::to_string(limit_mb)};
  for (const auto& d : backend_dirs_) {
    argv.push_back("--backend-dir");
    argv.push_back(d.string());
  }
  std::vector<Fd> passed;
  auto pass = [&](std::string_view name, std::span<const uint8_t> bytes) -> Result<std::string> {
    auto fd = memory_file(name, bytes);
    if (!fd) return fd.take_error();
    passed.push_back(std::move(*fd));
    return fmt::format("/dev/fd/{}", 2 + passed.size());
  };
  auto as_bytes = [](std::string_view s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  if (auto it = backend_configs_.find(std::string(r.backend)); it != backend_configs_.end()) {
    auto file = pass("wasinn-backend-config", as_bytes(it->second));
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

  auto child = run_checker(argv, std::move(passed));
  if (!child) return fail(child.take_error());
  const int status = child->status;
  const std::string limit_note = fmt::format("the check's address space was limited to {} MiB", limit_mb);

  if (WIFSIGNALED(status)) {
    const std::string said = crash_message(child->stderr_tail);
    const int sig = WTERMSIG(status);
    const bool own_fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
                           sig == SIGTRAP || sig == SIGSYS;
    return fail(make_error(
        Errc::invalid_argument,
        fmt::format("{}: loading this model crashed the framework in an isolated check ({}); the host "
                    "refused it{} ({})",
                    r.backend, signal_name(sig), said.empty() ? "" : ". The framework said: " + said,
                    limit_note)),
                own_fault && !about_memory(said) && !ran_out_of_memory(child->stderr_tail));
  }
  // One JSON line; anything else (a sanitizer's report and exit 1, a framework calling exit())
  // means the load did not finish normally either.
  nlohmann::json report = nlohmann::json::parse(child->report, nullptr, /*allow_exceptions=*/false);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (report.is_discarded() || !report.is_object() || !report.contains("ok") || !report["ok"].is_boolean()) {
    const std::string said = crash_message(child->stderr_tail);
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
  const bool near_limit = (peak_mb + (model_bytes >> 20)) * 10 >= limit_mb * 9 || about_memory(detail);
  return fail(make_error(errc, near_limit ? fmt::format("{} ({}; raise it with --isolated-load-max-mb)",
                                                        detail, limit_note)
                                          : detail),
              !near_limit);
}

}  // namespace wasinn
