#include "guest_run.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "wasinn/host.h"

namespace llama_test {
namespace {

wasinn::Host &host() {
  static std::once_flag once;
  static std::unique_ptr<wasinn::Host> h;
  std::call_once(once, [] {
    wasinn::HostOptions o;
    o.backend_dirs = {WASINN_BACKEND_DIR};
    // "tiny" is the test model; "missing" is registered as GGML but its file does not exist.
    o.preloads = {"tiny:GGML:AUTO:" + tiny_model(), "missing:GGML:AUTO:" + fixtures_dir() + "/llama/no-such.gguf"};
    std::string error;
    h = wasinn::Host::create(o, &error);
    if (!h) throw std::runtime_error("Host::create: " + error);
  });
  return *h;
}

std::string from_hex(const std::string &hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

void parse_line(const std::string &line, ProbeResult &r) {
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
  ProbeContext &c = r.contexts[i];
  if (what == "set_input") c.set_input = std::stoi(rest);
  else if (what == "compute") c.compute = std::stoi(rest);
  else if (what == "stream_end") c.stream_end = std::stoi(rest);
  else if (what == "text") c.text = from_hex(rest);
  else if (what == "piece") c.pieces.push_back(from_hex(rest));
  else if (what == "metadata") c.metadata = rest;
  else if (what == "embedding") {
    std::istringstream v(rest);
    size_t n = 0;
    v >> n;
    c.embedding.resize(n);
    for (auto &x : c.embedding) v >> x;
  }
}

}  // namespace

std::string fixtures_dir() {
  if (const char *env = std::getenv("WASINN_FIXTURES"); env && *env) return env;
  return WASINN_FIXTURES_DEFAULT;
}

std::string tiny_model() { return fixtures_dir() + "/llama/tiny.gguf"; }

std::string greedy_config(unsigned ctx_size, int n_predict, unsigned threads) {
  return "{\"temp\": 0, \"ctx-size\": " + std::to_string(ctx_size) + ", \"n-predict\": " + std::to_string(n_predict) +
         ", \"threads\": " + std::to_string(threads) + "}";
}

long metadata_field(const std::string &metadata, const std::string &key) {
  const auto j = nlohmann::json::parse(metadata, nullptr, false);
  if (j.is_discarded() || !j.contains(key) || !j[key].is_number_integer()) return -1;
  return j[key].get<long>();
}

std::string run_capturing_stdout(const std::string &wasm_name, const std::vector<std::string> &args, int *exit_code) {
  // The guest's fd_write goes straight to this process's fd 1: point fd 1 at a file meanwhile.
  std::FILE *capture = std::tmpfile();
  if (!capture) throw std::runtime_error("tmpfile failed");
  std::fflush(stdout);
  const int saved = ::dup(1);
  ::dup2(::fileno(capture), 1);
  namespace fs = std::filesystem;
  const fs::path out_dir = fs::temp_directory_path() / ("llama_stdout_" + std::to_string(::getpid()));
  fs::create_directories(out_dir);
  wasinn::Program p;
  p.wasm_path = std::string(WASINN_GUEST_DIR) + "/" + wasm_name;
  p.args = args;
  p.dirs = {{fixtures_dir() + "/llama", "/models"}, {out_dir.string(), "/out"}};
  const wasinn::RunOutcome outcome = host().run(p);
  fs::remove_all(out_dir);
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  *exit_code = outcome.exit_code;
  std::string out;
  std::rewind(capture);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, capture)) > 0;) out.append(buf, n);
  std::fclose(capture);
  return out;
}

ProbeResult run_probe(const std::vector<std::string> &args) {
  namespace fs = std::filesystem;
  const fs::path out_dir = fs::temp_directory_path() / ("llama_probe_" + std::to_string(::getpid()) + "_" +
                                                        std::to_string(std::rand()));
  fs::create_directories(out_dir);
  wasinn::Program p;
  p.wasm_path = std::string(WASINN_GUEST_DIR) + "/llama_probe.wasm";
  p.args = args;
  p.args.push_back("--out");
  p.args.push_back("/out/result.txt");
  p.dirs = {{fixtures_dir() + "/llama", "/models"}, {out_dir.string(), "/out"}};
  const wasinn::RunOutcome outcome = host().run(p);
  ProbeResult r;
  r.exit_code = outcome.exit_code;
  r.message = outcome.message;
  std::ifstream f(out_dir / "result.txt");
  std::string line;
  while (std::getline(f, line)) {
    r.raw += line + "\n";
    parse_line(line, r);
  }
  fs::remove_all(out_dir);
  return r;
}

}  // namespace llama_test
