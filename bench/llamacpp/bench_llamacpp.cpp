// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_llamacpp: a wasm guest on wasinn's llama.cpp plugin versus native llama.cpp, on the
// largest fixture model (llama/bench.gguf), with the same threads and context parameters.
//
//   bench_llamacpp [--fixtures DIR] [--threads N...] [--pp TOKENS] [--gen TOKENS] [--seconds S]
//                  [--json FILE] [--gpu]
// For each thread count, and each order of making the two llama.cpp contexts: first a
// correctness check (the guest's greedy answer must equal native llama.cpp's, byte for byte),
// then, interleaving native and guest samples (bench/common/interleaved_timing.h):
//   prompt processing: tokenize + evaluate a prompt of --pp tokens + sample one token;
//   token generation: --gen decode-and-sample steps from a BOS-only prompt, per token.
// Then the resident memory (VmRSS) of a process holding one graph with one and with two
// contexts that have each generated, guest and native, each from a fresh child process (this
// program with --rss-child). Prints a Markdown section (scripts/bench.sh puts it into
// docs/benchmarks.md) and exits non-zero if a side fails or the answers differ.
// --gpu: both sides run every layer on ggml's GPU device (Vulkan; Mesa's lavapipe needs
// GGML_VK_VISIBLE_DEVICES=0), the guest's model loaded with target gpu, so the ratio is the
// host's per-token overhead on the GPU path; a further table times native llama.cpp on the CPU
// against native on the GPU device, in the same run; no memory figures.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "interleaved_timing.h"
#include "native_llama.h"
#include "wasinn/host.h"

namespace {

using wasinn::bench::Comparison;
constexpr double kTargetRatio = 0.98;  // the target: guest throughput / native

struct Options {
  std::string fixtures = WASINN_FIXTURES_DEFAULT;
  std::vector<int> threads = {1, 2};
  int pp = 256;
  int gen = 16;
  double seconds = 8.0;
  std::string json;
  std::string rss_child;  // "guest" or "native": measure memory and print it
  int contexts = 1;
  bool gpu = false;
};

std::string model_path(const Options& o) { return o.fixtures + "/llama/bench.gguf"; }

std::string config_json(int threads, int gen) {
  return fmt::format(
      "{{\"temp\": 0, \"ctx-size\": 1024, \"batch-size\": 512, \"ubatch-size\": 512, \"threads\": {}, "
      "\"n-predict\": {}}}",
      threads, gen);
}

// A prompt of at least `tokens` tokens: repeated English text.
std::string make_prompt(const llama_bench::NativeLlama& native, int tokens) {
  std::string text;
  while (native.count_tokens(text) < static_cast<size_t>(tokens))
    text += "The quick brown fox jumps over the lazy dog. ";
  return text;
}

std::string to_hex(const std::string& s) {
  std::string h;
  for (unsigned char c : s) h += fmt::format("{:02x}", c);
  return h;
}

size_t resident_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  }
  return 0;
}

// The guest: bench_llama.wasm as a reactor on a Host that preloads the model as "bench".
struct Guest {
  std::unique_ptr<wasinn::Host> host;
  std::unique_ptr<wasinn::Instance> instance;

  bool call(const std::string& fn, std::string* error) {
    int32_t rc = 0;
    if (!instance->call(fn, &rc, error)) return false;
    if (rc != 0)
      *error = fn + " returned " +
               (rc == 210 ? "210 (its answer differs from native llama.cpp's)" : "wasi-nn errno " + std::to_string(rc));
    return rc == 0;
  }
};

std::unique_ptr<Guest> start_guest(const Options& o, int threads, const std::string& prompt, const std::string& expect,
                                   int contexts, std::string* error) {
  auto g = std::make_unique<Guest>();
  wasinn::HostOptions ho;
  ho.backend_dirs = {WASINN_BACKEND_DIR};
  ho.preloads = {std::string(o.gpu ? "bench:GGML:GPU:" : "bench:GGML:CPU:") + model_path(o)};
  g->host = wasinn::Host::create(ho, error);
  if (!g->host) return nullptr;
  wasinn::Program p;
  p.wasm_path = std::string(WASINN_GUEST_DIR) + "/bench_llama.wasm";
  p.args = {"--name",     "bench",
            "--config",   config_json(threads, o.gen),
            "--prompt",   prompt,
            "--gen",      std::to_string(o.gen),
            "--contexts", std::to_string(contexts)};
  if (!expect.empty()) p.args.insert(p.args.end(), {"--expect", to_hex(expect)});
  g->instance = g->host->instantiate(p, error);
  if (!g->instance || !g->call("_initialize", error) || !g->call("bench_setup", error)) return nullptr;
  return g;
}

llama_bench::NativeOptions native_options(const Options& o, int threads) {
  llama_bench::NativeOptions n;
  n.model = model_path(o);
  n.threads = threads;
  n.gen = o.gen;
  n.gpu = o.gpu;
  return n;
}

// Child mode: load, make `contexts` contexts, generate on each, print VmRSS in bytes.
int rss_child(const Options& o) {
  std::string error;
  const int threads = o.threads.front();
  std::string prompt;
  {
    auto counter = llama_bench::NativeLlama::open(native_options(o, threads), 0, &error);
    if (!counter) return fmt::print(stderr, "{}\n", error), 1;
    prompt = make_prompt(*counter, 64);
  }
  std::unique_ptr<llama_bench::NativeLlama> native;
  std::unique_ptr<Guest> guest;
  if (o.rss_child == "native") {
    native = llama_bench::NativeLlama::open(native_options(o, threads), o.contexts, &error);
    if (!native || !native->touch(prompt, &error)) return fmt::print(stderr, "{}\n", error), 1;
  } else {
    guest = start_guest(o, threads, prompt, "", o.contexts, &error);
    if (!guest || !guest->call("bench_touch", &error)) return fmt::print(stderr, "{}\n", error), 1;
  }
  fmt::print("{}\n", resident_bytes());
  return 0;
}

// Runs this program as a child to measure one memory figure (bytes; 0 if it failed).
size_t measure_rss(const Options& o, const char* side, int contexts) {
  const std::string cmd = fmt::format("/proc/{}/exe --fixtures '{}' --threads 1 --gen {} --rss-child {} --contexts {}",
                                      getpid(), o.fixtures, o.gen, side, contexts);
  FILE* p = popen(cmd.c_str(), "r");
  size_t bytes = 0;
  if (!p || fscanf(p, "%zu", &bytes) != 1) bytes = 0;
  if (p) pclose(p);
  return bytes;
}

struct Row {
  std::string measure;
  int threads;
  bool native_first;  // whose llama_context was made first
  Comparison c;
  double tokens_per_sample;
  double native_tps() const { return tokens_per_sample / (c.native.median_us * 1e-6); }
  double guest_tps() const { return tokens_per_sample / (c.guest.median_us * 1e-6); }
  // Throughput ratio = native time / guest time, so its interval is the time ratio's inverted.
  double ratio() const { return guest_tps() / native_tps(); }
  double low() const { return 1.0 / c.ratio_95.high; }
  double high() const { return 1.0 / c.ratio_95.low; }
};

// The two orders of one measure and thread count: their geometric mean, and the lowest bound.
std::string verdict(const Row& a, const Row& b) {
  const double mean = std::sqrt(a.ratio() * b.ratio());
  const double low = std::min(a.low(), b.low());
  std::string v = low >= kTargetRatio    ? "met"
                  : mean >= kTargetRatio ? fmt::format("met by the mean, but an interval reaches {:.3f}", low)
                                         : "not met";
  return fmt::format(
      "- {}, {} thread(s): ratio {:.3f} (native first) and {:.3f} (guest first), geometric mean "
      "{:.3f}; target at least {:.2f}: {}.\n",
      a.measure, a.threads, a.ratio(), b.ratio(), mean, kTargetRatio, v);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"wasm guest on wasinn's llama.cpp plugin versus native llama.cpp"};
  app.add_option("--fixtures", o.fixtures, "fixtures directory (llama/bench.gguf)");
  app.add_option("--threads", o.threads, "llama.cpp threads, the same on both sides; one row each");
  app.add_option("--pp", o.pp, "prompt tokens for prompt processing");
  app.add_option("--gen", o.gen, "tokens per generation sample");
  app.add_option("--seconds", o.seconds, "timed seconds per side and row");
  app.add_option("--json", o.json, "also write the results as JSON to this file");
  app.add_flag("--gpu", o.gpu, "both sides on ggml's GPU device (target gpu), and native CPU versus native GPU");
  app.add_option("--rss-child", o.rss_child, "internal: measure resident memory for guest|native")->group("");
  app.add_option("--contexts", o.contexts, "internal: contexts for --rss-child")->group("");
  CLI11_PARSE(app, argc, argv);
  if (!o.rss_child.empty()) return rss_child(o);

  std::vector<Row> rows, controls, devices;
  size_t prompt_tokens = 0;
  for (int threads : o.threads) {
    // Identical llama.cpp contexts in one process differ by a few percent in speed depending on
    // where their buffers land (the context made first was often faster): measure both orders.
    for (bool native_first : {true, false}) {
      std::string error, prompt, expected;
      std::unique_ptr<llama_bench::NativeLlama> native;
      std::unique_ptr<Guest> guest;
      auto open_native = [&] {
        native = llama_bench::NativeLlama::open(native_options(o, threads), 1, &error);
        if (!native) return false;
        prompt = make_prompt(*native, o.pp);
        prompt_tokens = native->count_tokens(prompt);
        expected = native->greedy_text(prompt, &error);
        return !expected.empty();
      };
      // The guest needs the prompt and the native answer first: it loads, then makes its
      // context in bench_check's first compute, after or before native's as the order says.
      if (!open_native()) return fmt::print(stderr, "bench_llamacpp: native: {}\n", error), 1;
      if (!native_first) {
        native.reset();
        guest = start_guest(o, threads, prompt, expected, 1, &error);
        if (!guest || !guest->call("bench_check", &error) || !open_native()) {
          return fmt::print(stderr, "bench_llamacpp: {}\n", error), 1;
        }
      } else {
        guest = start_guest(o, threads, prompt, expected, 1, &error);
        if (!guest || !guest->call("bench_check", &error))
          return fmt::print(stderr, "bench_llamacpp: guest: {}\n", error), 1;
      }
      wasinn::bench::TimingPlan plan;
      plan.seconds_per_side = o.seconds / 2;  // two orders share the budget of a row
      plan.block_seconds = 0.5;
      plan.min_samples = 20;
      plan.warmup_samples = 2;
      wasinn::bench::TimingPlan tg_plan = plan;
      tg_plan.calls_per_sample = static_cast<uint32_t>(o.gen);  // times per generated token
      Comparison pp, tg;
      if (!wasinn::bench::compare_interleaved(
              plan, [&](std::string* e) { return native->pp(prompt, e); },
              [&](std::string* e) { return guest->call("bench_pp", e); }, &pp, &error) ||
          !wasinn::bench::compare_interleaved(
              tg_plan, [&](std::string* e) { return native->tg(e); },
              [&](std::string* e) { return guest->call("bench_tg", e); }, &tg, &error)) {
        return fmt::print(stderr, "bench_llamacpp: {}\n", error), 1;
      }
      rows.push_back({"prompt processing", threads, native_first, pp, static_cast<double>(prompt_tokens)});
      rows.push_back({"token generation", threads, native_first, tg, 1.0});
      if (!native_first) continue;
      if (o.gpu) {
        // Native on the CPU ("native" column) against native on the GPU device ("guest" column).
        llama_bench::NativeOptions on_cpu = native_options(o, threads);
        on_cpu.gpu = false;
        auto cpu = llama_bench::NativeLlama::open(on_cpu, 1, &error);
        Comparison dpp, dtg;
        if (!cpu || cpu->greedy_text(prompt, &error) != expected ||
            !wasinn::bench::compare_interleaved(
                plan, [&](std::string* e) { return cpu->pp(prompt, e); },
                [&](std::string* e) { return native->pp(prompt, e); }, &dpp, &error) ||
            !wasinn::bench::compare_interleaved(
                tg_plan, [&](std::string* e) { return cpu->tg(e); }, [&](std::string* e) { return native->tg(e); },
                &dtg, &error)) {
          return fmt::print(stderr, "bench_llamacpp: native CPU vs GPU: {}\n",
                            error.empty() ? "the CPU's answer differs" : error),
                 1;
        }
        devices.push_back({"prompt processing", threads, true, dpp, static_cast<double>(prompt_tokens)});
        devices.push_back({"token generation", threads, true, dtg, 1.0});
      }
      // Control: the same generation on a second native model and context, made last. Its
      // "guest" column is that native copy, so the row shows how far two identical native
      // contexts differ in this run: the noise floor for the rows above.
      auto twin = llama_bench::NativeLlama::open(native_options(o, threads), 1, &error);
      Comparison control;
      if (!twin || !wasinn::bench::compare_interleaved(
                       tg_plan, [&](std::string* e) { return native->tg(e); },
                       [&](std::string* e) { return twin->tg(e); }, &control, &error)) {
        return fmt::print(stderr, "bench_llamacpp: control: {}\n", error), 1;
      }
      controls.push_back({"token generation, control: a second native context", threads, true, control, 1.0});
    }
  }
  size_t rss[2][2] = {};
  if (!o.gpu) {
    rss[0][0] = measure_rss(o, "native", 1), rss[0][1] = measure_rss(o, "native", 2);
    rss[1][0] = measure_rss(o, "guest", 1), rss[1][1] = measure_rss(o, "guest", 2);
  }

  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  fmt::print(
      "{}, llama/bench.gguf (n_embd 512, 8 layers, f16, 118 MB){}; run {}; {} s of timed samples per side "
      "and row; prompt {} tokens, generation {} tokens per sample. Before timing, the guest's greedy "
      "answer equalled native llama.cpp's.\n\n",
      "llama.cpp b" WASINN_LLAMA_BUILD_STR, o.gpu ? ", every layer on the GPU device (both sides)" : "", date,
      o.seconds, prompt_tokens, o.gen);
  fmt::print(
      "| measure | threads | made first | native tokens/s | guest tokens/s | guest/native (95% CI) | samples "
      "per side |\n");
  fmt::print("|---|---:|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    fmt::print("| {} | {} | {} | {:.1f} | {:.1f} | {:.3f} ({:.3f}–{:.3f}) | {} |\n", r.measure, r.threads,
               r.native_first ? "native" : "guest", r.native_tps(), r.guest_tps(), r.ratio(), r.low(), r.high(),
               r.c.native.samples);
  }
  for (const Row& r : controls) {
    fmt::print("| {} | {} | native | {:.1f} | {:.1f} (second native) | {:.3f} ({:.3f}–{:.3f}) | {} |\n", r.measure,
               r.threads, r.native_tps(), r.guest_tps(), r.ratio(), r.low(), r.high(), r.c.native.samples);
  }
  fmt::print("\n");
  // rows hold, per thread count: pp native-first, tg native-first, pp guest-first, tg guest-first.
  for (size_t i = 0; i + 3 < rows.size(); i += 4) {
    fmt::print("{}", verdict(rows[i], rows[i + 2]));
    fmt::print("{}", verdict(rows[i + 1], rows[i + 3]));
  }
  if (o.gpu) {
    fmt::print(
        "\nThe same model on the CPU backend and on the GPU device, native llama.cpp on both, interleaved in "
        "this run (the CPU's greedy answer equalled the GPU's):\n\n");
    fmt::print("| measure | threads | CPU tokens/s | GPU tokens/s | GPU/CPU (95% CI) |\n|---|---:|---:|---:|---:|\n");
    for (const Row& r : devices) {
      fmt::print("| {} | {} | {:.1f} | {:.1f} | {:.3f} ({:.3f}–{:.3f}) |\n", r.measure, r.threads, r.native_tps(),
                 r.guest_tps(), r.ratio(), r.low(), r.high());
    }
  }
  const double mib = 1024.0 * 1024.0;
  if (!o.gpu) {
    fmt::print(
        "\n| resident memory (VmRSS), 1 thread | one graph, 1 context | one graph, 2 contexts | the second context "
        "costs |\n|---|---:|---:|---:|\n");
    const char* sides[2] = {"native llama.cpp", "guest"};
    for (int s = 0; s < 2; ++s) {
      fmt::print("| {} | {:.1f} MiB | {:.1f} MiB | {:.1f} MiB |\n", sides[s], rss[s][0] / mib, rss[s][1] / mib,
                 (double(rss[s][1]) - double(rss[s][0])) / mib);
    }
    fmt::print(
        "\nThe model file is 118 MB; a second context adds its KV cache (1024 tokens × 8 layers × 512 × "
        "K and V in f16 = 16 MiB) and compute buffers, not another copy of the weights.\n");
  }

  if (!o.json.empty()) {
    nlohmann::json j = {{"model", "llama/bench.gguf"}, {"prompt_tokens", prompt_tokens}, {"gen_tokens", o.gen}};
    for (const Row& r : rows) {
      j["rows"].push_back({{"measure", r.measure},
                           {"threads", r.threads},
                           {"native_first", r.native_first},
                           {"native_tokens_per_s", r.native_tps()},
                           {"guest_tokens_per_s", r.guest_tps()},
                           {"ratio", r.ratio()},
                           {"ratio_95", {r.low(), r.high()}},
                           {"samples", r.c.native.samples}});
    }
    for (const Row& r : controls) {
      j["controls"].push_back({{"measure", r.measure},
                               {"threads", r.threads},
                               {"first_tokens_per_s", r.native_tps()},
                               {"second_tokens_per_s", r.guest_tps()},
                               {"ratio", r.ratio()},
                               {"ratio_95", {r.low(), r.high()}}});
    }
    for (const Row& r : devices) {
      j["cpu_vs_gpu"].push_back({{"measure", r.measure},
                                 {"threads", r.threads},
                                 {"cpu_tokens_per_s", r.native_tps()},
                                 {"gpu_tokens_per_s", r.guest_tps()},
                                 {"ratio", r.ratio()},
                                 {"ratio_95", {r.low(), r.high()}}});
    }
    if (!o.gpu) j["resident_memory_bytes"] = {{"native", {rss[0][0], rss[0][1]}}, {"guest", {rss[1][0], rss[1][1]}}};
    std::ofstream(o.json) << j.dump(2) << "\n";
  }
  for (int s = 0; s < 2 && !o.gpu; ++s) {
    if (rss[s][0] == 0 || rss[s][1] == 0) return fmt::print(stderr, "bench_llamacpp: a memory measurement failed\n"), 1;
  }
  return 0;
}
