// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_onnxruntime: median inference time of a wasm guest on wasinn's ONNX Runtime plugin
// versus ONNX Runtime called natively in the same process with the same session options, for
// mobilenet_v2, the digits MLP and the one-node tiny model (per-call overhead). Prints a
// Markdown section for docs/benchmarks.md (scripts/bench.sh splices it in) and, on request, JSON.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <onnxruntime_cxx_api.h>

#include "fixtures_dir.h"
#include "bench_report.h"
#include "guest_bench.h"
#include "interleaved_timing.h"
#include "model_cases.h"
#include "native_ort_session.h"
#include "output_check.h"
#include "scratch_dir.h"
#include "wasinn/version.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct Options {
  std::string fixtures;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::vector<int> threads{1, 2};
  std::vector<std::string> models{"mobilenet_v2", "digits", "tiny"};
  double seconds = 3.0;
  std::string json;
};

std::unique_ptr<Host> make_host(const Options& o, int threads, std::string* error) {
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  // What `wasinn run --backend-config onnxruntime=...` passes; the native side mirrors it.
  h.backend_configs["onnxruntime"] =
      fmt::format(R"({{"intra_op_threads": {}, "graph_optimization_level": "all"}})", threads);
  return Host::create(std::move(h), error);
}

Program guest_program(const Options& o, const ScratchDir& scratch) {
  Program p;
  p.wasm_path = o.guest;
  p.dirs = {{o.fixtures, "/fixtures"}, {scratch.path().string(), "/scratch"}};
  return p;
}

// Runs each side once and checks that both give the known answer and agree with each other.
bool check_outputs(const ModelCase& mc, const Options& o, GuestBench& guest, NativeOrtSession& native,
                   const fs::path& guest_out, std::string* error) {
  if (!guest.infer(error) || !guest.save_outputs(error) || !native.run(error)) return false;
  auto got = read_bytes(guest_out.string(), error);
  if (!got) return false;
  std::string detail;
  if (!mc.check(o.fixtures, native.output_bytes(0), &detail)) {
    *error = mc.name + ": native output is not the known answer: " + detail;
    return false;
  }
  if (!mc.check(o.fixtures, *got, &detail)) {
    *error = mc.name + ": guest output is not the known answer: " + detail;
    return false;
  }
  // Same library, same options, same input: only the float summation order may differ.
  if (!f32_close(*got, native.output_bytes(0), 1e-6, 1e-5, &detail)) {
    *error = mc.name + ": guest and native outputs differ: " + detail;
    return false;
  }
  return true;
}

bool run_case(Host& host, Ort::Env& env, const ModelCase& mc, int threads, const Options& o, const ScratchDir& scratch,
              BenchRow* row, std::string* error) {
  auto input = mc.input(o.fixtures, error);
  if (!input) return false;
  const fs::path input_file = scratch.path() / (mc.name + ".input.f32");
  const fs::path output_file = scratch.path() / (mc.name + ".guest.out");
  const auto* in_bytes = reinterpret_cast<const uint8_t*>(input->data());
  if (!write_bytes(input_file.string(), {in_bytes, input->size() * sizeof(float)}, error)) return false;

  GuestArgs args;
  args.model_files = {"/fixtures/" + mc.model};
  args.inputs = {{0, "f32", mc.dims, "/scratch/" + input_file.filename().string()}};
  args.outputs = {{0, "/scratch/" + output_file.filename().string()}};
  args.repeat = mc.calls_per_sample;
  auto guest = GuestBench::start(host, guest_program(o, scratch), args, error);
  if (!guest) return false;

  auto native = NativeOrtSession::open(env, (fs::path(o.fixtures) / mc.model).string(), threads, error);
  if (!native) return false;
  if (!native->bind_f32_input(0, *input, std::vector<int64_t>(mc.dims.begin(), mc.dims.end()), error)) return false;
  if (!check_outputs(mc, o, *guest, *native, output_file, error)) return false;

  TimingPlan plan;
  plan.seconds_per_side = o.seconds;
  plan.calls_per_sample = mc.calls_per_sample;
  plan.min_samples = mc.min_samples;
  const uint32_t calls = mc.calls_per_sample;
  Step native_step = [&native, calls](std::string* e) {
    for (uint32_t i = 0; i < calls; ++i)
      if (!native->run(e)) return false;
    return true;
  };
  Step guest_step = [&guest](std::string* e) { return guest->infer(e); };
  row->backend = "onnxruntime";
  row->model = mc.name;
  row->threads = threads;
  return compare_interleaved(plan, native_step, guest_step, &row->result, error);
}

// The cost of Instance::call on an empty export, against an empty native step.
bool measure_call_cost(Host& host, const Options& o, const ScratchDir& scratch, Comparison* out, std::string* error) {
  GuestArgs args;
  args.model_files = {"/fixtures/tiny/model.onnx"};
  args.outputs = {{0, ""}};
  auto guest = GuestBench::start(host, guest_program(o, scratch), args, error);
  if (!guest) return false;
  TimingPlan plan;
  plan.seconds_per_side = 0.5;
  return compare_interleaved(
      plan, [](std::string*) { return true; }, [&guest](std::string* e) { return guest->noop(e); }, out, error);
}

std::string today() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

// "met" only when the whole interval is within the target; the median alone is not proof.
std::string verdict(double value, Interval interval, double limit) {
  if (interval.high <= limit) return "met";
  if (value <= limit) return fmt::format("met by the median, but the interval reaches {:.3f}", interval.high);
  return "NOT met";
}

void print_markdown(const std::vector<BenchRow>& rows, const Comparison& call, const Options& o) {
  std::cout << fmt::format(
      "ONNX Runtime {}, Wasmtime {}, wasinn {}; run {}; {} s of timed samples per side "
      "and row.\n\n",
      Ort::GetVersionString(), WASINN_WASMTIME_VERSION, WASINN_VERSION_STRING, today(), o.seconds);
  std::cout << markdown_header();
  for (const auto& r : rows) std::cout << markdown_row(r);
  std::cout << "\n";
  for (const auto& r : rows) {
    if (r.model == "mobilenet_v2") {
      std::cout << fmt::format(
          "- mobilenet_v2, {} thread(s): ratio {:.3f}, 95% CI {:.3f}–{:.3f}; target at most "
          "1.02: {}.\n",
          r.threads, r.result.ratio(), r.result.ratio_95.low, r.result.ratio_95.high,
          verdict(r.result.ratio(), r.result.ratio_95, 1.02));
    } else if (r.model == "tiny") {
      std::cout << fmt::format(
          "- tiny, {} thread(s): per-call overhead {:+.2f} µs, 95% CI {:+.2f}–{:+.2f}; "
          "target under 2 µs: {}.\n",
          r.threads, r.result.overhead_us(), r.result.overhead_95.low, r.result.overhead_95.high,
          verdict(r.result.overhead_us(), r.result.overhead_95, 2));
    }
  }
  uint32_t batch = 1;
  for (const auto& mc : onnxruntime_cases()) batch = std::max(batch, mc.calls_per_sample);
  std::cout << fmt::format(
      "- Entering the guest (`Instance::call` of an empty export) costs {:.2f} µs; rows "
      "of small models make {} inferences per call, so it adds at most {:.3f} µs to "
      "their overhead.\n",
      call.overhead_us(), batch, call.overhead_us() / batch);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fixtures = default_fixtures();
  CLI::App app{"Guest-versus-native benchmark of wasinn's ONNX Runtime backend"};
  app.add_option("--fixtures", o.fixtures, "fixtures directory (scripts/make_fixtures.py)");
  app.add_option("--guest", o.guest, "bench_guest.wasm");
  app.add_option("--backend-dir", o.backend_dir, "directory of backend manifests");
  app.add_option("--threads", o.threads, "intra-op thread counts to measure")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--models", o.models, "models: mobilenet_v2, digits, tiny")->delimiter(',');
  app.add_option("--seconds", o.seconds, "timed seconds per side and row")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  for (const auto& m : o.models) {
    const auto cases = onnxruntime_cases();
    if (std::none_of(cases.begin(), cases.end(), [&](const ModelCase& c) { return c.name == m; })) {
      std::cerr << "bench_onnxruntime: unknown model \"" << m << "\" (known: mobilenet_v2, digits, tiny)\n";
      return 2;
    }
  }
  ScratchDir scratch;
  if (!scratch.ok()) {
    std::cerr << "bench_onnxruntime: cannot create a temporary directory\n";
    return 1;
  }
  // The plugin creates its ORT environment with the same call; ORT keeps one per process.
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "bench");
  std::vector<BenchRow> rows;
  Comparison call_cost;
  std::string error;
  for (int threads : o.threads) {
    auto host = make_host(o, threads, &error);
    if (!host) {
      std::cerr << "bench_onnxruntime: " << error << "\n";
      return 1;
    }
    if (rows.empty() && !measure_call_cost(*host, o, scratch, &call_cost, &error)) {
      std::cerr << "bench_onnxruntime: starting the guest: " << error << "\n";
      return 1;
    }
    for (const auto& mc : onnxruntime_cases()) {
      if (std::find(o.models.begin(), o.models.end(), mc.name) == o.models.end()) continue;
      std::cerr << "bench_onnxruntime: " << mc.name << ", " << threads << " thread(s)...\n";
      BenchRow row;
      if (!run_case(*host, env, mc, threads, o, scratch, &row, &error)) {
        std::cerr << "bench_onnxruntime: " << mc.name << " with " << threads << " thread(s): " << error << "\n";
        return 1;
      }
      std::cerr << "  " << markdown_row(row);
      rows.push_back(std::move(row));
    }
  }
  print_markdown(rows, call_cost, o);
  if (!o.json.empty()) {
    std::ofstream(o.json) << to_json(rows);
  }
  return 0;
}
