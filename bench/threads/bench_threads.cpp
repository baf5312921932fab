// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_threads: what wasi-threads and shared graphs buy (issue "Threads"), on ONNX Runtime with
// one intra-op thread per session so that threads are the only parallelism:
//   1. throughput of 1 versus 2 guest threads, each on its own context of one mobilenet_v2
//      graph (threads_nn.wasm `repeat`, run by the wasinn CLI), against the same done natively
//      with 1 and 2 host threads, each with its own session; rounds interleaved, medians;
//   2. resident memory of 1 versus 8 guest instances in one Host holding mobilenet_v2, loaded by
//      bytes (each guest has its own copy in its linear memory) and by name (it has none);
//   3. requests per second of an embedder that serves each request with a fresh guest instance
//      (instantiate, load_by_name of a preloaded model, one inference, drop) on 1 and 2 threads.
// Prints a Markdown section for docs/benchmarks.md; exits non-zero when a side fails or gives a
// wrong answer.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <onnxruntime_cxx_api.h>

#include "fixtures_dir.h"
#include "guest_bench.h"
#include "native_ort_session.h"
#include "scratch_dir.h"
#include "wasinn/host.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string fixtures;
  std::string cli = WASINN_CLI_PATH_DEFAULT;
  std::string threads_guest = WASINN_THREADS_GUEST_DEFAULT;
  std::string bench_guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  double seconds = 3.0;
  std::string json;
  int rss_probe = 0;  // internal: print the RSS of this many instances and exit
  std::string rss_by;
};

constexpr char kOneThreadOrt[] = R"({"intra_op_threads": 1, "graph_optimization_level": "all"})";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string run_capture(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Inferences per second of `threads` guest threads, each running `iterations` inferences.
std::optional<double> guest_rate(const Options& o, int threads, int iterations, std::string* error) {
  const std::string cmd = fmt::format(
      "{} run --backend-dir {} --backend-config {} --dir {}::/m {} repeat {} {} /m/model.onnx /m/input.f32 1 3 224 224",
      quote(o.cli), quote(o.backend_dir), quote(std::string("onnxruntime=") + kOneThreadOrt),
      quote(o.fixtures + "/mobilenet_v2"), quote(o.threads_guest), threads, iterations);
  int status = 0;
  const std::string out = run_capture(cmd + " 2>&1", &status);
  std::smatch m;
  if (status != 0 || !std::regex_search(out, m, std::regex(R"(in ([0-9.]+) s: ([0-9.]+) inferences/s)"))) {
    *error = "the threads guest failed: " + out;
    return std::nullopt;
  }
  return std::stod(m[2]);
}

// The same natively: `threads` host threads, each with its own session, `iterations` runs each.
std::optional<double> native_rate(Ort::Env& env, const Options& o, int threads, int iterations, std::string* error) {
  std::vector<float> input(3 * 224 * 224);
  std::ifstream(o.fixtures + "/mobilenet_v2/input.f32", std::ios::binary)
      .read(reinterpret_cast<char*>(input.data()), static_cast<std::streamsize>(input.size() * sizeof(float)));
  std::vector<std::unique_ptr<NativeOrtSession>> sessions;
  std::vector<std::vector<float>> inputs(threads, input);
  for (int t = 0; t < threads; ++t) {
    auto s = NativeOrtSession::open(env, o.fixtures + "/mobilenet_v2/model.onnx", 1, error);
    if (!s || !s->bind_f32_input(0, inputs[t], {1, 3, 224, 224}, error) || !s->run(error)) return std::nullopt;
    sessions.push_back(std::move(s));
  }
  std::atomic<bool> failed{false};
  const auto t0 = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::string e;
      for (int i = 0; i < iterations && !failed; ++i) {
        if (!sessions[t]->run(&e)) failed = true;
      }
    });
  }
  for (auto& w : workers) w.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (failed) {
    *error = "a native run failed";
    return std::nullopt;
  }
  return threads * iterations / seconds;
}

uint64_t rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

std::unique_ptr<Host> make_host(const Options& o, std::vector<std::string> preloads, std::string* error) {
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  h.backend_configs["onnxruntime"] = kOneThreadOrt;
  h.preloads = std::move(preloads);
  h.isolate_loads = "never";
  return Host::create(std::move(h), error);
}

// The child side of the memory measurement: `n` live instances holding mobilenet_v2.
int rss_probe(const Options& o) {
  std::string error;
  const bool by_name = o.rss_by == "name";
  auto host =
      make_host(o,
                by_name ? std::vector<std::string>{"mobilenet:onnx:cpu:" + o.fixtures + "/mobilenet_v2/model.onnx"}
                        : std::vector<std::string>{},
                &error);
  if (!host) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  GuestArgs args;
  if (by_name)
    args.name = "mobilenet";
  else
    args.model_files = {"/fixtures/mobilenet_v2/model.onnx"};
  args.inputs = {{0, "f32", {1, 3, 224, 224}, "/fixtures/mobilenet_v2/input.f32"}};
  args.outputs = {{0, ""}};
  std::vector<std::unique_ptr<GuestBench>> instances;
  for (int i = 0; i < o.rss_probe; ++i) {
    Program p;
    p.wasm_path = o.bench_guest;
    p.dirs = {{o.fixtures, "/fixtures"}};
    auto g = GuestBench::start(*host, p, args, &error);
    if (!g || !g->infer(&error)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
    instances.push_back(std::move(g));
  }
  std::printf("%llu\n", static_cast<unsigned long long>(rss_kib()));
  return 0;
}

std::optional<double> probe_rss_mib(const std::string& self, const Options& o, int n, const std::string& by,
                                    std::string* error) {
  int status = 0;
  // Only the probe's stdout (the number): its log lines go to this program's stderr.
  const std::string out = run_capture(
      fmt::format("{} --fixtures {} --rss-probe {} --rss-by {}", quote(self), quote(o.fixtures), n, by), &status);
  if (status != 0 || out.find_first_of("0123456789") != 0) {
    *error = "the memory probe failed: " + out;
    return std::nullopt;
  }
  return std::stod(out) / 1024.0;
}

// Requests per second: each request instantiates the guest, loads the preloaded digits model
// by name, runs one inference and drops the instance.
std::optional<double> embedder_rps(Host& host, const Options& o, const fs::path& input_dir, int threads, double seconds,
                                   std::string* error) {
  GuestArgs args;
  args.name = "digits";
  args.inputs = {{0, "f32", {1, 64}, "/in/row0.f32"}};
  args.outputs = {{0, ""}};
  std::atomic<uint64_t> served{0};
  std::atomic<bool> failed{false};
  std::string first_error;
  std::mutex error_mu;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  const auto t0 = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      Program p;
      p.wasm_path = o.bench_guest;
      p.dirs = {{input_dir.string(), "/in"}};
      while (Clock::now() < end && !failed) {
        std::string e;
        auto g = GuestBench::start(host, p, args, &e);
        if (!g || !g->infer(&e)) {
          std::lock_guard lock(error_mu);
          if (!failed.exchange(true)) first_error = e;
          return;
        }
        ++served;
      }
    });
  }
  for (auto& w : workers) w.join();
  if (failed) {
    *error = "a request failed: " + first_error;
    return std::nullopt;
  }
  return served / std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fixtures = default_fixtures();
  CLI::App app{"bench_threads: guest threads, instances and per-request instances on ONNX Runtime"};
  app.add_option("--fixtures", o.fixtures, "Test fixtures directory (scripts/make_fixtures.py)");
  app.add_option("--seconds", o.seconds, "Rough time per measured side");
  app.add_option("--json", o.json, "Also write the results as JSON here");
  app.add_option("--cli", o.cli, "The wasinn binary");
  app.add_option("--rss-probe", o.rss_probe, "Internal: hold this many instances, print the RSS in KiB")->group("");
  app.add_option("--rss-by", o.rss_by, "Internal: bytes or name")->group("");
  CLI11_PARSE(app, argc, argv);
  if (o.rss_probe > 0) return rss_probe(o);

  std::string error;
  const auto die = [&](const std::string& what) {
    std::fprintf(stderr, "bench_threads: %s: %s\n", what.c_str(), error.c_str());
    return 1;
  };
  // 1. Threads: 1 and 2 per side, rounds interleaved so that machine noise hits both alike.
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "bench_threads");
  const int iterations = std::max(5, static_cast<int>(o.seconds * 6));
  std::vector<double> g1, g2, n1, n2;
  for (int round = 0; round < 3; ++round) {
    auto a = guest_rate(o, 1, iterations, &error);
    auto b = guest_rate(o, 2, iterations, &error);
    auto c = native_rate(env, o, 1, iterations, &error);
    auto d = native_rate(env, o, 2, iterations, &error);
    if (!a || !b || !c || !d) return die("threads");
    g1.push_back(*a), g2.push_back(*b), n1.push_back(*c), n2.push_back(*d);
  }
  const double G1 = median(g1), G2 = median(g2), N1 = median(n1), N2 = median(n2);

  // 2. Memory of 1 versus 8 instances, by bytes and by name.
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::map<std::string, std::pair<double, double>> rss;
  for (const std::string by : {"bytes", "name"}) {
    auto one = probe_rss_mib(self, o, 1, by, &error);
    auto eight = probe_rss_mib(self, o, 8, by, &error);
    if (!one || !eight) return die("memory");
    rss[by] = {*one, *eight};
  }

  // 3. An embedder serving each request with a fresh instance on a shared, preloaded graph.
  ScratchDir scratch;
  {
    std::vector<float> row(64);
    std::ifstream(o.fixtures + "/digits/test_x.f32", std::ios::binary)
        .read(reinterpret_cast<char*>(row.data()), 64 * sizeof(float));
    std::ofstream(scratch.path() / "row0.f32", std::ios::binary)
        .write(reinterpret_cast<const char*>(row.data()), 64 * sizeof(float));
  }
  auto host = make_host(o, {"digits:onnx:cpu:" + o.fixtures + "/digits/model.onnx"}, &error);
  if (!host) return die("host");
  auto rps1 = embedder_rps(*host, o, scratch.path(), 1, o.seconds, &error);
  auto rps2 = embedder_rps(*host, o, scratch.path(), 2, o.seconds, &error);
  if (!rps1 || !rps2) return die("requests");

  std::cout << fmt::format(
      "Threads (`bench_threads`, ONNX Runtime with one intra-op thread per session, mobilenet_v2, {} "
      "inferences per thread, medians of 3 interleaved rounds):\n\n"
      "| side | 1 thread | 2 threads | 2 / 1 |\n|---|---|---|---|\n"
      "| guest threads, each on its own context of one graph | {:.2f} inf/s | {:.2f} inf/s | {:.2f}x |\n"
      "| native, host threads each with its own session | {:.2f} inf/s | {:.2f} inf/s | {:.2f}x |\n"
      "| guest / native | {:.2f} | {:.2f} | |\n\n"
      "Resident memory of one Host holding mobilenet_v2 (13.3 MiB of weights) in 1 and 8 instances of "
      "`bench_guest.wasm`:\n\n"
      "| loaded | 1 instance | 8 instances | 8 / 1 |\n|---|---|---|---|\n"
      "| by bytes (`load`: each guest also holds the model in its own linear memory) | {:.1f} MiB | {:.1f} MiB | "
      "{:.2f}x |\n"
      "| by name (`load_by_name`, preloaded) | {:.1f} MiB | {:.1f} MiB | {:.2f}x |\n\n"
      "An embedder serving each request with a fresh instance (instantiate, `load_by_name` of the "
      "preloaded digits model, one inference, drop): {:.0f} requests/s on 1 thread, {:.0f} on 2 "
      "({:.2f}x).\n",
      iterations, G1, G2, G2 / G1, N1, N2, N2 / N1, G1 / N1, G2 / N2, rss["bytes"].first, rss["bytes"].second,
      rss["bytes"].second / rss["bytes"].first, rss["name"].first, rss["name"].second,
      rss["name"].second / rss["name"].first, *rps1, *rps2, *rps2 / *rps1);
  if (!o.json.empty()) {
    std::ofstream(o.json)
        << fmt::format(
               R"({{"threads": {{"guest": [{}, {}], "native": [{}, {}]}}, "rss_mib": {{"bytes": [{}, {}], "name": [{}, {}]}}, "requests_per_s": [{}, {}]}})",
               G1, G2, N1, N2, rss["bytes"].first, rss["bytes"].second, rss["name"].first, rss["name"].second, *rps1,
               *rps2)
        << "\n";
  }
  return 0;
}
