// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/pull_command.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/cli_common.h"
#include "cli/hub_download.h"
#include "cli/hub_fetch.h"
#include "cli/stderr_lines.h"

namespace wasinn_cli {

namespace {

using Clock = std::chrono::steady_clock;
using hub::PullProgress;

constexpr auto kBarEvery = std::chrono::milliseconds(100);  // a terminal's bar, redrawn at most this often
constexpr auto kLineEvery = std::chrono::seconds(5);        // a log's progress line, at most this often

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string duration_text(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  const auto whole = static_cast<long long>(s);
  return whole < 3600 ? fmt::format("{}:{:02d}", whole / 60, whole % 60)
                      : fmt::format("{}:{:02d}:{:02d}", whole / 3600, whole / 60 % 60, whole % 60);
}

// Progress on stderr: a bar redrawn in place on a terminal; otherwise a line at the start, one
// every 5 s at most, and one at the end. Nothing with -q.
class ProgressDisplay {
 public:
  ProgressDisplay(bool terminal, bool quiet) : terminal_(terminal), quiet_(quiet) {}

  void operator()(const PullProgress& p) {
    if (quiet_) return;
    switch (p.event) {
      case PullProgress::Event::notice:
        end_bar();
        fmt::print(stderr, "wasinn: {}\n", p.name);
        break;
      case PullProgress::Event::cached:
        end_bar();
        fmt::print(stderr, "wasinn: {}: in the cache\n", p.name);
        break;
      case PullProgress::Event::start:
        started_ = last_ = Clock::now();
        if (terminal_) {
          draw(p);
        } else {
          fmt::print(stderr, "wasinn: pulling {} ({}) from {}{}\n", p.name,
                     p.total ? hub::human(p.total) : "size unknown", hub::url_host(p.source),
                     p.resumed_from ? fmt::format(", resuming at {}", hub::human(p.resumed_from)) : "");
        }
        break;
      case PullProgress::Event::bytes:
        if (Clock::now() - last_ < (terminal_ ? std::chrono::duration_cast<Clock::duration>(kBarEvery)
                                              : std::chrono::duration_cast<Clock::duration>(kLineEvery)))
          break;
        last_ = Clock::now();
        if (terminal_) {
          draw(p);
        } else {
          fmt::print(
              stderr, "wasinn: {}: {}{}, {}/s\n", p.name, p.total ? fmt::format("{}% ", percent(p)) : "",
              p.total ? fmt::format("({} of {})", hub::human(p.bytes), hub::human(p.total)) : hub::human(p.bytes),
              hub::human(rate(p)));
        }
        break;
      case PullProgress::Event::done:
        if (terminal_) {
          draw(p);
          end_bar();
        } else {
          const double took = seconds_since(started_);
          fmt::print(stderr, "wasinn: {}: done, {} in {}{}\n", p.name, hub::human(p.bytes - p.resumed_from),
                     duration_text(took), took >= 0.05 ? fmt::format(" ({}/s)", hub::human(rate(p))) : "");
        }
        break;
    }
    std::fflush(stderr);
  }

  // Ends a bar's line, so that what follows starts on its own.
  void end_bar() {
    if (!bar_shown_) return;
    fmt::print(stderr, "\n");
    bar_shown_ = false;
  }

 private:
  static int percent(const PullProgress& p) {
    return p.total ? static_cast<int>(std::min<uint64_t>(100, p.bytes * 100 / p.total)) : 0;
  }

  uint64_t rate(const PullProgress& p) const {
    const double s = seconds_since(started_);
    return s > 0.05 ? static_cast<uint64_t>(static_cast<double>(p.bytes - p.resumed_from) / s) : 0;
  }

  void draw(const PullProgress& p) {
    winsize ws{};
    const int columns = ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
    std::string name = p.name.substr(p.name.rfind('/') + 1);
    if (name.size() > 32) name = "..." + name.substr(name.size() - 29);
    const uint64_t per_s = rate(p);
    std::string right;
    if (p.total) {
      right =
          fmt::format(" {:>3}% {}/{} {}/s", percent(p), hub::human(p.bytes), hub::human(p.total), hub::human(per_s));
      if (per_s > 0 && p.bytes < p.total)
        right += " " + duration_text(static_cast<double>(p.total - p.bytes) / static_cast<double>(per_s));
    } else {
      right = fmt::format(" {} {}/s", hub::human(p.bytes), hub::human(per_s));
    }
    const int room = columns - 1 - static_cast<int>(name.size() + right.size()) - 3;
    std::string bar;
    if (p.total && room >= 10) {
      const int width = std::min(room, 40);
      const int full = static_cast<int>(static_cast<double>(width) * percent(p) / 100);
      bar = " [" + std::string(full, '#') + std::string(width - full, '.') + "]";
    }
    fmt::print(stderr, "\r\033[K{}{}{}", name, bar, right);
    bar_shown_ = true;
  }

  bool terminal_;
  bool quiet_;
  bool bar_shown_ = false;
  Clock::time_point started_ = Clock::now();
  Clock::time_point last_ = Clock::now();
};

}  // namespace

CLI::App* add_pull_command(CLI::App& app, PullCommandOptions& o) {
  auto* pull = app.add_subcommand("pull",
                                  "Download models from the Hugging Face Hub (or a mirror, or a URL) into the Hub's "
                                  "cache, shared with huggingface_hub and llama.cpp, and print their local paths");
  pull->add_option("ref", o.refs,
                   "owner/repo[:TAG], owner/repo/PATH, hf://..., or an http(s):// URL (see below); one or more")
      ->required()
      ->type_name("REF");
  pull->add_option("--revision", o.revision,
                   "The branch, tag or commit to pull from (default: main; owner/repo@REV says it for one REF)")
      ->type_name("REV");
  pull->add_option("--endpoint", o.endpoint,
                   "The Hub's URL (default: $HF_ENDPOINT, else https://huggingface.co), e.g. a mirror's")
      ->type_name("URL");
  pull->add_option("--cache-dir", o.cache_dir,
                   "The Hub cache (default: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub)")
      ->type_name("DIR");
  pull->add_flag("--offline", o.offline,
                 "Use only what the cache holds, as HF_HUB_OFFLINE=1: an error names what it lacks");
  pull->add_flag("-q,--quiet", o.quiet, "No progress on stderr, only errors");
  pull->footer(
      "REF is one of:\n"
      "  owner/repo[:TAG]    the repository's model. GGUF as llama-server -hf picks it: TAG a quantization\n"
      "                      (Q4_K_M; without one Q4_K_M, else Q8_0, else the first GGUF), every part of a\n"
      "                      split model, never an mmproj. ONNX (no GGUF there): onnx/model.onnx or\n"
      "                      model.onnx (TAG: model_TAG.onnx), its external data and the repository's\n"
      "                      config and tokenizer JSONs\n"
      "  owner/repo/PATH     one file of it (a split GGUF's part: all its parts)\n"
      "  hf://owner/repo...  the same; owner/repo@REV... pulls revision REV\n"
      "  https://URL         a file: a Hub .../resolve/REV/PATH URL into the Hub cache, any other into\n"
      "                      $XDG_CACHE_HOME/wasinn/downloads (else ~/.cache/wasinn/downloads)\n\n"
      "Files are stored as huggingface_hub stores them (models--OWNER--REPO/blobs, snapshots/COMMIT, refs), so "
      "what huggingface_hub, transformers or llama.cpp fetched is not fetched again, and theirs reads ours. A cut "
      "download resumes where it stopped; an LFS file's SHA-256 is checked against the Hub's ETag. HF_TOKEN (else "
      "the token `hf auth login` saved) is sent to the Hub for gated and private repositories; HF_ENDPOINT names a "
      "mirror; HF_HUB_OFFLINE=1 is --offline. Progress goes to stderr (a bar on a terminal); stdout gets each "
      "model file's path (the snapshot's), one a line: MODEL=$(wasinn pull owner/repo:Q4_K_M). Exit status: 0 "
      "pulled, 1 a pull failed, 2 a usage error.");
  pull->allow_extras();  // unknown options: main says which, with the nearest name
  return pull;
}

int pull_command(const PullCommandOptions& o) {
  hub::PullOptions options = hub::options_from_environment();
  if (!o.endpoint.empty()) {
    options.endpoint = o.endpoint;
    while (!options.endpoint.empty() && options.endpoint.back() == '/') options.endpoint.pop_back();
  }
  if (options.endpoint.rfind("https://", 0) != 0 && options.endpoint.rfind("http://", 0) != 0) {
    throw UsageError(fmt::format("the Hub's endpoint '{}' is not an http(s):// URL ({})", options.endpoint,
                                 o.endpoint.empty() ? "HF_ENDPOINT" : "--endpoint"));
  }
  if (!o.cache_dir.empty()) options.cache_dir = o.cache_dir;
  if (options.cache_dir.empty()) {
    throw UsageError("no Hub cache directory: set HF_HOME or HOME, or give --cache-dir");
  }
  if (!o.revision.empty()) options.revision = o.revision;
  if (o.offline) options.offline = true;
  std::vector<hub::HubRef> refs;
  for (const auto& text : o.refs) {
    auto ref = hub::parse_ref(text, options.endpoint);
    if (!ref) throw UsageError(ref.error().detail);
    refs.push_back(std::move(*ref));
  }
  ProgressDisplay display(::isatty(STDERR_FILENO) == 1, o.quiet > 0);
  options.progress = [&display](const PullProgress& p) { display(p); };
  std::vector<std::string> paths;
  for (const auto& ref : refs) {
    auto got = hub::pull(ref, options);
    display.end_bar();
    if (!got) {
      print_error(got.error().detail);
      return got.error().code == wasinn::Errc::invalid_argument ? kExitUsage : kExitFailure;
    }
    for (const auto& path : *got) paths.push_back(std::filesystem::absolute(path).string());
  }
  for (const auto& path : paths) fmt::print("{}\n", path);
  std::fflush(stdout);
  return 0;
}

wasinn::Result<std::vector<std::filesystem::path>> pull_showing_progress(const hub::HubRef& ref,
                                                                         hub::PullOptions options, bool quiet,
                                                                         std::filesystem::path* projector) {
  ProgressDisplay display(::isatty(STDERR_FILENO) == 1, quiet);
  options.progress = [&display](const PullProgress& p) { display(p); };
  auto got = hub::pull(ref, options, projector);
  display.end_bar();
  return got;
}

}  // namespace wasinn_cli
