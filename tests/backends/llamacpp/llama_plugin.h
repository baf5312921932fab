// The llamacpp plugin opened with dlopen and driven through its C table, as the host drives it,
// with owning wrappers so a failed assertion never leaks a graph or context.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wasinn/backend_plugin.h"

namespace llama_test {

class Plugin {
 public:
  // Opens the plugin and creates its backend (no config) once per process.
  static Plugin &get();
  const wasinn_backend_api &api() const { return *api_; }
  wasinn_backend *backend() const { return backend_; }
  // A second backend object with its own config (e.g. allow-preload-paths).
  wasinn_backend *make_backend(const std::string &config, int *status, std::string *detail);

 private:
  Plugin();
  const wasinn_backend_api *api_ = nullptr;
  wasinn_backend *backend_ = nullptr;
};

// Collects a call's diag detail.
struct Diag {
  wasinn_diag diag{};
  std::string detail;
  Diag();
  wasinn_diag *get() { return &diag; }
};

struct GraphDeleter {
  void operator()(wasinn_graph *g) const { Plugin::get().api().graph_release(g); }
};
struct ContextDeleter {
  void operator()(wasinn_context *c) const { Plugin::get().api().context_release(c); }
};
using GraphPtr = std::unique_ptr<wasinn_graph, GraphDeleter>;
using ContextPtr = std::unique_ptr<wasinn_context, ContextDeleter>;

// Loads by path, as the host does for a preloaded model (bytes are the mapped file).
GraphPtr load_path(const std::string &path, const std::string &config, int *status, std::string *detail,
                   wasinn_backend *backend = nullptr);
// Loads from builders given as strings (model bytes, "preload:...", a config JSON).
GraphPtr load_builders(const std::vector<std::string> &builders, int *status, std::string *detail,
                       wasinn_backend *backend = nullptr);
ContextPtr make_context(wasinn_graph *g);

int set_text(wasinn_context *c, uint32_t index, const std::string &text, std::string *detail = nullptr);
int compute(wasinn_context *c, std::string *detail = nullptr);
int compute_single(wasinn_context *c, std::string *detail = nullptr);
std::string output_text(wasinn_context *c, uint32_t index);
std::string output_single(wasinn_context *c);

// Resident memory of this process in bytes (VmRSS).
size_t resident_bytes();

std::string read_file(const std::string &path);

}  // namespace llama_test
