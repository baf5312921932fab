// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Drives a built backend plugin exactly as the host does: dlopen the .so from the backend
// directory, look up wasinn_backend_api_v1 and call through the table. RAII owners release what
// tests create; Diag keeps the detail a failing call reports. Shared by every backend's tests.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/backend_plugin.h"
#include "support/stream_bytes.h"

namespace wasinn_test {

// The plugin libwasinn_backend_<name>.so, loaded once per process and never closed: framework
// threads must not outlive their code.
inline const wasinn_backend_api& plugin_api(const std::string& name) {
  static std::map<std::string, const wasinn_backend_api*> tables;
  auto& table = tables[name];
  if (!table) {
    const std::string path = std::string(WASINN_BACKEND_DIR) + "/libwasinn_backend_" + name + ".so";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
      std::abort();
    }
    auto entry = reinterpret_cast<wasinn_backend_entry_fn>(dlsym(h, WASINN_PLUGIN_ENTRY_SYMBOL));
    if (!entry) {
      ADD_FAILURE() << "no " << WASINN_PLUGIN_ENTRY_SYMBOL << " in " << path;
      std::abort();
    }
    table = entry();
  }
  return *table;
}

// A wasinn_diag that keeps the last detail; &diag converts to the wasinn_diag* calls take.
struct Diag : wasinn_diag {
  std::string detail;
  Diag()
      : wasinn_diag{this, [](void* self, const char* m, size_t n) { static_cast<Diag*>(self)->detail.assign(m, n); }} {}
  Diag(const Diag&) = delete;
  Diag& operator=(const Diag&) = delete;
};

inline std::filesystem::path fixtures_dir() {
  if (const char* env = std::getenv("WASINN_FIXTURES"); env && *env) return env;
  return WASINN_FIXTURES_DEFAULT;
}

// The bytes of a fixture file; fails the test (a missing fixture is a broken setup, fixed by
// running scripts/make_fixtures.py) when it is absent.
inline std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << "missing " << path << " (generate fixtures with scripts/make_fixtures.py or set WASINN_FIXTURES)";
    return {};
  }
  return stream_bytes(f);
}
inline std::vector<uint8_t> read_fixture(const std::string& rel) { return read_file(fixtures_dir() / rel); }

inline void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(f.good()) << "cannot write " << path;
}

template <typename T>
std::vector<T> as_vector(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}
template <typename T>
std::vector<T> read_fixture_as(const std::string& rel) {
  return as_vector<T>(read_fixture(rel));
}
template <typename T>
std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

struct Backend {
  const wasinn_backend_api& api;
  wasinn_backend* ptr = nullptr;
  explicit Backend(const wasinn_backend_api& a, const std::string& config = "") : api(a) {
    Diag d;
    const int st = api.backend_create(config.empty() ? nullptr : config.data(), config.size(), &ptr, &d);
    EXPECT_EQ(st, WASINN_OK) << d.detail;
  }
  ~Backend() {
    if (ptr) api.backend_destroy(ptr);
  }
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
};

struct Graph {
  const wasinn_backend_api* api = nullptr;
  wasinn_graph* ptr = nullptr;
  Graph() = default;
  Graph(Graph&& o) noexcept : api(o.api), ptr(std::exchange(o.ptr, nullptr)) {}
  Graph& operator=(Graph&& o) noexcept {
    std::swap(api, o.api);
    std::swap(ptr, o.ptr);
    return *this;
  }
  ~Graph() {
    if (ptr) api->graph_release(ptr);
  }
};

struct LoadArgs {
  std::string encoding;
  std::vector<std::vector<uint8_t>> builders;
  std::vector<std::string> paths;  // empty, or one per builder ("" for none)
  int32_t target = WASINN_TARGET_CPU;
  std::string config;
  uint32_t flags = WASINN_LOAD_MAY_CANCEL;  // as a host with a compute budget sends
};

inline LoadArgs model_args(std::string encoding, std::vector<std::vector<uint8_t>> builders) {
  LoadArgs a;
  a.encoding = std::move(encoding);
  a.builders = std::move(builders);
  return a;
}

inline int load(Backend& b, const LoadArgs& args, Graph& out, Diag& d) {
  std::vector<wasinn_bytes> raw;
  for (const auto& bytes : args.builders) raw.push_back({bytes.data(), bytes.size()});
  std::vector<const char*> paths;
  for (const auto& p : args.paths) paths.push_back(p.empty() ? nullptr : p.c_str());
  wasinn_load_request req{};
  req.struct_size = sizeof req;
  req.encoding = args.encoding.c_str();
  req.target = args.target;
  req.builders = raw.data();
  req.builder_count = raw.size();
  req.paths = paths.empty() ? nullptr : paths.data();
  req.config = args.config.empty() ? nullptr : args.config.data();
  req.config_length = args.config.size();
  req.flags = args.flags;
  out.api = &b.api;
  return b.api.graph_load(b.ptr, &req, &out.ptr, &d);
}

// Loads `builders` with an encoding ("" lets the plugin take its own), a target and a config.
inline int load(Backend& b, std::vector<std::vector<uint8_t>> builders, Graph& out, Diag& d,
                int32_t target = WASINN_TARGET_CPU, const std::string& config = "", const std::string& encoding = "") {
  LoadArgs a = model_args(encoding, std::move(builders));
  a.target = target;
  a.config = config;
  return load(b, a, out, d);
}

struct Context {
  const wasinn_backend_api& api;
  wasinn_context* ptr = nullptr;
  Context(const wasinn_backend_api& a, wasinn_graph* g) : api(a) {
    Diag d;
    EXPECT_EQ(api.context_create(g, &ptr, &d), WASINN_OK) << d.detail;
  }
  ~Context() {
    if (ptr) api.context_release(ptr);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

inline wasinn_tensor_id by_index(uint32_t i) { return {i, nullptr, 0}; }
// A string_view, so a literal (static storage) is safe to pass; a std::string must outlive the id.
inline wasinn_tensor_id by_name(std::string_view n) { return {0, n.data(), n.size()}; }

// The result points into dims and data: both must outlive it (no temporaries).
inline wasinn_tensor tensor(int32_t type, const std::vector<uint32_t>& dims, const void* data, size_t bytes) {
  return {type, static_cast<uint32_t>(dims.size()), dims.data(), data, bytes};
}

inline int set_input(const wasinn_backend_api& api, wasinn_context* c, wasinn_tensor_id id, int32_t type,
                     const std::vector<uint32_t>& dims, const std::vector<uint8_t>& data, Diag& d) {
  const wasinn_tensor t{type, static_cast<uint32_t>(dims.size()), dims.data(), data.data(), data.size()};
  return api.set_input(c, &id, &t, &d);
}

// Copies an output of the last compute, checking its type.
inline std::vector<uint8_t> output_bytes(const wasinn_backend_api& api, wasinn_context* c, wasinn_tensor_id id,
                                         int32_t want_type, std::vector<uint32_t>* dims = nullptr) {
  wasinn_tensor t{};
  Diag d;
  const int st = api.get_output(c, &id, &t, &d);
  EXPECT_EQ(st, WASINN_OK) << d.detail;
  if (st != WASINN_OK) return {};
  EXPECT_EQ(t.type, want_type);
  if (dims) dims->assign(t.dims, t.dims + t.rank);
  const auto* p = static_cast<const uint8_t*>(t.data);
  return {p, p + t.data_length};
}

template <typename T>
std::vector<T> output_as(const wasinn_backend_api& api, wasinn_context* c, wasinn_tensor_id id, int32_t want_type,
                         std::vector<uint32_t>* dims = nullptr) {
  return as_vector<T>(output_bytes(api, c, id, want_type, dims));
}

// A test binary for one backend defines WASINN_TEST_PLUGIN ("onnxruntime") and gets the
// shorthands below, which drive that plugin without naming its table at every call.
#ifdef WASINN_TEST_PLUGIN
inline const wasinn_backend_api& api() { return plugin_api(WASINN_TEST_PLUGIN); }

struct TestBackend : Backend {
  explicit TestBackend(const std::string& config = "") : Backend(wasinn_test::api(), config) {}
};
struct TestContext : Context {
  explicit TestContext(wasinn_graph* g) : Context(wasinn_test::api(), g) {}
};

// Loads one fixture file or fails the test.
inline Graph load_fixture(Backend& b, const std::string& rel, const std::string& config = "") {
  Graph g;
  Diag d;
  EXPECT_EQ(load(b, {read_fixture(rel)}, g, d, WASINN_TARGET_CPU, config), WASINN_OK) << rel << ": " << d.detail;
  return g;
}

template <typename T>
int set_input(wasinn_context* c, wasinn_tensor_id id, int32_t type, const std::vector<uint32_t>& dims,
              const std::vector<T>& data, Diag& d) {
  return set_input(api(), c, id, type, dims, as_bytes(data), d);
}

template <typename T>
std::vector<T> output_as(wasinn_context* c, wasinn_tensor_id id, int32_t want_type,
                         std::vector<uint32_t>* dims = nullptr) {
  return output_as<T>(api(), c, id, want_type, dims);
}
#endif

}  // namespace wasinn_test
