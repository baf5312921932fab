// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_tensorflowlite: median inference time of a wasm guest (bench/common/bench_guest.c) on
// wasinn's tensorflowlite plugin versus the same .tflite file run natively by the same LiteRT
// library in this process (CPU accelerator, LiteRT's default options on both sides: one
// XNNPACK thread). Models: mobilenet_v2 (the ratio target, random weights), and the
// digits MLP at batch 1, float and int8 (where per-call costs show). Prints a Markdown section;
// JSON on request.
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
#include "native_litert_model.h"
#include "output_check.h"
#include "scratch_dir.h"
#include "wasinn/version.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct Case {
  std::string name;
  std::string model;       // relative to the fixtures directory
  std::string input_file;  // raw input bytes; the first sample is used
  std::string type;        // witx type name the guest sends ("u8" for the int8 model)
  size_t element_bytes;
  std::vector<uint32_t> dims;
  std::string expected_file;  // TensorFlow's answer for that input (f32), or ""
  uint32_t calls_per_sample;  // amortizes entering the guest for small models
  size_t min_samples;
};

std::vector<Case> cases() {
  return {
      {"mobilenet_v2",
       "tflite/mobilenet_v2.tflite",
       "tflite/mobilenet_v2_input.f32",
       "f32",
       4,
       {1, 224, 224, 3},
       "tflite/mobilenet_v2_expected.f32",
       1,
       30},
      {"digits", "tflite/digits_f32.tflite", "digits/test_x.f32", "f32", 4, {1, 64}, "", 50, 40},
      {"digits_int8", "tflite/digits_int8.tflite", "tflite/digits_int8_input.i8", "u8", 1, {1, 64}, "", 50, 40},
  };
}

struct Options {
  std::string fixtures;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::vector<std::string> models{"mobilenet_v2", "digits", "digits_int8"};
  double seconds = 3.0;
  std::string json;
};

// Runs each side once: same library, same model, same shapes, so the guest's output must equal
// the native one byte for byte; mobilenet's must also be TensorFlow's own answer (to 1e-3).
bool check_outputs(const Case& c, const Options& o, GuestBench& guest, NativeLiteRtModel& native,
                   const fs::path& guest_out, std::string* error) {
  if (!guest.infer(error) || !guest.save_outputs(error) || !native.run(error)) return false;
  auto got = read_bytes(guest_out.string(), error);
  if (!got) return false;
  const auto want_native = native.output_bytes();
  if (!std::equal(got->begin(), got->end(), want_native.begin(), want_native.end())) {
    *error = c.name + ": guest and native outputs differ";
    return false;
  }
  if (!c.expected_file.empty()) {
    auto want = read_bytes((fs::path(o.fixtures) / c.expected_file).string(), error);
    std::string detail;
    if (!want) return false;
    if (!f32_close(want_native, *want, 1e-3, 1e-3, &detail)) {
      *error = c.name + ": native output is not TensorFlow's answer: " + detail;
      return false;
    }
  }
  return true;
}

bool run_case(Host& host, const Case& c, const Options& o, const ScratchDir& scratch, BenchRow* row,
              std::string* error) {
  auto all = read_bytes((fs::path(o.fixtures) / c.input_file).string(), error);
  if (!all) return false;
  size_t bytes = c.element_bytes;
  for (uint32_t d : c.dims) bytes *= d;
  if (all->size() < bytes) {
    *error = c.input_file + " holds fewer bytes than the input needs";
    return false;
  }
  all->resize(bytes);
  const fs::path input_file = scratch.path() / (c.name + ".input");
  const fs::path output_file = scratch.path() / (c.name + ".guest.out");
  if (!write_bytes(input_file.string(), *all, error)) return false;

  GuestArgs args;
  args.model_files = {"/fixtures/" + c.model};
  args.encoding = 4;  // witx tensorflowlite
  args.inputs = {{0, c.type, c.dims, "/scratch/" + input_file.filename().string()}};
  args.outputs = {{0, "/scratch/" + output_file.filename().string()}};
  args.repeat = c.calls_per_sample;
  Program program;
  program.wasm_path = o.guest;
  program.dirs = {{o.fixtures, "/fixtures"}, {scratch.path().string(), "/scratch"}};
  auto guest = GuestBench::start(host, program, args, error);
  if (!guest) return false;

  auto native = NativeLiteRtModel::open((fs::path(o.fixtures) / c.model).string(), error);
  if (!native || !native->set_input(*all, c.dims, error)) return false;
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
  row->backend = "tensorflowlite";
  row->model = c.name;
  row->threads = 1;
  return compare_interleaved(plan, native_step, guest_step, &row->result, error);
}

void print_markdown(const std::vector<BenchRow>& rows, const Options& o) {
  std::cout << fmt::format(
      "LiteRT {} (PyPI ai-edge-litert, CPU accelerator: XNNPACK, one thread), Wasmtime {}, "
      "wasinn {}; run {}; {} s of timed samples per side and row.\n\n",
      WASINN_LITERT_VERSION, WASINN_WASMTIME_VERSION, WASINN_VERSION_STRING, now_utc(), o.seconds);
  std::cout << markdown_header();
  for (const auto& r : rows) std::cout << markdown_row(r);
  std::cout << "\n";
  for (const auto& r : rows)
    if (r.model == "mobilenet_v2")
      std::cout << fmt::format("- mobilenet_v2: ratio {:.3f}, 95% CI {:.3f}–{:.3f} (target at most 1.02: {}).\n",
                               r.result.ratio(), r.result.ratio_95.low, r.result.ratio_95.high,
                               r.result.ratio() <= 1.02 ? "met" : "NOT met");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fixtures = default_fixtures();
  CLI::App app{"Guest-versus-native benchmark of wasinn's tensorflowlite (LiteRT) backend"};
  app.add_option("--fixtures", o.fixtures, "fixtures directory (scripts/make_fixtures.py)");
  app.add_option("--guest", o.guest, "bench_guest.wasm");
  app.add_option("--backend-dir", o.backend_dir, "directory of backend manifests");
  app.add_option("--models", o.models, "models: mobilenet_v2, digits, digits_int8")->delimiter(',');
  app.add_option("--seconds", o.seconds, "timed seconds per side and row")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  const auto all = cases();
  for (const auto& m : o.models)
    if (std::none_of(all.begin(), all.end(), [&](const Case& c) { return c.name == m; })) {
      std::cerr << "bench_tensorflowlite: unknown model \"" << m << "\" (known: mobilenet_v2, digits, digits_int8)\n";
      return 2;
    }
  ScratchDir scratch;
  if (!scratch.ok()) {
    std::cerr << "bench_tensorflowlite: cannot create a temporary directory\n";
    return 1;
  }
  std::string error;
  HostOptions h;
  h.backend_dirs = {o.backend_dir};
  auto host = Host::create(std::move(h), &error);
  if (!host) {
    std::cerr << "bench_tensorflowlite: " << error << "\n";
    return 1;
  }
  std::vector<BenchRow> rows;
  for (const auto& c : all) {
    if (std::find(o.models.begin(), o.models.end(), c.name) == o.models.end()) continue;
    std::cerr << "bench_tensorflowlite: " << c.name << "...\n";
    BenchRow row;
    if (!run_case(*host, c, o, scratch, &row, &error)) {
      std::cerr << "bench_tensorflowlite: " << c.name << ": " << error << "\n";
      return 1;
    }
    std::cerr << "  " << markdown_row(row);
    rows.push_back(std::move(row));
  }
  print_markdown(rows, o);
  if (!o.json.empty()) std::ofstream(o.json) << to_json(rows);
  return 0;
}
