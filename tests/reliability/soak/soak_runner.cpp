// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// soak_runner: runs soak_guest.wasm on a wasinn Host for one backend and checks that the host's
// resident memory does not grow over thousands of load/init/set_input/compute/get_output/
// finalize/unload cycles (every cycle's output is checked by the guest).
//
//   soak_runner --backend NAME [--component 1] [--cycles N] [--batch N] [--warmup-percent P]
//               [--max-growth-percent P] [--max-bytes-per-cycle B] [--trace FILE]
//               [--backend-config JSON] [--isolate-loads never|auto|always]
//               [--isolated-load-cache DIR|memory|off] [--leak-bytes-per-cycle B]
//
// --isolate-loads defaults to never: the framework loads in this process, whose memory is what
// is measured. With auto, loads of the backends marked isolate_load first run in a child process
// (wasinn-load-check); the soak then also covers the host side of that (children, pipes, fds).
// --isolated-load-cache defaults to off, so that every load has its child (and nothing is
// written to ~/.cache); memory or a directory soak the remembered-verdict path instead.
// --component 1 (onnxruntime only) runs the WIT component guest wit_cycles instead: resources
// created and dropped through wasi:nn@0.2.0-rc-2024-10-28 (init-execution-context, tensor,
// compute, outputs, drops) in one run, sampled at the "at I" lines it writes every batch.
// --leak-bytes-per-cycle makes the runner itself keep B touched bytes per cycle: the test that
// the limits catch a leak of that size (reliability.soak.catches_*).
// Exit status: 0 when every cycle succeeded and growth stayed within the limits, 1 otherwise,
// 2 for bad arguments. Only this backend's plugin is loaded, so the RSS is its own.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "soak_meter.h"
#include "test_env.h"
#include "wasinn/host.h"

namespace {

using wasinn_it::fixture;

// What one backend's cycle loads and feeds: the same sklearn-digits MLP in every format (the
// fixtures carry bit-identical weights), or llama.cpp's tiny random-weight GGUF with greedy
// sampling so the text is the same every cycle.
struct BackendCase {
  const char* backend;
  std::vector<const char*> model_files;  // relative to the fixture root
  int encoding;                          // witx graph_encoding
  const char* config;                    // extra JSON builder, or nullptr
  const char* prompt;                    // text models; nullptr: digits
};

const std::vector<BackendCase>& cases() {
  static const std::vector<BackendCase> all = {
      {"onnxruntime", {"digits/model.onnx"}, 1, nullptr, nullptr},
      {"openvino", {"digits/openvino/model.xml", "digits/openvino/model.bin"}, 0, nullptr, nullptr},
      {"pytorch", {"digits/model.pt"}, 3, nullptr, nullptr},
      {"tensorflowlite", {"tflite/digits_f32.tflite"}, 4, nullptr, nullptr},
      {"tensorflow", {"tensorflow/digits_frozen.pb"}, 2, nullptr, nullptr},
      {"llamacpp", {"llama/tiny.gguf"}, 6, R"({"temp":0,"n-predict":8,"ctx-size":128})", "Once upon a time"},
  };
  return all;
}

// Digits samples cycled through; the first 16 of the test split, all classified right by the
// trained MLP in every format.
constexpr int kSamples = 16;
constexpr const char* kGuestFixtures = "/fixtures";

struct Options {
  std::string backend;
  uint64_t cycles = 10000;
  uint64_t batch = 0;  // 0: cycles / 100
  double warmup_percent = 10;
  double max_growth_percent = 1.0;  // negative: not checked
  double max_bytes_per_cycle = -1;  // negative: not checked
  std::string trace;
  std::string backend_config;
  std::string isolate_loads = "never";
  std::string isolated_load_cache = "off";
  bool component = false;
  uint64_t leak_bytes_per_cycle = 0;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "soak_runner: %s\nusage: soak_runner --backend NAME [--cycles N] [--batch N] "
               "[--warmup-percent P] [--max-growth-percent P] [--max-bytes-per-cycle B] "
               "[--trace FILE] [--backend-config JSON] [--isolate-loads MODE] [--isolated-load-cache C] "
               "[--leak-bytes-per-cycle B]\n",
               why);
  return 2;
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--backend")
      o->backend = v;
    else if (k == "--cycles")
      o->cycles = std::strtoull(v, nullptr, 10);
    else if (k == "--batch")
      o->batch = std::strtoull(v, nullptr, 10);
    else if (k == "--warmup-percent")
      o->warmup_percent = std::atof(v);
    else if (k == "--max-growth-percent")
      o->max_growth_percent = std::atof(v);
    else if (k == "--max-bytes-per-cycle")
      o->max_bytes_per_cycle = std::atof(v);
    else if (k == "--trace")
      o->trace = v;
    else if (k == "--backend-config")
      o->backend_config = v;
    else if (k == "--isolate-loads")
      o->isolate_loads = v;
    else if (k == "--isolated-load-cache")
      o->isolated_load_cache = v;
    else if (k == "--leak-bytes-per-cycle")
      o->leak_bytes_per_cycle = std::strtoull(v, nullptr, 10);
    else if (k == "--component")
      o->component = std::string(v) == "1";
    else
      return false;
  }
  if (argc % 2 == 0 || o->backend.empty() || o->cycles == 0) return false;
  if (o->batch == 0) o->batch = o->cycles >= 100 ? o->cycles / 100 : 1;
  return o->cycles % o->batch == 0;
}

std::vector<std::string> guest_args(const BackendCase& c, uint64_t batch) {
  std::string models;
  for (const char* f : c.model_files) {
    fixture(f);  // throws with a hint when the fixture is missing
    if (!models.empty()) models += ',';
    models += std::string(kGuestFixtures) + "/" + f;
  }
  std::vector<std::string> args{
      "--model", models, "--encoding", std::to_string(c.encoding), "--batch", std::to_string(batch)};
  if (c.config) args.insert(args.end(), {"--config", c.config});
  if (c.prompt) {
    args.insert(args.end(), {"--prompt", c.prompt});
  } else {
    fixture("digits/test_x.f32");
    fixture("digits/test_y.u8");
    args.insert(args.end(),
                {"--digits", std::string(kGuestFixtures) + "/digits/test_x.f32," + kGuestFixtures + "/digits/test_y.u8",
                 "--samples", std::to_string(kSamples)});
  }
  return args;
}

// ONNX Runtime 1.29's telemetry queues an event per session in a SQLite cache it keeps mapped
// (~/.cache/Microsoft/DeveloperTools/.onnxruntime/onnxruntime.db-shm); the plugin turns it off.
bool ort_telemetry_cache_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/.onnxruntime/onnxruntime.db") != std::string::npos) return true;
  return false;
}

bool call(wasinn::Instance& instance, const char* name, std::string* error) {
  int32_t code = 0;
  if (!instance.call(name, &code, error)) return false;
  if (code != 0) *error = std::string(name) + " returned " + std::to_string(code) + " (see the guest's stderr)";
  return code == 0;
}

// The witx soak: soak_guest's soak_batch export called batch after batch.
bool run_module_cycles(wasinn::Host& host, const Options& o, const BackendCase& c, wasinn_soak::SoakMeter& meter) {
  std::string error;
  wasinn::Program program;
  program.wasm_path = wasinn_it::guest("soak_guest");
  program.args = guest_args(c, o.batch);
  program.dirs = {{fixture(".").string(), kGuestFixtures}};
  auto instance = host.instantiate(program, &error);
  // A reactor's _initialize runs the C constructors (stdio, environ) before any other export.
  if (!instance || !call(*instance, "_initialize", &error) || !call(*instance, "soak_setup", &error))
    return std::fprintf(stderr, "soak_runner: %s: %s\n", o.backend.c_str(), error.c_str()), false;

  std::vector<std::vector<char>> leaked;  // --leak-bytes-per-cycle's, kept to the end of the run
  for (uint64_t done = 0; done < o.cycles;) {
    if (!call(*instance, "soak_batch", &error)) {
      std::fprintf(stderr, "soak_runner: %s: after %llu cycles: %s\n", o.backend.c_str(),
                   static_cast<unsigned long long>(done), error.c_str());
      return false;
    }
    done += o.batch;
    if (o.leak_bytes_per_cycle) leaked.emplace_back(o.leak_bytes_per_cycle * o.batch, '\1');  // touched: resident
    meter.record(done);
  }
  return true;
}

// The WIT soak: one run of wit_cycles, sampled on the guest's thread at each "at I" line.
bool run_component_cycles(wasinn::Host& host, const Options& o, wasinn_soak::SoakMeter& meter) {
  wasinn::Program program;
  program.wasm_path = (std::filesystem::path(WASINN_GUEST_DIR) / "wit_cycles.component.wasm").string();
  program.args = {"--rss-every", std::to_string(o.batch), std::string(kGuestFixtures) + "/digits/model.onnx",
                  std::string(kGuestFixtures) + "/digits/test_x.f32", std::to_string(o.cycles)};
  program.dirs = {{fixture(".").string(), kGuestFixtures}};
  std::string err_text, line;
  program.on_stderr = [&](std::string_view bytes) {
    for (char ch : bytes) {
      if (ch != '\n') {
        line += ch;
        continue;
      }
      if (line.rfind("at ", 0) == 0)
        meter.record(std::strtoull(line.c_str() + 3, nullptr, 10));
      else
        err_text += line + "\n";
      line.clear();
    }
  };
  std::string out;
  program.on_stdout = [&](std::string_view bytes) { out.append(bytes); };
  const wasinn::RunOutcome r = host.run(program);
  const std::string expected = "cycles " + std::to_string(o.cycles) + " class ";
  if (r.exit_code != 0 || out.rfind(expected, 0) != 0) {
    std::fprintf(stderr, "soak_runner: wit_cycles: exit %d %s\n%s%s\n", r.exit_code, r.message.c_str(), out.c_str(),
                 err_text.c_str());
    return false;
  }
  return true;
}

int run(const Options& o) {
  const BackendCase* c = nullptr;
  for (const auto& k : cases())
    if (o.backend == k.backend) c = &k;
  if (!c) return usage(("unknown backend " + o.backend).c_str());

  setenv("TF_CPP_MIN_LOG_LEVEL", "2", 0);  // TensorFlow's info lines would bury the progress
  wasinn::HostOptions host_options;
  host_options.backend_dirs = {wasinn_it::backend_dir().string()};
  if (!o.backend_config.empty()) host_options.backend_configs[o.backend] = o.backend_config;
  host_options.isolate_loads = o.isolate_loads;
  host_options.isolated_load_cache = o.isolated_load_cache;
  std::string error;
  auto host = wasinn::Host::create(host_options, &error);
  if (!host) return std::fprintf(stderr, "soak_runner: %s\n", error.c_str()), 1;

  std::FILE* trace = o.trace.empty() ? nullptr : std::fopen(o.trace.c_str(), "w");
  if (!o.trace.empty() && !trace) return usage(("cannot write " + o.trace).c_str());
  wasinn_soak::SoakMeter meter(o.backend, o.cycles, o.warmup_percent, trace);
  meter.record(0);
  if (o.component) {
    if (o.backend != "onnxruntime") return usage("--component runs the ONNX digits model: --backend onnxruntime");
    if (!run_component_cycles(*host, o, meter)) return 1;
  } else if (!run_module_cycles(*host, o, *c, meter)) {
    return 1;
  }
  if (trace) std::fclose(trace);

  const auto f = meter.figures();
  std::printf("%s\n", wasinn_soak::SoakMeter::describe(o.backend, f).c_str());
  bool ok = true;
  if (o.max_growth_percent >= 0 && f.growth_percent > o.max_growth_percent) {
    std::fprintf(stderr, "soak_runner: %s: RSS grew %.3f%% after the warm-up, over the %.3f%% limit\n",
                 o.backend.c_str(), f.growth_percent, o.max_growth_percent);
    ok = false;
  }
  if (o.max_bytes_per_cycle >= 0 && f.bytes_per_cycle > o.max_bytes_per_cycle) {
    std::fprintf(stderr, "soak_runner: %s: RSS grew %.1f bytes per cycle after the warm-up, over the %.1f limit\n",
                 o.backend.c_str(), f.bytes_per_cycle, o.max_bytes_per_cycle);
    ok = false;
  }
  // A pool may still grow to its bound (one worker per core) after the warm-up; a leak grows past it.
  const uint64_t pool_slack = std::max(1u, std::thread::hardware_concurrency());
  if (f.final_fds > f.warmup_fds || f.final_threads > f.warmup_threads + pool_slack) {
    std::fprintf(stderr, "soak_runner: %s: open files %llu -> %llu, threads %llu -> %llu after the warm-up\n",
                 o.backend.c_str(), (unsigned long long)f.warmup_fds, (unsigned long long)f.final_fds,
                 (unsigned long long)f.warmup_threads, (unsigned long long)f.final_threads);
    ok = false;
  }
  if (ort_telemetry_cache_mapped()) {
    std::fprintf(stderr, "soak_runner: %s: ONNX Runtime's telemetry event cache is open in the host\n",
                 o.backend.c_str());
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  wasinn_soak::hold_malloc_thresholds();
  Options o;
  if (!parse(argc, argv, &o)) return usage("bad arguments (cycles must be a multiple of batch)");
  try {
    return run(o);
  } catch (const std::exception& e) {  // a missing fixture
    std::fprintf(stderr, "soak_runner: %s\n", e.what());
    return 1;
  }
}
