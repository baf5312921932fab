// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ABI fuzz world over the unit tests' fake backend plugins (tests/unit/fake_backend): the
// host's ABI and core logic at full speed, with small limits so every limit path is reachable.
#include <dlfcn.h>

#include <cstring>
#include <string_view>

#include "abi_world.h"
#include "fake_backend/fake_control.h"
#include "guest_structures.h"

namespace wasinn::fuzz {
namespace {

// Named models: files holding fake model texts, written by tests/fuzz/CMakeLists.txt.
constexpr std::string_view kNamed[] = {"add1", "echo", "stream", "describe"};

// "fake:block" waits at a gate only the unit tests open: the fuzzer must not hang on it.
void defuse_block(FuzzGuest& g) {
  static constexpr std::string_view kBlock = "fake:block";
  uint8_t* p = g.data();
  uint8_t* const end = p + g.size();
  while ((p = static_cast<uint8_t*>(memmem(p, end - p, kBlock.data(), kBlock.size())))) p[5] = '_';
}

fake_get_stats_fn stats_fn() {
  // The very file the catalog dlopens, so these are the counters of the plugin the host uses.
  static const fake_get_stats_fn fn = [] {
    void* h = dlopen(WASINN_FUZZ_FAKE_LIB, RTLD_NOW | RTLD_LOCAL);
    auto* f = h ? reinterpret_cast<fake_get_stats_fn>(dlsym(h, FAKE_GET_STATS_SYMBOL)) : nullptr;
    if (!f) invariant_failed("setup", "cannot dlopen the fake plugin's control surface");
    return f;
  }();
  return fn;
}

// A session's graphs and contexts die with it; only the registry's default-config named
// graphs may outlive it.
void check_plugin_objects() {
  const fake_stats s = stats_fn()();
  if (s.live_contexts != 0) invariant_failed("session end", "a fake context outlived its session");
  if (s.live_graphs > static_cast<int64_t>(std::size(kNamed))) {
    invariant_failed("session end", "fake graphs outlived their session beyond the named models");
  }
  if (s.calls_past_struct != 0) invariant_failed("session end", "the host called past a plugin's struct_size");
}

template <class T>
std::span<const uint8_t> bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}
std::span<const uint8_t> bytes_of(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

GuestLayout make_layout() {
  GuestLayout l(12 * 1024);
  named_builders(l, {"fake:add1"}, "builders", "legacy_builders");
  named_builders(l, {"fake:echo"});
  named_builders(l, {"fake:stream:a,b,c"}, "stream_builders");
  named_builders(l, {"fake:describe_load", "second builder", "{\"config\":1}"});
  named_builders(l, {"fake:fail_compute"});
  named_builders(l, {"fake:bad_output"});
  named_builders(l, {"fake:fail_context"});
  named_builders(l, {"fake:fail_load"});
  named_builders(l, {"GGUF not really"});
  const std::vector<float> four{1, 2, 3, 4}, eight{1, 2, 3, 4, 5, 6, 7, 8};
  witx_tensor(l, {1, 4}, 1, bytes_of(four), 4, "tensor");
  witx_tensor(l, {2, 4}, 1, bytes_of(eight));
  witx_tensor(l, {5}, 2, bytes_of(std::string_view("hello")));
  witx_tensor(l, {}, 1, bytes_of(std::vector<float>{7}), 1, "tensor_rank0");  // dims at an odd address
  witx_tensor(l, {2}, 5, bytes_of(std::vector<int64_t>{1, 2}));
  witx_tensor(l, {4}, 3, bytes_of(std::vector<int32_t>{1, 2, 3, 4}));
  witx_tensor(l, {1, 4}, 1, bytes_of(four), 1);
  legacy_tensor(l, {1, 4}, 1, bytes_of(four), 4, "legacy_tensor");
  legacy_tensor(l, {5}, 2, bytes_of(std::string_view("hello")));
  legacy_tensor(l, {}, 1, bytes_of(std::vector<float>{7}), 1, "legacy_tensor_rank0");
  for (std::string_view n : kNamed) named_text(l, n, n == kNamed[0] ? "name" : nullptr);
  named_text(l, "missing");
  named_text(l, "ggml_missing");
  named_text(l, "{\"n_predict\":3}", "config");
  named_text(l, "{");
  named_buffer(l, 4, 0xDEADBEEF, "slot");  // out-pointer slots
  named_buffer(l, 4, 0xDEADBEEF, "slot2");
  for (int i = 0; i < 2; ++i) named_buffer(l, 4, 0xDEADBEEF);
  named_buffer(l, 4, 4, "legacy_capacity");  // legacy capacity: 4 f32
  named_buffer(l, 4, 64);
  named_buffer(l, 16);
  named_buffer(l, 256, 0, "output");
  // Property names and a value (wasinn:nn-ext): a fact every graph has, the fake's knob.
  named_text(l, "backend", "prop");
  named_text(l, "scale", "knob");
  named_text(l, "2", "knob_value");
  l.pad_to(16 * 1024);  // small: every call snapshots and compares the whole memory
  return l;
}

AbiWorld make_world() {
  AbiWorld w;
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_FAKE_DIR};
  options.limits.max_graphs = 4;
  options.limits.max_contexts = 6;
  options.limits.max_builders = 4;
  options.limits.max_model_bytes = 4096;
  options.limits.max_tensor_bytes = 1024;
  options.limits.max_rank = 8;
  options.limits.max_name_bytes = 64;
  options.limits.max_config_bytes = 256;
  w.env = wire_environment(std::move(options)).env;
  const std::string dir = WASINN_FUZZ_NAMED_DIR;
  for (std::string_view n : kNamed) {
    auto st =
        w.env->models().add({std::string(n), Encoding::onnx, Target::cpu, {dir + "/" + std::string(n) + ".fake"}});
    if (!st) invariant_failed("setup", "cannot register a named model");
  }
  (void)w.env->models().add({"missing", Encoding::onnx, Target::cpu, {dir + "/no_such_file.fake"}});
  (void)w.env->models().add({"ggml_missing", Encoding::ggml, Target::cpu, {dir + "/no_such_file.gguf"}});
  w.layout = make_layout();
  w.before_load = defuse_block;
  w.after_input = check_plugin_objects;
  return w;
}

}  // namespace

const AbiWorld& abi_world() {
  static const AbiWorld w = make_world();
  return w;
}

}  // namespace wasinn::fuzz
