// Drives the built pytorch plugin exactly as the host does: dlopen the .so from the backend
// directory, look up wasinn_backend_api_v1 and call through the table. RAII owners release what
// the tests create; Diag keeps the detail a failing call reports.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test_files.h"
#include "wasinn/backend_plugin.h"

namespace torch_test {

inline const wasinn_backend_api &api() {
  // Loaded once and never closed: libtorch's thread pools must not outlive their code.
  static const wasinn_backend_api *table = [] {
    const std::string path = std::string(WASINN_BACKEND_DIR) + "/libwasinn_backend_pytorch.so";
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
inline int load(wasinn_backend *b, const std::vector<std::vector<uint8_t>> &builders, Graph &out,
                Diag &d, int32_t target = WASINN_TARGET_CPU, const std::string &config = "",
                const char *encoding = "pytorch") {
  std::vector<wasinn_bytes> raw;
  for (const auto &bytes : builders) raw.push_back({bytes.data(), bytes.size()});
  wasinn_load_request req{};
  req.struct_size = sizeof req;
  req.encoding = encoding;
  req.target = target;
  req.builders = raw.data();
  req.builder_count = raw.size();
  req.config = config.empty() ? nullptr : config.data();
  req.config_length = config.size();
  return api().graph_load(b, &req, &out.ptr, &d);
}

// Loads one fixture or fails the test.
inline Graph load_fixture(wasinn_backend *b, const std::string &rel) {
  Graph g;
  Diag d;
  const int st = load(b, {read_fixture(rel)}, g, d);
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
// A view: a literal lives for ever, a std::string argument must outlive the id.
inline wasinn_tensor_id by_name(std::string_view n) { return {0, n.data(), n.size()}; }

inline int set_input(wasinn_context *c, wasinn_tensor_id id, const HostTensor &t, Diag &d) {
  const wasinn_tensor wt{t.type, static_cast<uint32_t>(t.dims.size()), t.dims.data(),
                         t.bytes.data(), t.bytes.size()};
  return api().set_input(c, &id, &wt, &d);
}

inline int compute(wasinn_context *c, Diag &d) { return api().compute(c, &d); }

// Output `id` of the last compute, copied out; fails the test when get_output fails.
inline HostTensor output(wasinn_context *c, wasinn_tensor_id id) {
  wasinn_tensor t{};
  Diag d;
  const int st = api().get_output(c, &id, &t, &d);
  EXPECT_EQ(st, WASINN_OK) << d.detail;
  if (st != WASINN_OK) return {};
  HostTensor out;
  out.type = t.type;
  out.dims.assign(t.dims, t.dims + t.rank);
  out.bytes.assign(static_cast<const uint8_t *>(t.data),
                   static_cast<const uint8_t *>(t.data) + t.data_length);
  return out;
}

}  // namespace torch_test
