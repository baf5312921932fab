// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_load_isolation: what an isolated load (src/isolation/) costs, per backend marked for
// isolation, through NnEnvironment::load_graph exactly as a guest's load() reaches it (the
// model's bytes, no path) and as a preloaded file reaches it (path and mapped bytes):
//
//   first      the first isolated load of a model: a wasinn-load-check child, then the load
//   off        every load checked (--isolated-load-cache off): what every guest load cost before
//   repeat     the same bytes again in the same process (the verdict is remembered)
//   file       a repeat load of the same file by path (the verdict found by the file's stat)
//   2nd proc   the first load in a new process whose verdict cache on disk has the model
//   in-process --isolate-loads never: the framework's own load
//
// and the same for models the framework refuses. Every figure is a median (--repeats,
// --fast-repeats) after one warm-up load (the plugin and its framework are started before
// timing; the repeats alternate with in-process loads). Not a test;
// docs/reliability.md has the numbers and how they were taken.
//
//   bench_load_isolation [--repeats N] [--only NAME...] [--fixtures DIR] [--backend-dir DIR]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/log.h"
#include "core/mapped_file.h"
#include "core/nn_environment.h"
#include "root/wired_environment.h"

namespace fs = std::filesystem;
using namespace wasinn;

namespace {

struct Case {
  std::string name;     // for --only and the table
  std::string backend;  // plugin that must exist
  Encoding encoding;
  std::string model;     // fixture, relative to --fixtures
  bool refused;          // the framework refuses it (a clean error), rather than loading it
  bool first_half_only;  // use the first half of the file's bytes (a truncated model)
};

std::vector<Case> cases() {
  return {
      {"tflite_digits", "tensorflowlite", Encoding::tensorflowlite, "tflite/digits_f32.tflite", false, false},
      {"tflite_mobilenet_v2", "tensorflowlite", Encoding::tensorflowlite, "tflite/mobilenet_v2.tflite", false, false},
      {"llama_tiny", "llamacpp", Encoding::ggml, "llama/tiny.gguf", false, false},
      {"pytorch_digits", "pytorch", Encoding::pytorch, "digits/model.pt", false, false},
      {"refused_tflite_half", "tensorflowlite", Encoding::tensorflowlite, "tflite/digits_f32.tflite", true, true},
      {"refused_llama_truncated", "llamacpp", Encoding::ggml, "llama/truncated.gguf", true, false},
      {"refused_pytorch_unknown_op", "pytorch", Encoding::pytorch, "malformed/torchscript_unknown_op.pt", true, false},
      // The case: a file that is not TorchScript at all (ONNX) given as pytorch.
      {"refused_pytorch_onnx_file", "pytorch", Encoding::pytorch, "digits/model.onnx", true, false},
  };
}

struct Options {
  std::string fixtures = WASINN_FIXTURES_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::string checker = WASINN_LOAD_CHECK_DEFAULT;
  int repeats = 5;        // first loads and second processes (each one a child or a process)
  int fast_repeats = 30;  // repeat and in-process loads
  std::vector<std::string> only;
  // Internal: the second-process measurement re-runs this program with these.
  std::string second_process_case;
  std::string cache_dir;
};

std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (run scripts/make_fixtures.py)");
  return {std::istreambuf_iterator<char>(in), {}};
}

// An environment as a Host makes one; `cache` as --isolated-load-cache (DIR, memory or off).
// Its isolation part as well, for the count of children spawned.
std::unique_ptr<WiredEnvironment> make_env(const Options& o, IsolationMode mode, const std::string& cache) {
  EnvironmentOptions options;
  options.backend_dirs = {o.backend_dir};
  options.isolation.mode = mode;
  options.isolation.checker = o.checker;
  set_verdict_cache(options.isolation, cache);
  return std::make_unique<WiredEnvironment>(wire_environment(std::move(options)));
}

// One load, timed; by path when `paths` is not empty (the builders are then the mapped files).
double load_ms(WiredEnvironment& wired, const Case& c, std::span<const uint8_t> bytes,
               std::span<const fs::path> paths) {
  const std::span<const uint8_t> builders[] = {bytes};
  const auto start = std::chrono::steady_clock::now();
  auto graph = wired.env->load_graph(c.encoding, Target::cpu, builders, paths, "");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (graph.ok() == c.refused) {
    throw std::runtime_error(fmt::format("{}: expected the load to {}: {}", c.name, c.refused ? "fail" : "succeed",
                                         graph.ok() ? "it loaded" : graph.error().detail));
  }
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Row {
  std::string name;
  size_t bytes = 0;
  double first = 0, off = 0, repeat = 0, file = 0, second_process = 0, in_process = 0;
  uint64_t second_process_children = 0;
};

// The first load in a fresh process whose disk cache already has the verdict: run this program
// again with --second-process-case; it prints {"load_ms":..,"children":..}.
std::pair<double, uint64_t> second_process(const Options& o, const Case& c, const fs::path& cache) {
  const std::string command =
      fmt::format("'{}' --second-process-case '{}' --cache-dir '{}' --fixtures '{}' --backend-dir '{}'",
                  fs::read_symlink("/proc/self/exe").string(), c.name, cache.string(), o.fixtures, o.backend_dir);
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  if (::pclose(pipe) != 0) throw std::runtime_error("the second process failed: " + out);
  const auto report = nlohmann::json::parse(out);
  return {report.at("load_ms").get<double>(), report.at("children").get<uint64_t>()};
}

int run_second_process(const Options& o) {
  for (const Case& c : cases()) {
    if (c.name != o.second_process_case) continue;
    auto bytes = read_file(fs::path(o.fixtures) / c.model);
    if (c.first_half_only) bytes.resize(bytes.size() / 2);
    // The framework is started in this process first, as in every other figure.
    load_ms(*make_env(o, IsolationMode::never, "off"), c, bytes, {});
    auto env = make_env(o, IsolationMode::by_manifest, o.cache_dir);
    const double ms = load_ms(*env, c, bytes, {});
    std::printf("%s\n",
                nlohmann::json{{"load_ms", ms}, {"children", env->isolation->children_spawned()}}.dump().c_str());
    return 0;
  }
  return 2;
}

Row measure(const Options& o, const Case& c) {
  Row row{c.name};
  const fs::path model = fs::path(o.fixtures) / c.model;
  auto bytes = read_file(model);
  if (c.first_half_only) bytes.resize(bytes.size() / 2);
  row.bytes = bytes.size();

  auto in_process = make_env(o, IsolationMode::never, "off");
  load_ms(*in_process, c, bytes, {});  // warm-up: plugin and framework start

  // First loads: each in a fresh environment with an empty cache directory.
  char pattern[] = "/tmp/wasinn-bench-verdicts-XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  const fs::path scratch = pattern;
  std::vector<double> samples;
  std::unique_ptr<WiredEnvironment> isolated;
  for (int i = 0; i < o.repeats; ++i) {
    isolated = make_env(o, IsolationMode::by_manifest, (scratch / fmt::format("cache{}", i)).string());
    samples.push_back(load_ms(*isolated, c, bytes, {}));
  }
  row.first = median(samples);
  // Every load checked, as every guest load was before verdicts were remembered.
  samples.clear();
  auto unremembering = make_env(o, IsolationMode::by_manifest, "off");
  for (int i = 0; i < o.repeats; ++i) samples.push_back(load_ms(*unremembering, c, bytes, {}));
  row.off = median(samples);

  // Repeats, interleaved with in-process loads so that the shared machine's load hits both alike.
  const fs::path paths[] = {model};
  auto mapped = MappedBuilders::open(paths);
  if (!mapped) throw std::runtime_error(mapped.error().detail);
  const bool by_file = !c.first_half_only;
  if (by_file) load_ms(*isolated, c, mapped->builders()[0], paths);  // its first check by path
  std::vector<double> repeat, file, plain;
  for (int i = 0; i < o.fast_repeats; ++i) {
    plain.push_back(load_ms(*in_process, c, bytes, {}));
    repeat.push_back(load_ms(*isolated, c, bytes, {}));
    if (by_file) file.push_back(load_ms(*isolated, c, mapped->builders()[0], paths));
  }
  row.in_process = median(plain);
  row.repeat = median(repeat);
  row.file = median(file);
  samples.clear();
  for (int i = 0; i < o.repeats; ++i) {
    auto [ms, children] = second_process(o, c, scratch / fmt::format("cache{}", o.repeats - 1));
    samples.push_back(ms);
    row.second_process_children += children;
  }
  row.second_process = median(samples);
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_load_isolation: the cost of isolated model loads, per isolated backend"};
  Options o;
  app.add_option("--fixtures", o.fixtures, "Fixture directory (scripts/make_fixtures.py)")->capture_default_str();
  app.add_option("--backend-dir", o.backend_dir, "Backend plugin directory")->capture_default_str();
  app.add_option("--checker", o.checker, "wasinn-load-check")->capture_default_str();
  app.add_option("--repeats", o.repeats, "First loads and second processes per figure (the median is shown)")
      ->capture_default_str();
  app.add_option("--fast-repeats", o.fast_repeats, "Repeat and in-process loads per figure")->capture_default_str();
  app.add_option("--only", o.only, "Only these cases (by name)");
  app.add_option("--second-process-case", o.second_process_case)->group("");
  app.add_option("--cache-dir", o.cache_dir)->group("");
  CLI11_PARSE(app, argc, argv);
  wasinn::logger().set_level(spdlog::level::off);  // the refused models make frameworks log at warning level
  setenv("TF_CPP_MIN_LOG_LEVEL", "2", 0);
  try {
    if (!o.second_process_case.empty()) return run_second_process(o);
    std::printf(
        "| case | bytes | first isolated load | every load checked (off) | repeat, same bytes | repeat, "
        "same file | 2nd process, warm disk cache (children) | in-process | repeat vs in-process |\n"
        "|---|---|---|---|---|---|---|---|---|\n");
    for (const Case& c : cases()) {
      if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), c.name) == o.only.end()) continue;
      if (!fs::exists(fs::path(o.backend_dir) / ("libwasinn_backend_" + c.backend + ".so"))) continue;
      const Row r = measure(o, c);
      std::printf("| %s | %zu | %.1f ms | %.1f ms | %.2f ms | %s | %.1f ms (%llu) | %.2f ms | %+.0f%% |\n",
                  r.name.c_str(), r.bytes, r.first, r.off, r.repeat,
                  r.file > 0 ? fmt::format("{:.2f} ms", r.file).c_str() : "-", r.second_process,
                  static_cast<unsigned long long>(r.second_process_children), r.in_process,
                  r.in_process > 0 ? 100.0 * (r.repeat - r.in_process) / r.in_process : 0.0);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_load_isolation: %s\n", e.what());
    return 1;
  }
  return 0;
}
