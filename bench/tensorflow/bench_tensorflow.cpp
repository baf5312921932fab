// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_tensorflow: median inference time of a wasm guest (bench/common/bench_guest.c) on
// wasinn's tensorflow plugin versus the same model run natively by the same TensorFlow C API
// library in this process, with the same intra-op and inter-op thread counts. Models:
// mobilenet_v2 as a SavedModel (the issue's ratio target, random weights; the guest loads it by
// name, preloaded by its saved_model.pb), and the digits MLP as a frozen GraphDef at batch 1
// (where per-call costs show). Prints a Markdown section; JSON on request.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tensorflow/c/c_api.h>

#include "fixtures_dir.h"
#include "bench_report.h"
#include "guest_bench.h"
#include "interleaved_timing.h"
#include "native_tf_session.h"
#include "output_check.h"
#include "scratch_dir.h"
#include "wasinn/version.h"

namespace fs = std::filesystem;
using namespace wasinn;
using namespace wasinn::bench;

namespace {

struct Case {
  std::string name;
  std::string model;  // SavedModel directory or GraphDef file, under the fixtures
  bool saved_model;
  std::string signature_file;               // {"inputs": {key: tensor}, "outputs": {...}} for SavedModels
  std::string native_input, native_output;  // graph tensors, for GraphDefs
  std::string input_file;                   // f32 values; the first sample is used
  std::vector<uint32_t> dims;
  std::string expected_file;  // TensorFlow's answer (Python), or ""
  uint32_t calls_per_sample;
  size_t min_samples;
};

std::vector<Case> cases() {
  return {
      {"mobilenet_v2",
       "tensorflow/mobilenet_v2",
       true,
       "tensorflow/mobilenet_v2_signature.json",
       "",
       "",
       "tensorflow/mobilenet_v2_input.f32",
       {1, 224, 224, 3},
       "tensorflow/mobilenet_v2_expected.f32",
       1,
       20},
      {"digits",
       "tensorflow/digits_frozen.pb",
       false,
       "",
       "input:0",
       "logits:0",
       "digits/test_x.f32",
       {1, 64},
       "",
       50,
       40},
  };
}

struct Options {
  std::string fixtures;
  std::string guest = WASINN_BENCH_GUEST_DEFAULT;
  std::string backend_dir = WASINN_BACKEND_DIR_DEFAULT;
  std::vector<int> threads{1, 2};
  std::vector<std::string> models{"mobilenet_v2", "digits"};
  double seconds = 3.0;
  std::string json;
};

// The native tensors of a SavedModel case come from the signature TensorFlow's Python API
// reported when the fixture was made, not from the plugin.
bool native_tensors(const Case& c, const Options& o, std::string* in, std::string* out, std::string* error) {
  if (!c.saved_model) {
    *in = c.native_input;
    *out = c.native_output;
    return true;
  }
  std::ifstream f(fs::path(o.fixtures) / c.signature_file);
  const auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || j["inputs"].size() != 1 || j["outputs"].size() != 1) {
    *error = "cannot read " + c.signature_file;
    return false;
  }
  *in = j["inputs"].begin().value().get<std::string>();
  *out = j["outputs"].begin().value().get<std::string>();
  return true;
}

bool check_outputs(const Case& c, const Options& o, GuestBench& guest, NativeTfSession& native,
                   const fs::path& guest_out, std::string* error) {
  if (!guest.infer(error) || !guest.save_outputs(error) || !native.run(error)) return false;
  auto got = read_bytes(guest_out.string(), error);
  if (!got) return false;
  std::string detail;
  // Same library, graph and threads; a multi-threaded reduction may still round differently.
  if (!f32_close(*got, native.output_bytes(), 1e-6, 1e-5, &detail)) {
    *error = c.name + ": guest and native outputs differ: " + detail;
    return false;
  }
  if (!c.expected_file.empty()) {
    auto want = read_bytes((fs::path(o.fixtures) / c.expected_file).string(), error);
    if (!want) return false;
    if (!f32_close(native.output_bytes(), *want, 1e-4, 1e-4, &detail)) {
      *error = c.name + ": native output is not TensorFlow's (Python) answer: " + detail;
      return false;
    }
  }
  return true;
}

bool run_case(Host& host, const Case& c, int threads, const Options& o, const ScratchDir& scratch, BenchRow* row,
              std::string* error) {
  auto all = read_bytes((fs::path(o.fixtures) / c.input_file).string(), error);
  if (!all) return false;
  size_t bytes = 4;
  for (uint32_t d : c.dims) bytes *= d;
  if (all->size() < bytes) {
    *error = c.input_file + " holds fewer values than the input needs";
    return false;
  }
  all->resize(bytes);
  const fs::path input_file = scratch.path() / (c.name + ".input.f32");
  const fs::path output_file = scratch.path() / (c.name + ".guest.out");
  if (!write_bytes(input_file.string(), *all, error)) return false;

  GuestArgs args;
  if (c.saved_model) {
    args.name = c.name;  // preloaded by main() through its saved_model.pb
  } else {
    args.model_files = {"/fixtures/" + c.model};
    args.encoding = 2;  // witx tensorflow
  }
  args.inputs = {{0, "f32", c.dims, "/scratch/" + input_file.filename().string()}};
  args.outputs = {{0, "/scratch/" + output_file.filename().string()}};
  args.repeat = c.calls_per_sample;
  Program program;
  program.wasm_path = o.guest;
  program.dirs = {{o.fixtures, "/fixtures"}, {scratch.path().string(), "/scratch"}};
  auto guest = GuestBench::start(host, program, args, error);
  if (!guest) return false;

  std::string in, out;
  if (!native_tensors(c, o, &in, &out, error)) return false;
  auto native =
      NativeTfSession::open((fs::path(o.fixtures) / c.model).string(), c.saved_model, in, out, threads, 1, error);
  if (!native || !native->set_input(*all, std::vector<int64_t>(c.dims.begin(), c.dims.end()), error)) return false;
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
  row->backend = "tensorflow";
  row->model = c.name;
  row->threads = threads;
  return compare_interleaved(plan, native_step, guest_step, &row->result, error);
}

void print_markdown(const std::vector<BenchRow>& rows, const Options& o) {
  std::cout << fmt::format(
      "TensorFlow {} (PyPI tensorflow-cpu, C API; inter-op threads 1), Wasmtime {}, wasinn {}; "
      "run {}; {} s of timed samples per side and row.\n\n",
      TF_Version(), WASINN_WASMTIME_VERSION, WASINN_VERSION_STRING, now_utc(), o.seconds);
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
  CLI::App app{"Guest-versus-native benchmark of wasinn's tensorflow backend"};
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
      std::cerr << "bench_tensorflow: unknown model \"" << m << "\" (known: mobilenet_v2, digits)\n";
      return 2;
    }
  ScratchDir scratch;
  if (!scratch.ok()) {
    std::cerr << "bench_tensorflow: cannot create a temporary directory\n";
    return 1;
  }
  std::vector<BenchRow> rows;
  std::string error;
  for (int threads : o.threads) {
    HostOptions h;
    h.backend_dirs = {o.backend_dir};
    h.backend_configs["tensorflow"] = fmt::format(R"({{"intra_op_threads": {}, "inter_op_threads": 1}})", threads);
    for (const auto& c : all)
      if (c.saved_model)
        h.preloads.push_back(c.name +
                             ":tensorflow:cpu:" + (fs::path(o.fixtures) / c.model / "saved_model.pb").string());
    auto host = Host::create(std::move(h), &error);
    if (!host) {
      std::cerr << "bench_tensorflow: " << error << "\n";
      return 1;
    }
    for (const auto& c : all) {
      if (std::find(o.models.begin(), o.models.end(), c.name) == o.models.end()) continue;
      std::cerr << "bench_tensorflow: " << c.name << ", " << threads << " thread(s)...\n";
      BenchRow row;
      if (!run_case(*host, c, threads, o, scratch, &row, &error)) {
        std::cerr << "bench_tensorflow: " << c.name << " with " << threads << " thread(s): " << error << "\n";
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
