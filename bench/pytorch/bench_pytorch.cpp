// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_pytorch: median inference time of a wasm guest (bench/common/bench_guest.c) on wasinn's
// pytorch plugin versus the same TorchScript file run by libtorch natively in the same process,
// with the same intra-op thread count (libtorch's setting is process-wide, so both sides share
// it by construction). Models: mobilenet_v2 (the issue's ratio target, random weights) and the
// digits MLP at batch 1 (where per-call costs show). Prints a Markdown section; JSON on request.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fixtures_dir.h"
#include "bench_report.h"
#include "guest_bench.h"
#include "interleaved_timing.h"
#include "native_torchscript.h"
#include "output_check.h"
#include "scratch_dir.h"
#include "wasinn/version.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct Case {
  std::string name;
  std::string model;           // relative to the fixtures directory
  std::string input_file;      // f32 values, relative to the fixtures directory
  std::vector<uint32_t> dims;  // of input 0; its element count is taken from input_file's start
  std::string expected_file;   // known answer for output 0, or "" to skip that check
  uint32_t calls_per_sample;   // amortizes entering the guest for small models
  size_t min_samples;
};

std::vector<Case> cases() {
  return {
      {"mobilenet_v2",
       "mobilenet_v2/model.pt",
       "mobilenet_v2/input.f32",
       {1, 3, 224, 224},
       "mobilenet_v2/expected.f32",
       1,
       30},
      {"digits", "digits/model.pt", "digits/test_x.f32", {1, 64}, "", 50, 40},
  };
}

struct Options {
  std::string fixtures;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  // One by default: on a shared 2-core machine, libtorch's OpenMP threads spin-wait against other
  // builds and two threads measure the contention, not wasinn (see docs/backends/pytorch.md).
  std::vector<int> threads{1};
  std::vector<std::string> models{"mobilenet_v2", "digits"};
  double seconds = 3.0;
  std::string json;
};

size_t element_count(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// Runs each side once: the guest must agree with native (same library, same threads, same
// input, so to float rounding at most), and both with the known answer when there is one.
bool check_outputs(const Case& c, const Options& o, GuestBench& guest, NativeTorchScript& native,
                   const fs::path& guest_out, std::string* error) {
  if (!guest.infer(error) || !guest.save_outputs(error) || !native.run(error)) return false;
  auto got = read_bytes(guest_out.string(), error);
  if (!got) return false;
  std::string detail;
  // mobilenet's random-weight logits are ~1e-9, so the absolute tolerance is tiny.
  if (!f32_close(*got, native.output_bytes(), 1e-15, 1e-5, &detail)) {
    *error = c.name + ": guest and native outputs differ: " + detail;
    return false;
  }
  if (!c.expected_file.empty()) {
    auto want = read_bytes((fs::path(o.fixtures) / c.expected_file).string(), error);
    if (!want) return false;
    if (!f32_close(native.output_bytes(), *want, 1e-15, 1e-4, &detail)) {
      *error = c.name + ": native output is not the known answer: " + detail;
      return false;
    }
  }
  return true;
}

bool run_case(Host& host, const Case& c, int threads, const Options& o, const ScratchDir& scratch, BenchRow* row,
              std::string* error) {
  auto all = read_bytes((fs::path(o.fixtures) / c.input_file).string(), error);
  if (!all) return false;
  std::vector<float> input = as_f32(*all);
  if (input.size() < element_count(c.dims)) {
    *error = c.input_file + " holds fewer values than the input needs";
    return false;
  }
  input.resize(element_count(c.dims));
  const fs::path input_file = scratch.path() / (c.name + ".input.f32");
  const fs::path output_file = scratch.path() / (c.name + ".guest.out");
  if (!write_bytes(input_file.string(), {reinterpret_cast<const uint8_t*>(input.data()), input.size() * sizeof(float)},
                   error))
    return false;

  GuestArgs args;
  args.model_files = {"/fixtures/" + c.model};
  args.encoding = 3;  // witx pytorch
  args.inputs = {{0, "f32", c.dims, "/scratch/" + input_file.filename().string()}};
  args.outputs = {{0, "/scratch/" + output_file.filename().string()}};
  args.repeat = c.calls_per_sample;
  Program program;
  program.wasm_path = o.guest;
  program.dirs = {{o.fixtures, "/fixtures"}, {scratch.path().string(), "/scratch"}};
  auto guest = GuestBench::start(host, program, args, error);
  if (!guest) return false;

  auto native = NativeTorchScript::open((fs::path(o.fixtures) / c.model).string(), error);
  if (!native) return false;
  native->bind_f32_input(input, std::vector<int64_t>(c.dims.begin(), c.dims.end()));
  if (!check_outputs(c, o, *guest, *native, output_file, error)) return false;

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
  row->backend = "pytorch";
  row->model = c.name;
  row->threads = threads;
  return compare_interleaved(plan, native_step, guest_step, &row->result, error);
}

void print_markdown(const std::vector<BenchRow>& rows, const Options& o) {
  std::cout << fmt::format(
      "libtorch {} (Debian libtorch1.13 1.13.1, CPU), Wasmtime {}, wasinn {}; run {}; "
      "{} s of timed samples per side and row.\n\n",
      torch_version(), WASINN_WASMTIME_VERSION, WASINN_VERSION_STRING, now_utc(), o.seconds);
  std::cout << markdown_header();
  for (const auto& r : rows) std::cout << markdown_row(r);
  std::cout << "\n";
  for (const auto& r : rows)
    if (r.model == "mobilenet_v2")
      std::cout << fmt::format(
          "- mobilenet_v2, {} thread(s): ratio {:.3f}, 95% CI {:.3f}–{:.3f} (target at most "
          "1.02: {}).\n",
          r.threads, r.result.ratio(), r.result.ratio_95.low, r.result.ratio_95.high,
          r.result.ratio() <= 1.02 ? "met" : "NOT met");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fixtures = default_fixtures();
  CLI::App app{"Guest-versus-native benchmark of wasinn's pytorch (TorchScript) backend"};
  app.add_option("--fixtures", o.fixtures, "fixtures directory (scripts/make_fixtures.py)");
  app.add_option("--guest", o.guest, "bench_guest.wasm");
  app.add_option("--backend-dir", o.backend_dir, "directory of backend manifests");
  app.add_option("--threads", o.threads, "intra-op thread counts to measure")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--models", o.models, "models: mobilenet_v2, digits")->delimiter(',');
  app.add_option("--seconds", o.seconds, "timed seconds per side and row")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  const auto all = cases();
  for (const auto& m : o.models)
    if (std::none_of(all.begin(), all.end(), [&](const Case& c) { return c.name == m; })) {
      std::cerr << "bench_pytorch: unknown model \"" << m << "\" (known: mobilenet_v2, digits)\n";
      return 2;
    }
  ScratchDir scratch;
  if (!scratch.ok()) {
    std::cerr << "bench_pytorch: cannot create a temporary directory\n";
    return 1;
  }
  std::vector<BenchRow> rows;
  std::string error;
  for (int threads : o.threads) {
    // The plugin applies num_threads when the host creates its backend; the native side gets
    // the same call, and since both use one libtorch the setting is shared anyway.
    HostOptions h;
    h.backend_dirs = {o.backend_dir};
    h.backend_configs["pytorch"] = fmt::format(R"({{"num_threads": {}}})", threads);
    auto host = Host::create(std::move(h), &error);
    if (!host) {
      std::cerr << "bench_pytorch: " << error << "\n";
      return 1;
    }
    set_torch_threads(threads);
    for (const auto& c : all) {
      if (std::find(o.models.begin(), o.models.end(), c.name) == o.models.end()) continue;
      std::cerr << "bench_pytorch: " << c.name << ", " << threads << " thread(s)...\n";
      BenchRow row;
      if (!run_case(*host, c, threads, o, scratch, &row, &error)) {
        std::cerr << "bench_pytorch: " << c.name << " with " << threads << " thread(s): " << error << "\n";
        return 1;
      }
      std::cerr << "  " << markdown_row(row);
      rows.push_back(std::move(row));
    }
  }
  print_markdown(rows, o);
  if (!o.json.empty()) std::ofstream(o.json) << to_json(rows);
  return 0;
}
