#include "llama_plugin.h"

#include <dlfcn.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace llama_test {

Plugin &Plugin::get() {
  static Plugin p;
  return p;
}

Plugin::Plugin() {
  const std::string lib = std::string(WASINN_BACKEND_DIR) + "/libwasinn_backend_llamacpp.so";
  void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  auto entry = reinterpret_cast<wasinn_backend_entry_fn>(dlsym(h, WASINN_PLUGIN_ENTRY_SYMBOL));
  if (!entry) throw std::runtime_error("no entry symbol");
  api_ = entry();
  int status = 0;
  std::string detail;
  backend_ = make_backend("", &status, &detail);
  if (!backend_) throw std::runtime_error("backend_create: " + detail);
}

wasinn_backend *Plugin::make_backend(const std::string &config, int *status, std::string *detail) {
  Diag d;
  wasinn_backend *b = nullptr;
  *status = api_->backend_create(config.empty() ? nullptr : config.data(), config.size(), &b, d.get());
  *detail = d.detail;
  return *status == WASINN_OK ? b : nullptr;
}

Diag::Diag() {
  diag.host_data = this;
  diag.set_detail = [](void *self, const char *m, size_t n) { static_cast<Diag *>(self)->detail.assign(m, n); };
}

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

GraphPtr load_path(const std::string &path, const std::string &config, int *status, std::string *detail,
                   wasinn_backend *backend) {
  const std::string bytes = read_file(path);
  const wasinn_bytes b{reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()};
  const char *paths[1] = {path.c_str()};
  wasinn_load_request r{};
  r.struct_size = sizeof r;
  r.encoding = "ggml";
  r.target = WASINN_TARGET_CPU;
  r.builders = &b;
  r.builder_count = 1;
  r.paths = paths;
  r.config = config.empty() ? nullptr : config.data();
  r.config_length = config.size();
  Diag d;
  wasinn_graph *g = nullptr;
  *status = Plugin::get().api().graph_load(backend ? backend : Plugin::get().backend(), &r, &g, d.get());
  *detail = d.detail;
  return GraphPtr(*status == WASINN_OK ? g : nullptr);
}

GraphPtr load_builders(const std::vector<std::string> &builders, int *status, std::string *detail,
                       wasinn_backend *backend) {
  std::vector<wasinn_bytes> b;
  for (const auto &s : builders) b.push_back({reinterpret_cast<const uint8_t *>(s.data()), s.size()});
  wasinn_load_request r{};
  r.struct_size = sizeof r;
  r.encoding = "ggml";
  r.target = WASINN_TARGET_CPU;
  r.builders = b.data();
  r.builder_count = b.size();
  Diag d;
  wasinn_graph *g = nullptr;
  *status = Plugin::get().api().graph_load(backend ? backend : Plugin::get().backend(), &r, &g, d.get());
  *detail = d.detail;
  return GraphPtr(*status == WASINN_OK ? g : nullptr);
}

ContextPtr make_context(wasinn_graph *g) {
  Diag d;
  wasinn_context *c = nullptr;
  if (Plugin::get().api().context_create(g, &c, d.get()) != WASINN_OK) throw std::runtime_error(d.detail);
  return ContextPtr(c);
}

int set_text(wasinn_context *c, uint32_t index, const std::string &text, std::string *detail) {
  const uint32_t dims[1] = {static_cast<uint32_t>(text.size())};
  const wasinn_tensor t{WASINN_TYPE_U8, 1, dims, text.data(), text.size()};
  const wasinn_tensor_id id{index, nullptr, 0};
  Diag d;
  const int s = Plugin::get().api().set_input(c, &id, &t, d.get());
  if (detail) *detail = d.detail;
  return s;
}

int compute(wasinn_context *c, std::string *detail) {
  Diag d;
  const int s = Plugin::get().api().compute(c, d.get());
  if (detail) *detail = d.detail;
  return s;
}

int compute_single(wasinn_context *c, std::string *detail) {
  Diag d;
  const int s = Plugin::get().api().compute_single(c, d.get());
  if (detail) *detail = d.detail;
  return s;
}

std::string output_text(wasinn_context *c, uint32_t index) {
  const wasinn_tensor_id id{index, nullptr, 0};
  wasinn_tensor t{};
  Diag d;
  if (Plugin::get().api().get_output(c, &id, &t, d.get()) != WASINN_OK) throw std::runtime_error(d.detail);
  return std::string(static_cast<const char *>(t.data), t.data_length);
}

std::string output_single(wasinn_context *c) {
  const wasinn_tensor_id id{0, nullptr, 0};
  wasinn_tensor t{};
  Diag d;
  if (Plugin::get().api().get_output_single(c, &id, &t, d.get()) != WASINN_OK) throw std::runtime_error(d.detail);
  return std::string(static_cast<const char *>(t.data), t.data_length);
}

size_t resident_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  }
  return 0;
}

}  // namespace llama_test
