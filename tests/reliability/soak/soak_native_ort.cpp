// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// soak_native_ort: the soak cycle of soak_guest.c done with ONNX Runtime directly in this
// process, no wasm and no wasinn: the reference that tells whether RSS growth seen through
// wasinn is ours or ONNX Runtime's (with glibc's allocator) own.
//
//   soak_native_ort [--cycles N] [--batch N] [--warmup-percent P] [--trace FILE]
//                   [--no-cpu-arena] [--no-mem-pattern] [--trim] [--no-telemetry] [--threads N]
//
// Each cycle: session options + session from the model bytes, input tensor, Run, argmax check,
// release everything. --no-telemetry turns ONNX Runtime's telemetry off as the plugin does;
// --no-cpu-arena / --no-mem-pattern turn those session options off; --trim calls
// malloc_trim(0) after each session is released; --threads sets the intra-op threads.
#include <malloc.h>
#include <onnxruntime_cxx_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "soak_meter.h"
#include "test_env.h"

namespace {

constexpr int kSamples = 16;  // as soak_runner: the first 16 digits of the test split
constexpr int kFeatures = 64;
constexpr int kClasses = 10;

struct Options {
  uint64_t cycles = 10000;
  uint64_t batch = 0;
  double warmup_percent = 10;
  std::string trace;
  bool cpu_arena = true;
  bool mem_pattern = true;
  bool trim = false;
  bool telemetry = true;
  int threads = 0;  // intra-op threads; 0: ORT's default, as the plugin
};

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--no-cpu-arena")
      o->cpu_arena = false;
    else if (k == "--no-mem-pattern")
      o->mem_pattern = false;
    else if (k == "--trim")
      o->trim = true;
    else if (k == "--no-telemetry")
      o->telemetry = false;
    else if (i + 1 >= argc)
      return false;
    else if (k == "--cycles")
      o->cycles = std::strtoull(argv[++i], nullptr, 10);
    else if (k == "--batch")
      o->batch = std::strtoull(argv[++i], nullptr, 10);
    else if (k == "--warmup-percent")
      o->warmup_percent = std::atof(argv[++i]);
    else if (k == "--trace")
      o->trace = argv[++i];
    else if (k == "--threads")
      o->threads = std::atoi(argv[++i]);
    else
      return false;
  }
  if (o->cycles == 0) return false;
  if (o->batch == 0) o->batch = o->cycles >= 100 ? o->cycles / 100 : 1;
  return o->cycles % o->batch == 0;
}

// One cycle; false (with a message) when the output is wrong.
bool one_cycle(Ort::Env& env, const Options& o, const std::vector<uint8_t>& model, const float* x,
               const uint8_t* labels, uint64_t cycle) {
  {
    Ort::SessionOptions so;
    so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);  // as the plugin
    if (!o.cpu_arena) so.DisableCpuMemArena();
    if (!o.mem_pattern) so.DisableMemPattern();
    if (o.threads) so.SetIntraOpNumThreads(o.threads);
    Ort::Session session(env, model.data(), model.size(), so);
    const int sample = static_cast<int>(cycle % kSamples);
    std::vector<float> input(x + sample * kFeatures, x + (sample + 1) * kFeatures);
    const int64_t dims[2] = {1, kFeatures};
    auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    Ort::Value in = Ort::Value::CreateTensor<float>(mem, input.data(), input.size(), dims, 2);
    const char* in_name = "input";
    const char* out_name = "logits";
    auto out = session.Run(Ort::RunOptions{nullptr}, &in_name, &in, 1, &out_name, 1);
    const float* logits = out[0].GetTensorData<float>();
    int best = 0;
    for (int k = 1; k < kClasses; ++k)
      if (logits[k] > logits[best]) best = k;
    if (best != labels[sample]) {
      std::fprintf(stderr, "soak_native_ort: cycle %llu: sample %d: argmax %d, label %d\n",
                   static_cast<unsigned long long>(cycle), sample, best, labels[sample]);
      return false;
    }
  }
  if (o.trim) malloc_trim(0);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  wasinn_soak::hold_malloc_thresholds();
  Options o;
  if (!parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: soak_native_ort [--cycles N] [--batch N] [--warmup-percent P] [--trace FILE] "
                 "[--no-cpu-arena] [--no-mem-pattern] [--trim] [--no-telemetry] [--threads N]\n");
    return 2;
  }
  try {
    const auto model = wasinn_it::read_bytes(wasinn_it::fixture("digits/model.onnx"));
    const auto x = wasinn_it::read_array<float>(wasinn_it::fixture("digits/test_x.f32"));
    const auto y = wasinn_it::read_bytes(wasinn_it::fixture("digits/test_y.u8"));
    if (x.size() < kSamples * kFeatures || y.size() < kSamples) throw std::runtime_error("short digits fixture");
    // --no-telemetry does what the plugin does (backends/onnxruntime/ort_backend.cpp).
    if (!o.telemetry) setenv("ORT_DISABLE_TELEMETRY", "1", 0);
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "soak");  // as the plugin: one env for the process
    if (!o.telemetry) env.DisableTelemetryEvents();

    std::FILE* trace = o.trace.empty() ? nullptr : std::fopen(o.trace.c_str(), "w");
    std::string label = "native-ort";
    if (!o.cpu_arena) label += " no-arena";
    if (!o.mem_pattern) label += " no-mem-pattern";
    if (o.trim) label += " trim";
    if (!o.telemetry) label += " no-telemetry";
    if (o.threads) label += " threads=" + std::to_string(o.threads);
    wasinn_soak::SoakMeter meter(label, o.cycles, o.warmup_percent, trace);
    meter.record(0);
    for (uint64_t done = 0; done < o.cycles;) {
      for (uint64_t i = 0; i < o.batch; ++i, ++done)
        if (!one_cycle(env, o, model, x.data(), y.data(), done)) return 1;
      meter.record(done);
    }
    if (trace) std::fclose(trace);
    std::printf("%s\n", wasinn_soak::SoakMeter::describe(label, meter.figures()).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak_native_ort: %s\n", e.what());
    return 1;
  }
}
