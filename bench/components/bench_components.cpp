// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_components: the WIT path (a component, wasi:nn@0.2.0-rc-2024-10-28) against the witx
// path (a core module, wasi_ephemeral_nn) on the same Host, model and inputs: mobilenet_v2
// (a 600 KB input tensor in, a 4 KB output out) and the one-node tiny model (per-call
// overhead). Each side runs its guest (wit_run_model / run_model) with --repeat N and with
// --repeat 1, reading every output after every compute; the per-inference time is the
// difference over N - 1, so instantiation and context creation cancel out. Runs alternate
// between the four programs round by round so machine noise lands on all alike. Prints a
// Markdown section for docs/benchmarks.md (scripts/bench.sh splices it in).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fixtures_dir.h"
#include "scratch_dir.h"
#include "wasinn/host.h"

using namespace wasinn;

namespace {

struct Options {
  std::string fixtures = bench::default_fixtures();
  std::string guest_dir = WASINN_GUEST_DIR_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  double seconds = 3.0;
  std::string json;
};

struct ModelCase {
  std::string name;            // as registered with --nn-preload
  std::string file;            // relative to the fixtures
  std::string input;           // the input's name
  std::string type_dims;       // "fp32:1x3x224x224"
  std::string witx_type_dims;  // "f32:1x3x224x224"
  std::string input_file;      // the guest's path
  uint32_t repeat;             // N
};

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string one;
  f >> one;
  return one.empty() ? "?" : one;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Side {
  Program many, one;
  std::vector<double> many_s, one_s;
  double per_inference_us(uint32_t n) const { return (median(many_s) - median(one_s)) / (n - 1) * 1e6; }
};

bool run_timed(Host& host, const Program& p, std::vector<double>* times, std::string* error) {
  std::string out;
  Program q = p;
  q.on_stdout = [&](std::string_view s) { out.append(s); };
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutcome r = host.run(q);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.exit_code != 0 || out.find("error ") != std::string::npos) {
    *error = fmt::format("{} exited {}: {} {}", p.wasm_path, r.exit_code, r.message, out);
    return false;
  }
  times->push_back(s);
  return true;
}

Side make_side(const Options& o, const std::string& scratch, const ModelCase& m, bool wit) {
  Side side;
  Program p;
  p.dirs = {{o.fixtures, "/f"}, {scratch, "/s"}};
  if (wit) {
    p.wasm_path = o.guest_dir + "/wit_run_model.component.wasm";
    p.args = {"--name",  m.name, "--input", fmt::format("{}:{}:{}", m.input, m.type_dims, m.input_file),
              "--fetch", "each", "--repeat"};
  } else {
    p.wasm_path = o.guest_dir + "/run_model.wasm";
    p.args = {"--name",   m.name,         "--input", fmt::format("0:{}:{}", m.witx_type_dims, m.input_file),
              "--output", "0:/s/out.bin", "--fetch", "each",
              "--repeat"};
  }
  side.many = side.one = p;
  side.many.args.push_back(std::to_string(m.repeat));
  side.one.args.push_back("1");
  return side;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Time the WIT (component) path against the witx (core module) path on one Host"};
  app.add_option("--fixtures", o.fixtures, "Test fixtures (scripts/make_fixtures.py)")->capture_default_str();
  app.add_option("--seconds", o.seconds, "Time budget per model and side")->capture_default_str();
  app.add_option("--json", o.json, "Also write the figures as JSON here");
  app.add_option("--guest-dir", o.guest_dir, "Where the guests were built")->capture_default_str();
  app.add_option("--backend-dir", o.backend_dir, "Backend plugins")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::vector<ModelCase> models = {
      {"mobilenet_v2", "mobilenet_v2/model.onnx", "input", "fp32:1x3x224x224", "f32:1x3x224x224",
       "/f/mobilenet_v2/input.f32", 20},
      {"tiny", "tiny/model.onnx", "x", "fp32:1x4", "f32:1x4", "/s/x.f32", 20000},
  };
  // tiny's input (four floats) and the witx guest's output file, in a scratch directory.
  const bench::ScratchDir scratch_dir;
  {
    const float x[4] = {1, 2, 3, 4};
    std::ofstream((scratch_dir.path() / "x.f32").string(), std::ios::binary)
        .write(reinterpret_cast<const char*>(x), sizeof x);
  }
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  h.backend_configs["onnxruntime"] = R"({"intra_op_threads": 1})";
  for (const auto& m : models) h.preloads.push_back(fmt::format("{}:onnx:cpu:{}/{}", m.name, o.fixtures, m.file));
  std::string error;
  auto host = Host::create(h, &error);
  if (!host) return std::fprintf(stderr, "bench_components: %s\n", error.c_str()), 1;

  std::string md =
      "Per inference, ONNX Runtime on one intra-op thread, both guests on one Host: the WIT guest makes its input "
      "tensor, computes and reads the output's data; the witx guest sets its input, computes and gets the output. "
      "Each is (median run with --repeat N - median run with --repeat 1) / (N - 1). Load average at the start: " +
      load_average() + ".\n\n";
  md +=
      "| model | N | witx µs | WIT µs | WIT / witx | WIT - witx µs | runs per side |\n|---|---|---|---|---|---|---|\n";
  std::string json = "[";
  for (const auto& m : models) {
    const std::string s = scratch_dir.path().string();
    Side witx = make_side(o, s, m, false), wit = make_side(o, s, m, true);
    // One warm-up each: the named model loads, ORT allocates its arenas, the modules compile.
    std::vector<double> scratch;
    for (Side* s : {&witx, &wit}) {
      if (!run_timed(*host, s->one, &scratch, &error) || !run_timed(*host, s->many, &scratch, &error)) {
        return std::fprintf(stderr, "bench_components: %s\n", error.c_str()), 1;
      }
    }
    const auto start = std::chrono::steady_clock::now();
    size_t rounds = 0;
    while (rounds < 5 ||
           (rounds < 200 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 2 * o.seconds)) {
      Side* order[2] = {&witx, &wit};
      if (rounds % 2) std::swap(order[0], order[1]);
      for (Side* s : order) {
        if (!run_timed(*host, s->many, &s->many_s, &error) || !run_timed(*host, s->one, &s->one_s, &error)) {
          return std::fprintf(stderr, "bench_components: %s\n", error.c_str()), 1;
        }
      }
      ++rounds;
    }
    const double a = witx.per_inference_us(m.repeat), b = wit.per_inference_us(m.repeat);
    md += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.3f} | {:+.2f} | {} |\n", m.name, m.repeat, a, b, b / a, b - a,
                      rounds);
    json += fmt::format("{}{{\"model\":\"{}\",\"n\":{},\"witx_us\":{:.3f},\"wit_us\":{:.3f},\"rounds\":{}}}",
                        json.size() > 1 ? "," : "", m.name, m.repeat, a, b, rounds);
    std::fprintf(stderr, "%s: witx %.2f us, WIT %.2f us per inference (%zu rounds)\n", m.name.c_str(), a, b, rounds);
  }
  std::cout << md;
  if (!o.json.empty()) std::ofstream(o.json) << json << "]\n";
  return 0;
}
