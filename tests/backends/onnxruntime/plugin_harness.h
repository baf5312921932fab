// Drives the built plugin exactly as the host does: dlopen the .so from the backend directory,
// look up wasinn_backend_api_v1 and call through the table. RAII owners release what the tests
// create; Diag captures the detail a failing call reports.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

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

namespace ort_test {

inline const wasinn_backend_api &api() {
  // Loaded once per process and never closed: ORT's threads must not outlive their code.
  static const wasinn_backend_api *table = [] {
    const std::string path = std::string(WASINN_BACKEND_DIR) + "/libwasinn_backend_onnxruntime.so";
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
  Diag() : wasinn_diag{this, [](void *self, const char *m, size_t n) {
                         static_cast<Diag *>(self)->detail.assign(m, n);
                       }} {}
  Diag(const Diag &) = delete;
  Diag &operator=(const Diag &) = delete;
};

inline std::filesystem::path fixtures_dir() {
  if (const char *env = std::getenv("WASINN_FIXTURES"); env && *env) return env;
#ifdef WASINN_FIXTURES_DEFAULT
  return WASINN_FIXTURES_DEFAULT;
#endif
  const char *home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/wasinn/fixtures";
}

// The bytes of a fixture file; fails the test (not skips: a missing fixture is a broken setup,
// fixed by running scripts/make_fixtures.py) when it is absent.
inline std::vector<uint8_t> read_fixture(const std::string &rel) {
  const auto path = fixtures_dir() / rel;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << "missing fixture " << path
                  << " (generate with scripts/make_fixtures.py or set WASINN_FIXTURES)";
    return {};
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

template <typename T>
std::vector<T> read_fixture_as(const std::string &rel) {
  const auto bytes = read_fixture(rel);
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

struct Backend {
  wasinn_backend *ptr = nullptr;
  explicit Backend(const std::string &config = "") {
    Diag d;
    const int st = api().backend_create(config.empty() ? nullptr : config.data(), config.size(),
                                        &ptr, &d);
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
  Graph(Graph &&o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
  Graph &operator=(Graph &&o) noexcept {
    std::swap(ptr, o.ptr);
    return *this;
  }
  ~Graph() {
    if (ptr) api().graph_release(ptr);
  }
};

// graph_load with `builders` as the builder list.
inline int load(wasinn_backend *b, const std::vector<std::vector<uint8_t>> &builders,
                Graph &out, Diag &d, int32_t target = WASINN_TARGET_CPU,
                const std::string &config = "") {
  std::vector<wasinn_bytes> raw;
  for (const auto &bytes : builders) raw.push_back({bytes.data(), bytes.size()});
  wasinn_load_request req{};
  req.struct_size = sizeof req;
  req.encoding = "onnx";
  req.target = target;
  req.builders = raw.data();
  req.builder_count = raw.size();
  req.config = config.empty() ? nullptr : config.data();
  req.config_length = config.size();
  return api().graph_load(b, &req, &out.ptr, &d);
}

// Loads one model file or fails the test.
inline Graph load_fixture(wasinn_backend *b, const std::string &rel,
                          const std::string &config = "") {
  Graph g;
  Diag d;
  const int st = load(b, {read_fixture(rel)}, g, d, WASINN_TARGET_CPU, config);
  EXPECT_EQ(st, WASINN_OK) << rel << ": " << d.detail;
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

// The result points into dims and data: both must outlive it (no temporaries).
inline wasinn_tensor tensor(int32_t type, const std::vector<uint32_t> &dims, const void *data,
                            size_t bytes) {
  return {type, static_cast<uint32_t>(dims.size()), dims.data(), data, bytes};
}

template <typename T>
int set_input(wasinn_context *c, wasinn_tensor_id id, int32_t type,
              const std::vector<uint32_t> &dims, const std::vector<T> &data, Diag &d) {
  const wasinn_tensor t = tensor(type, dims, data.data(), data.size() * sizeof(T));
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

}  // namespace ort_test
