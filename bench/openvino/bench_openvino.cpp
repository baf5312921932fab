// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_openvino: median inference time of a wasm guest on wasinn's OpenVINO plugin versus
// OpenVINO called natively in the same process with the same threads and precision, for
// mobilenet_v2 (the issue's ratio target) and the digits MLP; then cold, cached and uncached
// model load times. Prints a Markdown section for docs/benchmarks.md (scripts/bench.sh splices
// it in) and, on request, JSON.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <openvino/core/version.hpp>

#include "fixtures_dir.h"
#include "bench_report.h"
#include "guest_bench.h"
#include "interleaved_timing.h"
#include "load_timing.h"
#include "native_ov_model.h"
#include "output_check.h"
#include "scratch_dir.h"
#include "wasinn/version.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct OvCase {
  std::string name;            // the table's row label
  std::string ir;              // fixtures-relative path without .xml/.bin
  std::string input;           // fixtures-relative f32 file; its first product(dims) values are used
  std::vector<uint32_t> dims;  // shape of input 0
  uint32_t calls_per_sample;   // inferences per timed sample: amortizes entering the guest
  size_t min_samples;
  std::optional<bool> cancellable;  // the plugin's "cancellable" config; unset: the plugin decides
  uint64_t compute_budget_ms = 0;   // the host's Limits::max_compute_ms (0: none, as by default)
};

// The plugin computes synchronously unless the host may cancel (a compute budget is set) or the
// config says "cancellable": true. Each model with the defaults (no budget), with a budget (the
// asynchronous, cancellable path plus the host's watchdog), and with "cancellable" forced either
// way, so that the async path's cost can be told from the watchdog's.
std::vector<OvCase> cases() {
  const std::vector<OvCase> models = {
      {"mobilenet_v2", "mobilenet_v2/openvino/model", "mobilenet_v2/input.f32", {1, 3, 224, 224}, 1, 40, {}, 0},
      {"digits", "digits/openvino/model", "digits/test_x.f32", {1, 64}, 100, 40, {}, 0}};
  std::vector<OvCase> out;
  for (const OvCase& m : models) {
    out.push_back(m);
    OvCase budget = m;
    budget.name += " (compute budget)";
    budget.compute_budget_ms = 60000;
    out.push_back(budget);
    for (bool on : {true, false}) {
      OvCase forced = m;
      forced.name += on ? " (cancellable on)" : " (cancellable off)";
      forced.cancellable = on;
      out.push_back(forced);
    }
  }
  return out;
}

struct Options {
  std::string fixtures;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::vector<int> threads{1, 2};
  std::vector<std::string> models{"mobilenet_v2", "mobilenet_v2 (compute budget)", "digits", "digits (compute budget)"};
  double seconds = 3.0;
  int load_repetitions = 5;
  std::string json;
};

// What `wasinn run --backend-config openvino=... [--max-compute-ms N]` sets up; the native side
// mirrors the config.
std::unique_ptr<Host> make_host(const Options& o, int threads, const OvCase& c, std::string* error) {
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  const std::string cancellable = c.cancellable ? fmt::format(R"(, "cancellable": {})", *c.cancellable) : std::string();
  h.backend_configs["openvino"] =
      fmt::format(R"({{"num_threads": {}, "inference_precision": "f32", "cache_dir": ""{}}})", threads, cancellable);
  h.limits.max_compute_ms = c.compute_budget_ms;
  return Host::create(std::move(h), error);
}

std::optional<std::vector<float>> read_input(const Options& o, const OvCase& c, std::string* error) {
  auto bytes = read_bytes((fs::path(o.fixtures) / c.input).string(), error);
  if (!bytes) return std::nullopt;
  size_t n = 1;
  for (uint32_t d : c.dims) n *= d;
  auto all = as_f32(*bytes);
  if (all.size() < n) {
    *error = c.input + " holds fewer than " + std::to_string(n) + " floats";
    return std::nullopt;
  }
  all.resize(n);
  return all;
}

// Both sides once: they must agree bit for bit (same compiled kernels, same bytes), and
// mobilenet must match torch's answer from the fixtures (relative: its outputs are ~1e-9).
bool check_outputs(const Options& o, const OvCase& c, GuestBench& guest, NativeOvModel& native,
                   const fs::path& guest_out, std::string* error) {
  if (!guest.infer(error) || !guest.save_outputs(error) || !native.run(error)) return false;
  auto got = read_bytes(guest_out.string(), error);
  if (!got) return false;
  const auto want = native.output_bytes(0);
  if (got->size() != want.size() || !std::equal(got->begin(), got->end(), want.begin())) {
    std::string detail;
    f32_close(*got, want, 0, 0, &detail);
    *error = c.name + ": guest and native outputs differ: " + detail;
    return false;
  }
  if (c.ir == "mobilenet_v2/openvino/model") {
    auto torch = read_bytes((fs::path(o.fixtures) / "mobilenet_v2/expected.f32").string(), error);
    if (!torch) return false;
    float scale = 0;
    for (float v : as_f32(*torch)) scale = std::max(scale, std::abs(v));
    std::string detail;
    if (!f32_close(*got, *torch, 1e-3 * scale, 0, &detail)) {
      *error = "mobilenet_v2: output is not torch's answer: " + detail;
      return false;
    }
  }
  return true;
}

bool run_case(Host& host, ov::Core& core, const OvCase& c, int threads, const Options& o, const ScratchDir& scratch,
              BenchRow* row, std::string* error) {
  auto input = read_input(o, c, error);
  if (!input) return false;
  const fs::path input_file = scratch.path() / (c.name + ".input.f32");
  const fs::path output_file = scratch.path() / (c.name + ".guest.out");
  const auto* in_bytes = reinterpret_cast<const uint8_t*>(input->data());
  if (!write_bytes(input_file.string(), {in_bytes, input->size() * sizeof(float)}, error)) return false;

  GuestArgs args;
  args.model_files = {"/fixtures/" + c.ir + ".xml", "/fixtures/" + c.ir + ".bin"};
  args.encoding = 0;  // openvino
  args.inputs = {{0, "f32", c.dims, "/scratch/" + input_file.filename().string()}};
  args.outputs = {{0, "/scratch/" + output_file.filename().string()}};
  args.repeat = c.calls_per_sample;
  Program p;
  p.wasm_path = o.guest;
  p.dirs = {{o.fixtures, "/fixtures"}, {scratch.path().string(), "/scratch"}};
  auto guest = GuestBench::start(host, p, args, error);
  if (!guest) return false;

  auto native = NativeOvModel::open(core, (fs::path(o.fixtures) / (c.ir + ".xml")).string(), threads, error);
  if (!native || !native->bind_f32_input(0, *input, c.dims, error)) return false;
  if (!check_outputs(o, c, *guest, *native, output_file, error)) return false;

  TimingPlan plan;
  plan.seconds_per_side = o.seconds;
  plan.calls_per_sample = c.calls_per_sample;
  plan.min_samples = c.min_samples;
  const uint32_t calls = c.calls_per_sample;
  Step native_step = [&native, calls](std::string* e) {
    for (uint32_t i = 0; i < calls; ++i)
      if (!native->run(e)) return false;
    return true;
  };
  Step guest_step = [&guest](std::string* e) { return guest->infer(e); };
  row->backend = "openvino";
  row->model = c.name;
  row->threads = threads;
  return compare_interleaved(plan, native_step, guest_step, &row->result, error);
}

void print_markdown(const std::vector<BenchRow>& rows, const LoadTimes& load, const Options& o) {
  std::cout << fmt::format(
      "OpenVINO {}, Wasmtime {}, wasinn {}; CPU device, f32 inference precision; run {}; "
      "{} s of timed samples per side and row.\n\n",
      ov::get_openvino_version().buildNumber, WASINN_WASMTIME_VERSION, WASINN_VERSION_STRING, now_utc(), o.seconds);
  std::cout << markdown_header();
  for (const auto& r : rows) std::cout << markdown_row(r);
  std::cout << "\n";
  for (const auto& r : rows)
    if (r.model.rfind("mobilenet_v2", 0) == 0)
      std::cout << fmt::format(
          "- {}, {} thread(s): ratio {:.3f}, 95% CI {:.3f}–{:.3f} (target at most "
          "1.02: {}).\n",
          r.model, r.threads, r.result.ratio(), r.result.ratio_95.low, r.result.ratio_95.high,
          r.result.ratio() <= 1.02 ? "met" : "NOT met");
  if (load.repetitions > 0) {
    std::cout << fmt::format(
        "\nmobilenet_v2 IR load times (CPU, median of {} fresh repetitions):\n\n"
        "| load | through the plugin | native `compile_model(path)` |\n|---|---:|---:|\n"
        "| cold (empty cache directory) | {:.1f} ms | {:.1f} ms |\n"
        "| cached (compiled blob imported) | {:.1f} ms | {:.1f} ms |\n"
        "| caching off (`\"cache_dir\": \"\"`) | {:.1f} ms | – |\n",
        load.repetitions, load.plugin_cold_ms, load.native_cold_ms, load.plugin_cached_ms, load.native_cached_ms,
        load.plugin_no_cache_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fixtures = default_fixtures();
  CLI::App app{"Guest-versus-native benchmark of wasinn's OpenVINO backend"};
  app.add_option("--fixtures", o.fixtures, "fixtures directory (scripts/make_fixtures.py)");
  app.add_option("--guest", o.guest, "bench_guest.wasm");
  app.add_option("--backend-dir", o.backend_dir, "directory of backend manifests");
  app.add_option("--threads", o.threads, "inference thread counts to measure")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--models", o.models,
                 "rows: mobilenet_v2, digits, each also \"NAME (compute budget)\", \"NAME (cancellable on)\" and "
                 "\"NAME (cancellable off)\"")
      ->delimiter(',');
  app.add_option("--seconds", o.seconds, "timed seconds per side and row")->check(CLI::PositiveNumber);
  app.add_option("--load-repetitions", o.load_repetitions, "fresh cold/cached load pairs (0: skip)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--json", o.json, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  const auto all = cases();
  for (const auto& m : o.models)
    if (std::none_of(all.begin(), all.end(), [&](const OvCase& c) { return c.name == m; })) {
      std::cerr << "bench_openvino: unknown row \"" << m
                << "\" (known: mobilenet_v2, digits, each also "
                   "\"NAME (compute budget)\", \"NAME (cancellable on)\", \"NAME (cancellable off)\")\n";
      return 2;
    }
  ScratchDir scratch;
  if (!scratch.ok()) {
    std::cerr << "bench_openvino: cannot create a temporary directory\n";
    return 1;
  }
  ov::Core core;  // the native side's; the plugin makes its own
  std::vector<BenchRow> rows;
  std::string error;
  for (int threads : o.threads) {
    for (const auto& c : all) {
      if (std::find(o.models.begin(), o.models.end(), c.name) == o.models.end()) continue;
      auto host = make_host(o, threads, c, &error);
      if (!host) {
        std::cerr << "bench_openvino: " << error << "\n";
        return 1;
      }
      std::cerr << "bench_openvino: " << c.name << ", " << threads << " thread(s)...\n";
      BenchRow row;
      if (!run_case(*host, core, c, threads, o, scratch, &row, &error)) {
        std::cerr << "bench_openvino: " << c.name << " with " << threads << " thread(s): " << error << "\n";
        return 1;
      }
      std::cerr << "  " << markdown_row(row);
      rows.push_back(std::move(row));
    }
  }
  LoadTimes load;
  if (o.load_repetitions > 0) {
    std::cerr << "bench_openvino: load times...\n";
    const fs::path ir = fs::path(o.fixtures) / "mobilenet_v2/openvino/model";
    if (!measure_load_times(o.backend_dir + "/libwasinn_backend_openvino.so", core, ir.string() + ".xml",
                            ir.string() + ".bin", o.load_repetitions, &load, &error)) {
      std::cerr << "bench_openvino: load times: " << error << "\n";
      return 1;
    }
  }
  print_markdown(rows, load, o);
  if (!o.json.empty()) std::ofstream(o.json) << to_json(rows);
  return 0;
}
