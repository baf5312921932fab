// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: write a backend as three small C++ classes; the SDK turns them into the C
// table of backend_plugin.h.
//
// Header-only and compiled into each plugin, so the C ABI stays the only contract and a plugin
// needs no wasinn library at run time. It holds, once for every backend: the guard that turns
// any exception into a status and a detail (Error, report), the tensor vocabulary and the one
// rule per mistake (plugin_sdk/tensor.hpp: resolve_id, check_input), the load request view, the
// framework log sink (plugin_sdk/log.hpp), and make_api, which builds the table.
//
// The three classes, as Wasmtime's backend traits (docs/backends/writing-a-backend.md walks
// through the fake backend, the smallest complete one):
//
//   class MyBackend {                   // one per process; owns framework-wide state
//    public:
//     using Graph = MyGraph;
//     using Context = MyContext;
//     static constexpr const char *kName = "mine";       // the manifest's name
//     static const char *framework_version() noexcept;    // static storage
//     static Error create(std::string_view config, std::unique_ptr<MyBackend> &out);
//     Error load(const LoadRequest &request, std::unique_ptr<MyGraph> &out);
//     // Optional, both or none: const std::vector<Device> &devices() const;  (found at create)
//     //   const char *target_unavailable(int32_t target) const;  (why not, or nullptr)
//   };                                  // (WASINN_SDK_BACKEND, below, declares these six)
//   class MyGraph {                     // a loaded model, shared by contexts and threads
//    public:
//     std::span<const IoDesc> io(Side side) const;        // lives as long as the graph
//     Error create_context(std::unique_ptr<MyContext> &out);
//     // Optional, both or none: std::span<const Property> properties() const;  (fixed at load)
//     //   Error check_property(std::string_view name, std::string_view value) const;
//   };
//   class MyContext {                   // one thread at a time (the host guarantees it)
//    public:
//     Error set_input(const wasinn_tensor_id &id, const wasinn_tensor &tensor);
//     Error compute();
//     Error get_output(const wasinn_tensor_id &id, wasinn_tensor &out);  // view, see ABI
//     // (WASINN_SDK_CONTEXT(), below, declares these three)
//     // Optional: void cancel() noexcept;  (any thread, during compute)
//     // Optional, with the graph's properties(): Error set_property(name, value);
//     // Optional, all three or none: Error compute_single(); Error fini_single();
//     //   Error get_output_single(const wasinn_tensor_id &id, wasinn_tensor &out);
//     //   (WASINN_SDK_STREAMING(), below, declares these three)
//   };
//   WASINN_PLUGIN_DEFINE(MyBackend)     // exports wasinn_backend_api_v1
//
// Ownership and threads are those of backend_plugin.h: the host owns every object it got and
// releases it once (the SDK deletes it); backend and graph methods may run on several threads
// at once; a context's on one. Null pointers from the host are refused here, once, so the
// classes receive references.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/backend_plugin.h"
#include "wasinn/plugin_sdk/error.hpp"
#include "wasinn/plugin_sdk/load_request.hpp"
#include "wasinn/plugin_sdk/log.hpp"
#include "wasinn/plugin_sdk/tensor.hpp"

namespace wasinn::sdk {

// Runs body (returning Error) and reports its outcome; any exception becomes RUNTIME_ERROR with
// its message, since an exception unwinding into the C host is undefined behaviour.
template <typename F>
int guarded(const char* backend_name, wasinn_diag* diag, F&& body) noexcept {
  try {
    return report(diag, body());
  } catch (const std::bad_alloc&) {
    wasinn_diag_set(diag, "backend plugin: out of memory");  // no allocation here
  } catch (const std::exception& e) {
    wasinn_diag_set(diag, one_line(std::string(backend_name) + " backend: " + e.what()).c_str());
  } catch (...) {
    wasinn_diag_set(diag, (std::string(backend_name) + " backend: unknown exception").c_str());
  }
  return WASINN_RUNTIME_ERROR;
}

// What a backend or graph may say of itself beyond the ABI's fields (a description()).
template <typename T>
concept Described = requires(const T& t) {
  { t.description() } -> std::same_as<const std::string&>;
};

// A device the backend found (backend_plugin.h's wasinn_device) as a backend keeps it.
struct Device {
  std::string name;
  std::string api;
  uint64_t memory_bytes = 0;
  int32_t target = WASINN_TARGET_CPU;
};

// A backend that reports its devices, found once at create, and why a target is unavailable.
template <typename B>
concept WithDevices = requires(const B& b, int32_t target) {
  { b.devices() } -> std::same_as<const std::vector<Device>&>;
  { b.target_unavailable(target) } -> std::same_as<const char*>;
};

// A graph property (backend_plugin.h's wasinn_property) as a graph keeps it.
struct Property {
  std::string name;
  std::string value;  // a fact's value, or a settable knob's default
  bool settable = false;
};

// check_property's answer in a backend whose graphs have facts only.
inline Error not_settable(const char* backend_name, std::string_view name) {
  return invalid("property \"" + std::string(name) + "\" cannot be set: " + backend_name +
                 " graphs have no settable properties");
}

template <typename G>
concept WithProperties = requires(const G& g, std::string_view s) {
  { g.properties() } -> std::same_as<std::span<const Property>>;
  { g.check_property(s, s) } -> std::same_as<Error>;
};

template <typename C>
concept SettableContext = requires(C& c, std::string_view s) {
  { c.set_property(s, s) } -> std::same_as<Error>;
};

// A backend whose models are specs it can check before any load (model_spec_check).
template <typename B>
concept WithModelSpecCheck = requires(const B& b, std::string_view spec) {
  { b.check_model_spec(spec) } -> std::same_as<Error>;
};

template <typename C>
concept Cancellable = requires(C& c) {
  { c.cancel() }
  noexcept;
};

template <typename C>
concept Streaming = requires(C& c, const wasinn_tensor_id& id, wasinn_tensor& t) {
  { c.compute_single() } -> std::same_as<Error>;
  { c.get_output_single(id, t) } -> std::same_as<Error>;
  { c.fini_single() } -> std::same_as<Error>;
};

// A context that counts its language model's tokens (context_take_token_stats): fills every
// field of a wasinn_token_stats and starts again from zero; the SDK copies what fits the host's.
template <typename C>
concept TokenCounting = requires(C& c, wasinn_token_stats& s) {
  { c.take_token_stats(s) }
  noexcept;
};

// The C entry points for backend class B. The opaque C handles are B, B::Graph and B::Context
// pointers in disguise: the host only passes them back.
template <typename B>
struct Entries {
  using Graph = typename B::Graph;
  using Context = typename B::Context;

  static B* backend(wasinn_backend* p) { return reinterpret_cast<B*>(p); }
  static const B* backend(const wasinn_backend* p) { return reinterpret_cast<const B*>(p); }
  static Graph* graph(wasinn_graph* p) { return reinterpret_cast<Graph*>(p); }
  static const Graph* graph(const wasinn_graph* p) { return reinterpret_cast<const Graph*>(p); }
  static Context* context(wasinn_context* p) { return reinterpret_cast<Context*>(p); }

  static Error null_argument(const char* call) { return invalid(std::string(call) + ": a required pointer is NULL"); }

  static const char* framework_version() noexcept { return B::framework_version(); }

  static int backend_create(const char* config, size_t length, wasinn_backend** out, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!out) return null_argument("backend_create");
      std::unique_ptr<B> b;
      const std::string_view text = config ? std::string_view(config, length) : std::string_view();
      if (Error e = B::create(text, b)) return e;
      if (!b) return runtime_error(std::string(B::kName) + " backend: create made no backend");
      *out = reinterpret_cast<wasinn_backend*>(b.release());
      return {};
    });
  }
  static void backend_destroy(wasinn_backend* b) noexcept { delete backend(b); }

  static int graph_load(wasinn_backend* b, const wasinn_load_request* request, wasinn_graph** out,
                        wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!b || !request || !out) return null_argument("graph_load");
      std::unique_ptr<Graph> g;
      if (Error e = backend(b)->load(LoadRequest(*request), g)) return e;
      if (!g) return runtime_error(std::string(B::kName) + " backend: load made no graph");
      *out = reinterpret_cast<wasinn_graph*>(g.release());
      return {};
    });
  }
  static void graph_release(wasinn_graph* g) noexcept { delete graph(g); }

  static size_t graph_io_count(const wasinn_graph* g, int is_output) noexcept {
    return g ? graph(g)->io(is_output ? Side::output : Side::input).size() : 0;
  }
  static int graph_io_info(const wasinn_graph* g, int is_output, size_t index, wasinn_io_info* out) noexcept {
    if (!g || !out) return WASINN_INVALID_ARGUMENT;
    const std::span<const IoDesc> io = graph(g)->io(is_output ? Side::output : Side::input);
    if (index >= io.size()) return WASINN_INVALID_ARGUMENT;  // this signature has no diag
    fill_io_info(io[index], *out);
    return WASINN_OK;
  }
  static const char* graph_io_framework_type(const wasinn_graph* g, int is_output, size_t index) noexcept {
    if (!g) return nullptr;
    const std::span<const IoDesc> io = graph(g)->io(is_output ? Side::output : Side::input);
    if (index >= io.size()) return nullptr;
    const IoDesc& d = io[index];
    const std::string& words = d.framework_type.empty() ? d.not_a_tensor : d.framework_type;
    return words.empty() ? nullptr : words.c_str();
  }

  static int context_create(wasinn_graph* g, wasinn_context** out, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!g || !out) return null_argument("context_create");
      std::unique_ptr<Context> c;
      if (Error e = graph(g)->create_context(c)) return e;
      if (!c) return runtime_error(std::string(B::kName) + " backend: made no context");
      *out = reinterpret_cast<wasinn_context*>(c.release());
      return {};
    });
  }
  static void context_release(wasinn_context* c) noexcept { delete context(c); }

  static int set_input(wasinn_context* c, const wasinn_tensor_id* id, const wasinn_tensor* t,
                       wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!c || !id || !t) return null_argument("set_input");
      return context(c)->set_input(*id, *t);
    });
  }
  static int compute(wasinn_context* c, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!c) return null_argument("compute");
      return context(c)->compute();
    });
  }
  static int get_output(wasinn_context* c, const wasinn_tensor_id* id, wasinn_tensor* out, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!c || !id || !out) return null_argument("get_output");
      return context(c)->get_output(*id, *out);
    });
  }

  static int compute_single(wasinn_context* c, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!c) return null_argument("compute_single");
      return context(c)->compute_single();
    });
  }
  static int get_output_single(wasinn_context* c, const wasinn_tensor_id* id, wasinn_tensor* out,
                               wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!c || !id || !out) return null_argument("get_output_single");
      return context(c)->get_output_single(*id, *out);
    });
  }
  static int fini_single(wasinn_context* c, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!c) return null_argument("fini_single");
      return context(c)->fini_single();
    });
  }
  static int context_take_token_stats(wasinn_context* c, wasinn_token_stats* out) noexcept {
    if (!c || !out || out->struct_size < sizeof(uint32_t)) return WASINN_INVALID_ARGUMENT;
    wasinn_token_stats all{};
    context(c)->take_token_stats(all);
    // An older host's struct is a prefix of this one: copy what fits, keep its struct_size.
    const uint32_t size = out->struct_size;
    std::memcpy(reinterpret_cast<char*>(out) + sizeof(uint32_t), reinterpret_cast<const char*>(&all) + sizeof(uint32_t),
                std::min<size_t>(size, sizeof all) - sizeof(uint32_t));
    return WASINN_OK;
  }
  static void cancel(wasinn_context* c) noexcept {
    if (c) context(c)->cancel();
  }
  static void set_log_sink(const wasinn_log_sink* sink) noexcept { sdk::set_log_sink(sink); }
  static const char* backend_description(const wasinn_backend* b) noexcept {
    if constexpr (Described<B>) {
      if (b && !backend(b)->description().empty()) return backend(b)->description().c_str();
    }
    return nullptr;
  }
  static size_t backend_device_count(const wasinn_backend* b) noexcept {
    if constexpr (WithDevices<B>) {
      if (b) return backend(b)->devices().size();
    }
    return 0;
  }
  static int backend_device_info(const wasinn_backend* b, size_t index, wasinn_device* out) noexcept {
    if constexpr (WithDevices<B>) {
      if (b && out && index < backend(b)->devices().size()) {
        const Device& d = backend(b)->devices()[index];
        *out = {d.name.c_str(), d.api.c_str(), d.memory_bytes, d.target};
        return WASINN_OK;
      }
    }
    return WASINN_INVALID_ARGUMENT;
  }
  static const char* backend_target_unavailable(const wasinn_backend* b, int32_t target) noexcept {
    if constexpr (WithDevices<B>) {
      if (b) return backend(b)->target_unavailable(target);
    }
    return nullptr;
  }
  static int model_spec_check(const wasinn_backend* b, const char* spec, size_t spec_length,
                              wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!b || (!spec && spec_length)) return null_argument("model_spec_check");
      if constexpr (WithModelSpecCheck<B>) {
        return backend(b)->check_model_spec(std::string_view(spec ? spec : "", spec_length));
      } else {
        return {};
      }
    });
  }
  static size_t graph_property_count(const wasinn_graph* g) noexcept { return g ? graph(g)->properties().size() : 0; }
  static int graph_property_info(const wasinn_graph* g, size_t index, wasinn_property* out) noexcept {
    if (!g || !out) return WASINN_INVALID_ARGUMENT;
    const std::span<const Property> all = graph(g)->properties();
    if (index >= all.size()) return WASINN_INVALID_ARGUMENT;
    out->name = all[index].name.c_str();
    out->value = all[index].value.c_str();
    out->settable = all[index].settable ? 1 : 0;
    return WASINN_OK;
  }
  static int property_set(const wasinn_graph* g, wasinn_context* c, const char* name, size_t name_length,
                          const char* value, size_t value_length, wasinn_diag* diag) noexcept {
    return guarded(B::kName, diag, [&]() -> Error {
      if (!g || (!name && name_length) || (!value && value_length)) return null_argument("property_set");
      const std::string_view n(name ? name : "", name_length), v(value ? value : "", value_length);
      if (Error e = graph(g)->check_property(n, v)) return e;
      if (!c) return {};
      if constexpr (SettableContext<Context>) {
        return context(c)->set_property(n, v);
      } else {
        return invalid("property \"" + std::string(n) + "\" cannot be set on a context of this backend");
      }
    });
  }
  static const char* graph_description(const wasinn_graph* g) noexcept {
    if constexpr (Described<Graph>) {
      if (g && !graph(g)->description().empty()) return graph(g)->description().c_str();
    }
    return nullptr;
  }
};

// The API table of backend class B; optional entries are filled when B::Context has them.
template <typename B>
constexpr wasinn_backend_api make_api() {
  using E = Entries<B>;
  using C = typename B::Context;
  wasinn_backend_api api{};
  api.abi_version = WASINN_PLUGIN_ABI_VERSION;
  api.struct_size = sizeof(wasinn_backend_api);
  api.name = B::kName;
  api.framework_version = E::framework_version;
  api.backend_create = E::backend_create;
  api.backend_destroy = E::backend_destroy;
  api.graph_load = E::graph_load;
  api.graph_release = E::graph_release;
  api.graph_io_count = E::graph_io_count;
  api.graph_io_info = E::graph_io_info;
  api.context_create = E::context_create;
  api.context_release = E::context_release;
  api.set_input = E::set_input;
  api.compute = E::compute;
  api.get_output = E::get_output;
  if constexpr (Streaming<C>) {
    api.compute_single = E::compute_single;
    api.get_output_single = E::get_output_single;
    api.fini_single = E::fini_single;
  }
  if constexpr (Cancellable<C>) api.cancel = E::cancel;
  if constexpr (TokenCounting<C>) api.context_take_token_stats = E::context_take_token_stats;
  api.set_log_sink = E::set_log_sink;
  api.graph_io_framework_type = E::graph_io_framework_type;
  if constexpr (Described<B>) api.backend_description = E::backend_description;
  if constexpr (Described<typename B::Graph>) api.graph_description = E::graph_description;
  if constexpr (WithDevices<B>) {
    api.backend_device_count = E::backend_device_count;
    api.backend_device_info = E::backend_device_info;
    api.backend_target_unavailable = E::backend_target_unavailable;
  }
  if constexpr (WithModelSpecCheck<B>) api.model_spec_check = E::model_spec_check;
  if constexpr (WithProperties<typename B::Graph>) {
    api.graph_property_count = E::graph_property_count;
    api.graph_property_info = E::graph_property_info;
    api.property_set = E::property_set;
  }
  return api;
}

}  // namespace wasinn::sdk

// The members make_api calls, declared once here so every backend states the same contract:
//   class OrtBackend {
//    public:
//     WASINN_SDK_BACKEND(OrtBackend, OrtGraph, OrtContext, "onnxruntime")
//     ...                              // the backend's own members
//   };
// declares Graph, Context, kName, framework_version(), create() and load(); the backend
// defines the last three. WASINN_SDK_CONTEXT() declares set_input, compute and get_output;
// WASINN_SDK_STREAMING(), in a context that streams, compute_single, get_output_single and
// fini_single (sdk::Streaming takes all three or none).
#define WASINN_SDK_BACKEND(Self, GraphClass, ContextClass, name)                           \
  using Graph = GraphClass;                                                                \
  using Context = ContextClass;                                                            \
  static constexpr const char* kName = name;                                               \
  static const char* framework_version() noexcept;                                         \
  static ::wasinn::sdk::Error create(std::string_view config, std::unique_ptr<Self>& out); \
  ::wasinn::sdk::Error load(const ::wasinn::sdk::LoadRequest& request, std::unique_ptr<GraphClass>& out);

#define WASINN_SDK_CONTEXT()                                                               \
  ::wasinn::sdk::Error set_input(const wasinn_tensor_id& id, const wasinn_tensor& tensor); \
  ::wasinn::sdk::Error compute();                                                          \
  ::wasinn::sdk::Error get_output(const wasinn_tensor_id& id, wasinn_tensor& out);

#define WASINN_SDK_STREAMING()                                                            \
  ::wasinn::sdk::Error compute_single();                                                  \
  ::wasinn::sdk::Error get_output_single(const wasinn_tensor_id& id, wasinn_tensor& out); \
  ::wasinn::sdk::Error fini_single();

// Exports the plugin's entry point for backend class BackendClass (one per plugin).
#define WASINN_PLUGIN_DEFINE(BackendClass)                                                \
  extern "C" WASINN_PLUGIN_EXPORT const wasinn_backend_api* wasinn_backend_api_v1(void) { \
    static constexpr wasinn_backend_api kApi = ::wasinn::sdk::make_api<BackendClass>();   \
    return &kApi;                                                                         \
  }
