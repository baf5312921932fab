// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "probe_run.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "guest_runner.h"
#include "plugin_harness.h"

namespace wasinn_test {
namespace {

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

void parse_line(const std::string& line, ProbeResult& r) {
  std::istringstream in(line);
  std::string first;
  in >> first;
  if (first == "load" || first == "unload") {
    int e = -1;
    in >> e;
    (first == "load" ? r.loads : r.unloads).push_back(e);
    if (first == "load") r.contexts.clear();  // keep the last round only
    return;
  }
  if (first != "ctx") return;
  int i = -1;
  std::string what, rest;
  in >> i >> what;
  std::getline(in >> std::ws, rest);
  ProbeContext& c = r.contexts[i];
  if (what == "set_input")
    c.set_input = std::stoi(rest);
  else if (what == "compute")
    c.compute = std::stoi(rest);
  else if (what == "stream_end")
    c.stream_end = std::stoi(rest);
  else if (what == "text")
    c.text = from_hex(rest);
  else if (what == "piece")
    c.pieces.push_back(from_hex(rest));
  else if (what == "metadata")
    c.metadata = rest;
  else if (what == "embedding") {
    std::istringstream v(rest);
    size_t n = 0;
    v >> n;
    c.embedding.resize(n);
    for (auto& x : c.embedding) v >> x;
  }
}

}  // namespace

std::string tiny_model() { return (fixtures_dir() / "llama/tiny.gguf").string(); }

std::vector<std::string> llama_host_args(const std::string& out_dir) {
  const std::string llama = (fixtures_dir() / "llama").string();
  return {"--nn-preload", "tiny:GGML:AUTO:" + tiny_model(), "--dir", llama + "::/models", "--dir", out_dir + "::/out"};
}

std::string greedy_config(unsigned ctx_size, int n_predict, unsigned threads) {
  return "{\"temp\": 0, \"ctx-size\": " + std::to_string(ctx_size) + ", \"n-predict\": " + std::to_string(n_predict) +
         ", \"threads\": " + std::to_string(threads) + "}";
}

long metadata_field(const std::string& metadata, const std::string& key) {
  const auto j = nlohmann::json::parse(metadata, nullptr, false);
  if (j.is_discarded() || !j.contains(key) || !j[key].is_number_integer()) return -1;
  return j[key].get<long>();
}

std::string run_capturing_stdout(const std::string& guest, const std::vector<std::string>& args, int* exit_code) {
  auto host = llama_host_args(scratch_dir("llama_stdout"));
  // Only errors: a warning (the 100 that ends a stream) would land amid the guest's output.
  host.insert(host.end(), {"--log-level", "error"});
  const GuestRun run = run_guest(host, guest, args);
  *exit_code = run.exit_code;
  return run.output;
}

ProbeResult run_probe(const std::vector<std::string>& args) {
  const std::string out_dir = scratch_dir("llama_probe");
  std::vector<std::string> guest_args = args;
  guest_args.insert(guest_args.end(), {"--out", "/out/result.txt"});
  const GuestRun run = run_guest(llama_host_args(out_dir), "llama_probe", guest_args);
  ProbeResult r;
  r.exit_code = run.exit_code;
  r.message = run.output;
  std::ifstream f(out_dir + "/result.txt");
  std::string line;
  while (std::getline(f, line)) {
    r.raw += line + "\n";
    parse_line(line, r);
  }
  return r;
}

}  // namespace wasinn_test
