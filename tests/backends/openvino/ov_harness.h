// Drives the built OpenVINO plugin exactly as the host does: dlopen the .so from the backend
// directory, look up wasinn_backend_api_v1 and call through the table. RAII owners release what
// the tests create; Diag keeps the detail a failing call reports. Also: fixtures, and a native
// OpenVINO run of the same model for reference answers.
#pragma once

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <openvino/openvino.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "wasinn/backend_plugin.h"

namespace ov_test {

// Every test that compares numbers pins f32 math (OpenVINO would pick bf16 on CPUs that have it)
// and keeps the user's compiled-model cache out of it.
inline const std::string kF32 = R"({"inference_precision":"f32","cache_dir":""})";

inline const wasinn_backend_api &api() {
  // Loaded once per process and never closed: OpenVINO's threads must not outlive their code.
  static const wasinn_backend_api *table = [] {
    const std::string path = std::string(WASINN_BACKEND_DIR) + "/libwasinn_backend_openvino.so";
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
      std::abort();
    }
    auto entry = reinterpret_cast<wasinn_backend_entry_fn>(dlsym(h, WASINN_PLUGIN_ENTRY_SYMBOL));
    if (!entry) {
      ADD_FAILURE() << "no " << WASINN_PLUGIN_ENTRY_SYMBOL << " in " << path;
      std::abort();
    }
    return entry();
  }();
  return *table;
}

// A wasinn_diag that keeps the last detail; &diag converts to the wasinn_diag* calls take.
struct Diag : wasinn_diag {
  std::string detail;
  Diag() : wasinn_diag{this, [](void *self, const char *m, size_t n) { static_cast<Diag *>(self)->detail.assign(m, n); }} {}
  Diag(const Diag &) = delete;
  Diag &operator=(const Diag &) = delete;
};

inline std::filesystem::path fixtures_dir() {
  if (const char *env = std::getenv("WASINN_FIXTURES"); env && *env) return env;
#ifdef WASINN_FIXTURES_DEFAULT
  return WASINN_FIXTURES_DEFAULT;
#else
  const char *home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/wasinn/fixtures";
#endif
}

inline std::string fixture_path(const std::string &rel) { return (fixtures_dir() / rel).string(); }

// The bytes of a fixture; a missing one fails the test (a broken setup, fixed by running
// scripts/make_fixtures.py with the venv's python), it is not skipped.
inline std::vector<uint8_t> read_fixture(const std::string &rel) {
  const auto path = fixtures_dir() / rel;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << "missing fixture " << path << " (generate with .deps/venv/bin/python scripts/make_fixtures.py)";
    return {};
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

template <typename T>
std::vector<T> read_fixture_as(const std::string &rel) {
  const auto bytes = read_fixture(rel);
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

struct Backend {
  wasinn_backend *ptr = nullptr;
  explicit Backend(const std::string &config = kF32) {
    Diag d;
    const int st = api().backend_create(config.empty() ? nullptr : config.data(), config.size(), &ptr, &d);
    EXPECT_EQ(st, WASINN_OK) << d.detail;
  }
  ~Backend() {
    if (ptr) api().backend_destroy(ptr);
  }
  Backend(const Backend &) = delete;
  Backend &operator=(const Backend &) = delete;
};

struct Graph {
  wasinn_graph *ptr = nullptr;
  Graph() = default;
  Graph(Graph &&o) noexcept : ptr(std::exchange(o.ptr, nullptr)) {}
  Graph &operator=(Graph &&o) noexcept {
    std::swap(ptr, o.ptr);
    return *this;
  }
  ~Graph() {
    if (ptr) api().graph_release(ptr);
  }
};

// graph_load with `builders` as the builder list.
inline int load(wasinn_backend *b, const std::vector<std::vector<uint8_t>> &builders, Graph &out, Diag &d,
                int32_t target = WASINN_TARGET_CPU, const std::string &config = "") {
  std::vector<wasinn_bytes> raw;
  for (const auto &bytes : builders) raw.push_back({bytes.data(), bytes.size()});
  wasinn_load_request req{};
  req.struct_size = sizeof req;
  req.encoding = "openvino";
  req.target = target;
  req.builders = raw.data();
  req.builder_count = raw.size();
  req.config = config.empty() ? nullptr : config.data();
  req.config_length = config.size();
  return api().graph_load(b, &req, &out.ptr, &d);
}

// Loads an IR fixture ("digits/openvino/model" -> .xml + .bin) or fails the test.
inline Graph load_ir(wasinn_backend *b, const std::string &stem, const std::string &config = "",
                     int32_t target = WASINN_TARGET_CPU) {
  Graph g;
  Diag d;
  const int st = load(b, {read_fixture(stem + ".xml"), read_fixture(stem + ".bin")}, g, d, target, config);
  EXPECT_EQ(st, WASINN_OK) << stem << ": " << d.detail;
  return g;
}

struct Context {
  wasinn_context *ptr = nullptr;
  explicit Context(wasinn_graph *g) {
    Diag d;
    EXPECT_EQ(api().context_create(g, &ptr, &d), WASINN_OK) << d.detail;
  }
  ~Context() {
    if (ptr) api().context_release(ptr);
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
};

inline wasinn_tensor_id by_index(uint32_t i) { return {i, nullptr, 0}; }
inline wasinn_tensor_id by_name(const std::string &n) { return {0, n.data(), n.size()}; }

template <typename T>
int set_input(wasinn_context *c, wasinn_tensor_id id, int32_t type, const std::vector<uint32_t> &dims,
              const T *data, size_t count, Diag &d) {
  const wasinn_tensor t{type, static_cast<uint32_t>(dims.size()), dims.data(), data, count * sizeof(T)};
  return api().set_input(c, &id, &t, &d);
}

// Copies output `id` of the last compute into a vector of T, checking its type.
template <typename T>
std::vector<T> output_as(wasinn_context *c, wasinn_tensor_id id, int32_t want_type,
                         std::vector<uint32_t> *dims = nullptr) {
  wasinn_tensor t{};
  Diag d;
  const int st = api().get_output(c, &id, &t, &d);
  EXPECT_EQ(st, WASINN_OK) << d.detail;
  if (st != WASINN_OK) return {};
  EXPECT_EQ(t.type, want_type);
  EXPECT_EQ(t.data_length % sizeof(T), 0u);
  if (dims) dims->assign(t.dims, t.dims + t.rank);
  std::vector<T> out(t.data_length / sizeof(T));
  if (t.data_length) std::memcpy(out.data(), t.data, t.data_length);
  return out;
}

// Native OpenVINO, in this process, for reference answers: CPU, f32 math, no cache.
inline ov::Core &native_core() {
  static ov::Core core;
  return core;
}

inline ov::CompiledModel native_compile(const std::string &model_path, int threads = 0) {
  ov::AnyMap props{ov::hint::inference_precision(ov::element::f32)};
  if (threads > 0) props.emplace(ov::inference_num_threads(threads));
  return native_core().compile_model(model_path, "CPU", props);
}

// One f32 input -> output 0 as floats.
inline std::vector<float> native_run(ov::CompiledModel &model, const std::vector<size_t> &shape,
                                     const float *data) {
  ov::InferRequest req = model.create_infer_request();
  ov::Tensor in(ov::element::f32, ov::Shape(shape));
  std::memcpy(in.data(), data, in.get_byte_size());
  req.set_input_tensor(0, in);
  req.infer();
  ov::Tensor out = req.get_output_tensor(0);
  const float *p = out.data<float>();
  return std::vector<float>(p, p + out.get_size());
}

// Number of rows whose argmax over `classes` columns equals the label.
inline size_t count_correct(const std::vector<float> &logits, const std::vector<uint8_t> &labels, size_t classes) {
  size_t correct = 0;
  for (size_t i = 0; i < labels.size() && (i + 1) * classes <= logits.size(); ++i) {
    size_t best = 0;
    for (size_t k = 1; k < classes; ++k)
      if (logits[i * classes + k] > logits[i * classes + best]) best = k;
    correct += best == labels[i];
  }
  return correct;
}

}  // namespace ov_test
