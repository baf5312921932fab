// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/cli_common.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/near_names.h"

namespace wasinn_cli {

void add_common(CLI::App* cmd, CommonOptions& o, const std::string& default_level) {
  cmd->add_option("--config", o.config,
                  "Read options from this TOML or JSON file (keys: the long option names; the command line "
                  "wins). Default: config.toml or config.json in $XDG_CONFIG_HOME/wasinn (else ~/.config/wasinn), "
                  "if there")
      ->type_name("FILE");
  cmd->add_option("--backend-dir", o.backend_dirs,
                  "Directory of backend manifests (*.json); repeatable. When none is given: "
                  "$WASINN_BACKEND_PATH's directories, then <prefix>/lib/wasinn/backends")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--backend-config", o.backend_configs,
                  "NAME=JSON settings for one backend, e.g. onnxruntime={\"intra_op_threads\":1}; checked at "
                  "start: the backend must be installed, the JSON an object, each key one the backend takes "
                  "('wasinn backends' lists them); repeatable, later keys win")
      ->type_name("NAME=JSON")
      ->allow_extra_args(false);
  auto* level =
      cmd->add_option("--log-level", o.log_level,
                      "off, error, warn (failed wasi-nn calls), info (also each model load" +
                          std::string(default_level == "info" ? ", the start, the stop and each request" : "") +
                          "), debug, or trace (also a line per crossing of each request's path: the server's "
                          "steps, each wasi-nn call, each backend plugin call, with the request's id); the default: " +
                          default_level)
          ->type_name("LEVEL")
          ->check(CLI::IsMember({"off", "error", "warn", "info", "debug", "trace"}));
  auto* quiet =
      cmd->add_flag("-q,--quiet", o.quiet, "Log errors only, as --log-level error; -qq: nothing, as --log-level off");
  auto* verbose =
      cmd->add_flag("-v,--verbose", o.verbose, "Log more: -v as --log-level info (each model load), -vv as debug");
  quiet->excludes(verbose);
  level->excludes(quiet)->excludes(verbose);
}

std::vector<std::string> option_names_of(const CLI::Option& opt) {
  std::vector<std::string> out;
  for (const auto& s : opt.get_snames()) out.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) out.push_back("--" + l);
  return out;
}

std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->get_positional()) continue;
    const auto names = option_names_of(*opt);
    out.insert(out.end(), names.begin(), names.end());
  }
  return out;
}

void check_leftovers(const std::vector<std::string>& left, const CLI::App& cmd, const std::string& command) {
  if (left.empty()) return;
  const std::string& a = left.front();
  if (a.size() > 1 && a[0] == '-') {
    throw UsageError(fmt::format("unknown option {}{} (see 'wasinn {} --help')", a,
                                 wasinn::did_you_mean(a.substr(0, a.find('=')), option_names(cmd)), command));
  }
  std::vector<std::string> subcommands;
  for (const auto* sub : cmd.get_subcommands({})) subcommands.push_back(sub->get_name());
  if (!subcommands.empty()) {
    throw UsageError(fmt::format("'wasinn {}' has no command '{}'{} (see 'wasinn {} --help')", command, a,
                                 wasinn::did_you_mean(a, subcommands), command));
  }
  throw UsageError(fmt::format("unexpected argument '{}' (see 'wasinn {} --help')", a, command));
}

CLI::Validator whole_number(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const bool digits = !s.empty() && s.size() <= 20 &&
                            std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        errno = 0;
        const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || v < lo || v > hi) {
          return fmt::format("'{}' is not a whole number from {} to {}", s, lo, hi);
        }
        return {};
      },
      fmt::format("{}..{}", lo, hi));
}

namespace {

const char* bare_word(BareNumber bare) {
  switch (bare) {
    case BareNumber::milliseconds: return "milliseconds";
    case BareNumber::microseconds: return "microseconds";
    case BareNumber::seconds: break;
  }
  return "seconds";
}

}  // namespace

uint64_t parse_duration_us(const std::string& s, BareNumber bare) {
  size_t unit_at = 0;
  while (unit_at < s.size() && ((s[unit_at] >= '0' && s[unit_at] <= '9') || s[unit_at] == '.')) ++unit_at;
  const std::string number = s.substr(0, unit_at);
  std::string unit = s.substr(unit_at);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  char* end = nullptr;
  const double n = number.empty() || number == "." ? -1 : std::strtod(number.c_str(), &end);
  // In microseconds; humantime's spellings (Wasmtime parses -W timeout= with it).
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"ns", 1e-3},    {"nsec", 1e-3},   {"us", 1},      {"usec", 1},      {"ms", 1e3},
      {"msec", 1e3},   {"millis", 1e3},  {"s", 1e6},     {"sec", 1e6},     {"secs", 1e6},
      {"second", 1e6}, {"seconds", 1e6}, {"m", 6e7},     {"min", 6e7},     {"mins", 6e7},
      {"minute", 6e7}, {"minutes", 6e7}, {"h", 3.6e9},   {"hr", 3.6e9},    {"hrs", 3.6e9},
      {"hour", 3.6e9}, {"hours", 3.6e9}, {"d", 8.64e10}, {"day", 8.64e10}, {"days", 8.64e10}};
  const auto u = std::find_if(kUnits.begin(), kUnits.end(), [&](const auto& p) { return p.first == unit; });
  if (n < 0 || (end && *end) || (u == kUnits.end() && !unit.empty())) {
    throw std::invalid_argument(
        fmt::format("'{}' is not a duration: write a number and a unit, e.g. 200ms, 2s, 1.5m "
                    "or 1h (units ns, us, ms, s, m, h, d; a number alone is {})",
                    s, bare_word(bare)));
  }
  const double bare_us = bare == BareNumber::seconds ? 1e6 : bare == BareNumber::milliseconds ? 1e3 : 1;
  const double us = std::ceil(n * (unit.empty() ? bare_us : u->second));
  if (us > 7.0 * 24 * 3600 * 1e6) throw std::invalid_argument(fmt::format("'{}' is more than a week", s));
  return static_cast<uint64_t>(us);
}

uint64_t parse_duration_ms(const std::string& s, BareNumber bare) { return (parse_duration_us(s, bare) + 999) / 1000; }

namespace {

// A CLI11 validator over a parser that throws std::invalid_argument: its message is the error.
CLI::Validator validator_of(std::function<void(std::string&)> parse) {
  return CLI::Validator(
      [parse = std::move(parse)](std::string& s) -> std::string {
        try {
          parse(s);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      },
      "");  // the option's type name says DURATION
}

}  // namespace

CLI::Validator duration(BareNumber bare) {
  return validator_of([bare](std::string& s) { parse_duration_us(s, bare); });
}

std::string duration_text(uint64_t us) {
  if (us != 0 && us % 1'000'000 == 0) return fmt::format("{}s", us / 1'000'000);
  if (us != 0 && us % 1'000 == 0) return fmt::format("{}ms", us / 1'000);
  return fmt::format("{}us", us);
}

CLI::Validator duration_at_most(uint64_t max_us) {
  return validator_of([max_us](std::string& s) {
    if (parse_duration_us(s) > max_us)
      throw std::invalid_argument(
          fmt::format("'{}' is more than {} (a number alone is seconds)", s, duration_text(max_us)));
  });
}

CLI::Validator duration_as_ms(BareNumber bare) {
  return validator_of([bare](std::string& s) { s = std::to_string(parse_duration_ms(s, bare)); });
}

void apply_common(const CommonOptions& o, wasinn::HostOptions& host) {
  // The host's messages name the flags; a preload from the config file, its file and line.
  host.option_names.preload = "--nn-preload";
  host.option_names.wasmtime_graph = "-S nn-graph";
  host.option_names.backend_config = "--backend-config";
  host.option_names.isolate_loads = "--isolate-loads";
  host.option_names.timeout = "--timeout";  // run_command names -W timeout= when that set it
  host.option_names.max_memory = "-W max-memory-size";
  host.option_names.invoke = "--invoke";
  host.option_names.listen = "--listen";
  host.option_names.connect = "--connect";
  if (const auto from_file = o.config_sources.find("nn-preload"); from_file != o.config_sources.end())
    host.option_names.preload_sources = from_file->second;
  host.backend_dirs = o.backend_dirs;
  for (const auto& kv : o.backend_configs) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(fmt::format("--backend-config '{}': expected NAME=JSON", kv));
    }
    const std::string name = kv.substr(0, eq);
    const std::string json = kv.substr(eq + 1);
    nlohmann::json parsed;
    try {
      parsed = nlohmann::json::parse(json);
    } catch (const nlohmann::json::parse_error& e) {
      // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
      std::string why = e.what();
      if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
      throw UsageError(fmt::format("--backend-config {}: malformed JSON: {}", name, why));
    }
    if (!parsed.is_object()) {
      throw UsageError(fmt::format("--backend-config {}: expected a JSON object {{...}}, got {}", name, json));
    }
    auto it = host.backend_configs.find(name);
    if (it == host.backend_configs.end()) {
      host.backend_configs[name] = json;
    } else {  // given again: its keys replace the earlier ones
      auto merged = nlohmann::json::parse(it->second);
      merged.update(parsed);
      it->second = merged.dump();
    }
  }
  std::string level = o.log_level;
  if (level.empty()) {
    if (o.quiet >= 2)
      level = "off";
    else if (o.quiet == 1)
      level = "error";
    else if (o.verbose >= 2)
      level = "debug";
    else if (o.verbose == 1)
      level = "info";
    else
      level = "warn";
  }
  spdlog::set_level(spdlog::level::from_str(level));
}

std::unique_ptr<wasinn::Host> make_host(const wasinn::HostOptions& options) {
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  if (!host) throw UsageError(error);
  return host;
}

namespace {
std::vector<std::string>& saved_command_line() {
  static std::vector<std::string> line;
  return line;
}
}  // namespace

void set_command_line(int argc, char** argv) { saved_command_line().assign(argv, argv + argc); }
const std::vector<std::string>& command_line() { return saved_command_line(); }

}  // namespace wasinn_cli
