#include "cli/info_commands.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace wasinn_cli {

namespace {

// Rows of cells printed with every column as wide as its widest cell; the last column is not
// padded, so a long problem text never pushes anything out of line.
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) line += row[i];
      else line += fmt::format("{:<{}}  ", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print("{}\n", line);
  }
}

std::unique_ptr<wasinn::Host> make_host(const wasinn::HostOptions& options) {
  std::string error;
  auto host = wasinn::Host::create(options, &error);
  if (!host) throw UsageError(error);
  return host;
}

nlohmann::json tensors_json(const std::vector<wasinn::TensorInfo>& tensors) {
  auto out = nlohmann::json::array();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    nlohmann::json j{{"index", i}, {"name", t.name}, {"type", t.type}};
    j["shape"] = t.rank_known ? nlohmann::json(t.dims) : nlohmann::json(nullptr);  // -1: dynamic
    out.push_back(std::move(j));
  }
  return out;
}

void print_tensors(const char* title, const std::vector<wasinn::TensorInfo>& tensors) {
  fmt::print("{}:\n", title);
  if (tensors.empty()) {
    fmt::print("  (none declared; the backend learns them at compute)\n");
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    std::string shape = "?";
    if (t.rank_known) {
      std::vector<std::string> d;
      for (int64_t v : t.dims) d.push_back(v < 0 ? "?" : std::to_string(v));
      shape = fmt::format("[{}]", fmt::join(d, ", "));
    }
    rows.push_back({fmt::format("  {:>3}", i), t.name.empty() ? "-" : t.name, t.type, shape});
  }
  print_table(rows);
}

}  // namespace

int backends_command(const CommonOptions& common, bool json) {
  wasinn::HostOptions options;
  apply_common(common, options);
  auto host = make_host(options);
  check_backend_names(options, host->backend_search_dirs());
  const auto backends = host->probe_backends();
  const auto searched = host->backend_search_dirs();
  if (json) {
    auto list = nlohmann::json::array();
    for (const auto& b : backends) {
      list.push_back({{"name", b.name},
                      {"encodings", b.encodings},
                      {"library", b.library},
                      {"loadable", b.loadable},
                      {"framework_version", b.framework_version},
                      {"problem", b.problem}});
    }
    fmt::print("{}\n", nlohmann::json{{"searched", searched}, {"backends", list}}.dump(2));
    return backends.empty() ? kExitFailure : 0;
  }
  fmt::print("searched: {}\n", fmt::join(searched, ", "));
  if (backends.empty()) {
    fmt::print("no backend plugins found\n");
    return kExitFailure;
  }
  std::vector<std::vector<std::string>> rows{{"BACKEND", "ENCODINGS", "VERSION", "STATUS"}};
  for (const auto& b : backends) {
    rows.push_back({b.name, fmt::format("{}", fmt::join(b.encodings, ",")),
                    b.loadable ? b.framework_version : "-", b.loadable ? "ok" : b.problem});
  }
  print_table(rows);
  return 0;
}

void add_inspect_options(CLI::App* inspect, InspectOptions& o, CommonOptions& common) {
  inspect->add_option("model", o.model, "A name registered with --nn-preload, or the model's file(s)/directory")
      ->required();
  inspect->add_option("--encoding", o.encoding, "Encoding of model files (default: detected from the bytes)");
  inspect->add_option("--nn-preload", o.host.preloads, "As for run; then name the model")
      ->type_name("SPEC")->allow_extra_args(false);
  inspect->add_flag("--json", o.json, "Print the description as JSON");
  inspect->add_option("--isolate-loads", o.host.isolate_loads,
                      "As for run: auto, always or never")
      ->type_name("MODE")->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();
  inspect->add_option("--isolated-load-max-mb", o.host.isolated_load_max_mb, "As for run")
      ->type_name("MIB")->check(whole_number(0, 1ull << 24))->capture_default_str();
  add_common(inspect, common);
}

int inspect_command(InspectOptions& o, const CommonOptions& common) {
  apply_common(common, o.host);
  auto host = make_host(o.host);
  check_backend_names(o.host, host->backend_search_dirs());
  wasinn::ModelInfo info;
  std::string error;
  if (!host->inspect_model(o.model, o.encoding, &info, &error)) {
    fmt::print(stderr, "wasinn: error: {}\n", error);
    return kExitFailure;
  }
  if (o.json) {
    const nlohmann::json j{{"backend", info.backend},
                           {"framework_version", info.framework_version},
                           {"encoding", info.encoding},
                           {"inputs", tensors_json(info.inputs)},
                           {"outputs", tensors_json(info.outputs)}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("backend: {} {} (encoding {})\n", info.backend, info.framework_version, info.encoding);
  print_tensors("inputs (set_input index)", info.inputs);
  print_tensors("outputs (get_output index)", info.outputs);
  return 0;
}

}  // namespace wasinn_cli
