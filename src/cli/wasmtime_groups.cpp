// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/wasmtime_groups.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string_view>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/cli_common.h"

namespace wasinn_cli {

namespace {

using Value = std::optional<std::string>;  // nullopt: the key was given without '='

struct Key {
  const char* name;
  const char* value_help;
  const char* doc;
  std::function<void(const Value&, GroupSettings&)> apply;  // throws std::invalid_argument with the reason
};

struct Group {
  char flag;
  const char* long_name;
  std::vector<Key> keys;
  // Wasmtime 50's other keys for this group: refused as "not supported by wasinn" rather than
  // as unknown, so that the message says the key is right but the feature is missing.
  const char* wasmtime_keys;
  const std::vector<std::string> GroupValues::*values;
};

bool parse_bool(const Value& v) {
  if (!v || *v == "y" || *v == "yes" || *v == "true") return true;
  if (*v == "n" || *v == "no" || *v == "false") return false;
  throw std::invalid_argument(fmt::format("unknown boolean '{}', only y, yes, n, no or nothing accepted", *v));
}

const std::string& need(const Value& v) {
  if (!v || v->empty()) throw std::invalid_argument("a value must be given with KEY=VALUE");
  return *v;
}

uint64_t parse_size(const Value& v) {
  const std::string& s = need(v);
  const bool hex = s.rfind("0x", 0) == 0;
  const std::string digits = hex ? s.substr(2) : s;
  const bool ok = !digits.empty() && std::all_of(digits.begin(), digits.end(), [hex](char c) {
    return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
  });
  errno = 0;
  const unsigned long long n = ok ? std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10) : 0;
  if (!ok || errno == ERANGE) throw std::invalid_argument(fmt::format("'{}' is not a whole number", s));
  return n;
}

// WASI 0.3's APIs (-S p3) or the component model's async (-W component-model-async) on (y, the
// default) or off (n, remembered as the flag that said so in `off_by`): the last given wins.
Key p3_switch(const char* flag_and_name, std::string GroupSettings::*off_by, const char* doc) {
  return Key{flag_and_name + 3, "[=y|n]", doc, [flag_and_name, off_by](const Value& v, GroupSettings& s) {
               s.*off_by = parse_bool(v) ? "" : std::string(flag_and_name) + "=n";
             }};
}

// A key accepted only with the value wasinn always has (its behaviour cannot be changed).
Key fixed_bool(const char* name, bool wasinn_value, const char* doc, const char* refusal) {
  return Key{name, "[=y|n]", doc, [wasinn_value, refusal](const Value& v, GroupSettings&) {
               if (parse_bool(v) != wasinn_value) throw std::invalid_argument(refusal);
             }};
}

const std::vector<Group>& groups() {
  static const std::vector<Group> kGroups = {
      {'O',
       "optimize",
       {{"opt-level", "=1|2",
         "Optimization level; wasinn compiles at Wasmtime's default, 2 (1 is the same; 0 and s are refused)",
         [](const Value& v, GroupSettings&) {
           const std::string& s = need(v);
           if (s != "1" && s != "2") {
             throw std::invalid_argument("wasinn compiles at Wasmtime's default level (2) only");
           }
         }},
        {"pooling-allocator", "[=y|n]",
         "Instantiate from preallocated slots: wasinn serve's default, as wasmtime serve's (no effect on run, "
         "which instantiates once)",
         [](const Value& v, GroupSettings& s) { s.pooling_allocator = parse_bool(v); }}},
       "regalloc-algorithm memory-may-move memory-reservation memory-reservation-for-growth memory-guard-size "
       "guard-before-linear-memory table-lazy-init signals-based-traps memory-init-cow "
       "memory-guaranteed-dense-image-size dynamic-memory-guard-size static-memory-guard-size "
       "static-memory-forced static-memory-maximum-size dynamic-memory-reserved-for-growth",
       &GroupValues::optimize},
      {'C',
       "codegen",
       {{"cache", "[=y|n]", "Cache compiled modules (default y); cache=n compiles every run, as --no-cache",
         [](const Value& v, GroupSettings& s) { s.cache = parse_bool(v); }},
        {"compiler", "=cranelift", "Compiler; wasinn uses Cranelift",
         [](const Value& v, GroupSettings&) {
           if (need(v) != "cranelift") throw std::invalid_argument("wasinn compiles with Cranelift only");
         }}},
       "collector cranelift-debug-verifier cache-config parallel-compilation pcc native-unwind-info inlining",
       &GroupValues::codegen},
      {'D', "debug", {}, "debug-info guest-debug address-map logging log-to-files coredump", &GroupValues::debug},
      {'W',
       "wasm",
       {{"timeout", "=DURATION",
         "Stop the guest after this long: 10s, 200ms, 2m (a number alone is seconds, as in "
         "Wasmtime); as --timeout",
         [](const Value& v, GroupSettings& s) {
           s.timeout_ms = parse_duration_ms(need(v));
           s.timeout_text = *v;
         }},
        {"max-memory-size", "=N", "Most bytes a linear memory may grow to; memory.grow fails beyond it",
         [](const Value& v, GroupSettings& s) {
           const uint64_t n = parse_size(v);
           if (n == 0) throw std::invalid_argument("a memory limit of 0 bytes leaves the guest no memory");
           s.max_memory_bytes = n;
         }},
        fixed_bool("threads", true, "Atomics and shared memory (always on in wasinn)",
                   "wasinn always runs wasi-threads guests"),
        p3_switch("-W component-model-async", &GroupSettings::async_off_by,
                  "The component model's async (WASI 0.3 components); on by default, =n refuses 0.3 components "
                  "and any component with an async function"),
        p3_switch("-W concurrency-support", &GroupSettings::async_off_by,
                  "Wasmtime's concurrency support; as component-model-async"),
        // Off in Wasmtime 48 unless asked for, and off in wasinn: =n is what both do.
        fixed_bool("component-model-more-async-builtins", false,
                   "The async builtins beyond 0.3's (off, as Wasmtime's default: only =n)",
                   "wasinn validates components with Wasmtime's default component-model features (see docs/cli.md)"),
        fixed_bool("component-model-async-builtins", false,
                   "The name of component-model-more-async-builtins before Wasmtime 45 (only =n)",
                   "wasinn validates components with Wasmtime's default component-model features (see docs/cli.md)"),
        fixed_bool("component-model-async-stackful", false,
                   "Stackful async lifts (off, as Wasmtime's default: only =n)",
                   "wasinn validates components with Wasmtime's default component-model features (see docs/cli.md)"),
        fixed_bool("component-model-threading", false, "Component-model threads (off, as Wasmtime's default: only =n)",
                   "wasinn validates components with Wasmtime's default component-model features (see docs/cli.md)"),
        fixed_bool("component-model-error-context", false,
                   "The error-context type (off, as Wasmtime's default: only =n)",
                   "wasinn validates components with Wasmtime's default component-model features (see docs/cli.md)")},
       "nan-canonicalization fuel epoch-interruption max-wasm-stack async-stack-size async-stack-zeroing "
       "unknown-exports-allow unknown-imports-trap unknown-imports-default wmemcheck max-table-elements "
       "max-instances max-tables max-memories trap-on-grow-failure all-proposals bulk-memory multi-memory "
       "multi-value reference-types simd relaxed-simd relaxed-simd-deterministic tail-call "
       "shared-memory shared-everything-threads memory64 component-model component-model-gc component-model-map "
       "component-model-memory64 component-model-fixed-length-lists component-model-implements "
       "function-references stack-switching gc custom-page-sizes wide-arithmetic extended-const exceptions "
       "gc-support",
       &GroupValues::wasm},
      {'S',
       "wasi",
       {fixed_bool("nn", true, "wasi-nn (always on in wasinn)", "wasi-nn is always on in wasinn"),
        {"nn-graph", "=ENCODING::DIR",
         "Register DIR's model (model.onnx, model.xml+model.bin, model.pt...) under DIR's base name",
         [](const Value& v, GroupSettings& s) { s.nn_graphs.push_back(need(v)); }},
        {"inherit-env", "[=y|n]", "Give the guest every host environment variable (--env still overrides)",
         [](const Value& v, GroupSettings& s) { s.inherit_env = parse_bool(v); }},
        fixed_bool("threads", true, "wasi-threads: wasi.thread-spawn (always on in wasinn)",
                   "wasinn always serves wasi-threads"),
        fixed_bool("cli", true, "WASI command-line APIs (always on)", "the WASI CLI APIs are always on in wasinn"),
        p3_switch("-S p3", &GroupSettings::p3_off_by,
                  "WASI 0.3's APIs (on by default); =n refuses a component importing or exporting them (one whose "
                  "only 0.3 feature is an async function still runs, as on Wasmtime)"),
        {"max-resources", "=N",
         "Most entries a guest's resource tables hold at once (WASI handles, a 0.3 component's tasks, "
         "streams and futures); the call making one more fails, ending the guest",
         [](const Value& v, GroupSettings& s) {
           const uint64_t n = parse_size(v);
           if (n == 0)
             throw std::invalid_argument(
                 "0 entries would fail the guest's first WASI handle (leave the option out for no bound)");
           s.max_resources = static_cast<size_t>(std::min<uint64_t>(n, SIZE_MAX));
         }},
        fixed_bool("common", true, "Deprecated alias of cli", "the WASI CLI APIs are always on in wasinn"),
        fixed_bool("inherit-network", false, "The host's network (wasinn gives guests none: only =n)",
                   "wasinn gives guests no network access (a core module speaking WasmEdge's socket ABI "
                   "reaches what --listen and --connect name)"),
        fixed_bool("tcp", false, "TCP sockets (none in wasinn: only =n)",
                   "wasinn gives guests no WASI sockets (WasmEdge's socket ABI: --listen, --connect)"),
        fixed_bool("udp", false, "UDP sockets (none in wasinn: only =n)",
                   "wasinn gives guests no WASI sockets (WasmEdge's socket ABI: --listen, --connect)"),
        fixed_bool("allow-ip-name-lookup", false, "Name lookups (none in wasinn: only =n)",
                   "wasinn gives guests no network access (a core module speaking WasmEdge's socket ABI "
                   "may look up the hosts --connect names)")},
       "cli-exit-with-code http http-outgoing-body-buffer-chunks http-outgoing-body-chunk-size config "
       "keyvalue listenfd tcplisten tls preview2 network-error-code preview0 config-var keyvalue-in-memory-data "
       "hostcall-fuel max-random-size max-http-fields-size",
       &GroupValues::wasi},
  };
  return kGroups;
}

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

std::string group_help(const Group& g) {
  std::string out = fmt::format("-{} / --{} options wasinn takes:\n\n", g.flag, g.long_name);
  if (g.keys.empty()) out += "  (none: wasinn has no setting of this group)\n";
  size_t width = 0;
  for (const auto& k : g.keys) width = std::max(width, std::string(k.name).size() + std::string(k.value_help).size());
  for (const auto& k : g.keys) {
    out += fmt::format("  -{} {:<{}} -- {}\n", g.flag, std::string(k.name) + k.value_help, width, k.doc);
  }
  out += fmt::format(
      "\nWasmtime's other -{0} keys are refused by name. As in Wasmtime 49, the environment gives keys too "
      "(WASMTIME_{1}=KEY[=VALUE],..., or WASMTIME_{1}_<KEY>=VALUE), taken before the flags, which win.\n",
      g.flag, upper(g.long_name));
  return out;
}

// Wasmtime's keys of group g that wasinn has no setting for.
std::vector<std::string> wasmtime_only_keys(const Group& g) {
  std::stringstream known(g.wasmtime_keys);
  std::vector<std::string> keys;
  for (std::string w; known >> w;) keys.push_back(w);
  return keys;
}

// Applies one KEY[=VALUE] of group g; `variable` names the environment variable it came from
// (empty: the command line), in its errors and as what turned 0.3 off.
void apply_item(const Group& g, const std::string& item, const std::string& variable, GroupSettings& out) {
  const std::string origin = variable.empty() ? "" : variable + " (environment): ";
  const auto eq = item.find('=');
  const std::string key = item.substr(0, eq);
  const Value value = eq == std::string::npos ? Value{} : Value{item.substr(eq + 1)};
  const auto k = std::find_if(g.keys.begin(), g.keys.end(), [&](const Key& x) { return key == x.name; });
  if (k == g.keys.end()) {
    const std::vector<std::string> wasmtime_keys = wasmtime_only_keys(g);
    const bool wasmtime_has = std::find(wasmtime_keys.begin(), wasmtime_keys.end(), key) != wasmtime_keys.end();
    if (wasmtime_has || key.rfind("cranelift-", 0) == 0) {
      throw UsageError(
          fmt::format("{}-{} {}: wasinn does not support this Wasmtime option (-{} help lists "
                      "the ones it does)",
                      origin, g.flag, key, g.flag));
    }
    throw UsageError(fmt::format("{}unknown -{} / --{} option: {} (-{} help lists them)", origin, g.flag, g.long_name,
                                 key.empty() ? "''" : key, g.flag));
  }
  const std::string p3_off_by = out.p3_off_by, async_off_by = out.async_off_by;
  try {
    k->apply(value, out);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}-{} {}: {}", origin, g.flag, item, e.what()));
  }
  // A switch this variable turned off is named as the variable, not as a flag nobody gave.
  if (!variable.empty()) {
    for (auto [now, before] : {std::pair{&out.p3_off_by, &p3_off_by}, std::pair{&out.async_off_by, &async_off_by}})
      if (!now->empty() && *now != *before) *now = fmt::format("{} (environment: {})", variable, item);
  }
}

// Wasmtime 49's environment for group g, in its order: WASMTIME_WASI="p3,max-resources=8" (a
// list, as -S takes), then one variable a key, WASMTIME_WASI_<KEY> (its key upper-cased, a '-'
// kept: WASMTIME_WASI_MAX-RESOURCES=8). Each item with the variable it came from.
std::vector<std::pair<std::string, std::string>> environment_items(const Group& g) {
  std::vector<std::pair<std::string, std::string>> items;
  const std::string prefix = "WASMTIME_" + upper(g.long_name);
  if (const char* list = std::getenv(prefix.c_str())) {
    std::stringstream each(list);
    std::string item;
    while (std::getline(each, item, ',')) items.emplace_back(prefix, item);
  }
  std::vector<std::string> names;
  for (const auto& k : g.keys) names.emplace_back(k.name);
  for (auto& w : wasmtime_only_keys(g)) names.push_back(std::move(w));
  for (const auto& name : names) {
    const std::string var = prefix + "_" + upper(name);
    if (const char* v = std::getenv(var.c_str())) items.emplace_back(var, name + "=" + v);
  }
  return items;
}

}  // namespace

std::optional<std::string> apply_groups(const GroupValues& values, GroupSettings& out, bool with_environment) {
  // Wasmtime's sixth group, -R (recording an execution for `wasmtime replay`), has no twin here:
  // refused from the environment too rather than dropped.
  for (char** e = with_environment ? environ : nullptr; e && *e; ++e) {
    const std::string_view kv(*e);
    if (kv.size() > 15 && kv.rfind("WASMTIME_RECORD", 0) == 0 && (kv[15] == '=' || kv[15] == '_')) {
      throw UsageError(
          fmt::format("{} (environment): wasinn does not record executions (Wasmtime's -R / --record); "
                      "unset it",
                      kv.substr(0, kv.find('='))));
    }
  }
  for (const auto& g : groups()) {
    if (with_environment) {
      for (const auto& [var, item] : environment_items(g)) apply_item(g, item, var, out);
    }
    for (const auto& given : values.*(g.values)) {
      std::stringstream items(given);
      std::string item;
      while (std::getline(items, item, ',')) {
        if (item == "help" || item == "help-long") return group_help(g);
        apply_item(g, item, "", out);
      }
    }
  }
  return std::nullopt;
}

}  // namespace wasinn_cli
