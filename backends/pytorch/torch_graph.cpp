// graph_load: request checks, the TorchScript archive read straight from the builder bytes, and
// the io description taken from forward's schema.
#include <ATen/Context.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>

#include "torch_config.h"
#include "torch_objects.h"
#include "torch_ops.h"

namespace wasinn_torch {
namespace {

// A field of the load request is present only if it lies inside the host's struct_size (an
// older host has a shorter struct).
#define WASINN_REQUEST_HAS(req, field) \
  ((req)->struct_size >= offsetof(wasinn_load_request, field) + sizeof((req)->field))

// libtorch's archive reader over the builder bytes in place: no copy of the model. The bytes
// live only during graph_load, so load_graph checks that libtorch kept no reference to this.
class BytesReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  BytesReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  size_t size() const override { return size_; }
  size_t read(uint64_t pos, void *buf, size_t n, const char * /*what*/) const override {
    if (pos >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - pos));
    std::memcpy(buf, data_ + pos, n);
    return n;
  }

 private:
  const uint8_t *data_;
  size_t size_;
};

Error pick_device(int32_t target, c10::Device &out) {
  const bool cuda = at::hasCUDA();
  switch (target) {
    case WASINN_TARGET_CPU: out = c10::Device(c10::kCPU); return {};
    case WASINN_TARGET_AUTO:  // the accelerator when there is one: that is what "auto" asks
      out = cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
      return {};
    case WASINN_TARGET_GPU:
      // Never a silent CPU fallback: a guest asking for a GPU must learn it has none.
      if (!cuda)
        return {WASINN_UNSUPPORTED_OPERATION,
                std::string("target gpu is not available: libtorch built without CUDA (") +
                    framework_version() + ", CPU build)"};
      out = c10::Device(c10::kCUDA, 0);
      return {};
    case WASINN_TARGET_TPU:
      return {WASINN_UNSUPPORTED_OPERATION, "target tpu is not available: libtorch has no TPU support"};
    default:
      return invalid("unknown execution target " + std::to_string(target));
  }
}

bool is_tensor_type(const c10::TypePtr &t) {
  if (t->kind() == c10::TypeKind::TensorType) return true;
  if (auto opt = t->cast<c10::OptionalType>())
    return opt->getElementType()->kind() == c10::TypeKind::TensorType;
  return false;
}

void describe_io(const c10::FunctionSchema &schema, wasinn_graph &g) {
  const auto &args = schema.arguments();
  for (size_t i = 1; i < args.size(); ++i) {  // argument 0 is self
    InputDesc d;
    d.name = args[i].name();
    d.type_name = args[i].type()->annotation_str();
    d.takes_tensor = is_tensor_type(args[i].type());
    if (args[i].default_value()) d.fallback = *args[i].default_value();
    g.inputs.push_back(std::move(d));
  }
  if (schema.returns().size() != 1) return;
  const c10::TypePtr &ret = schema.returns()[0].type();
  if (ret->kind() == c10::TypeKind::TensorType) {
    g.outputs.push_back({});
  } else if (auto tuple = ret->cast<c10::TupleType>()) {
    const auto &names = tuple->schema() ? tuple->schema()->arguments()
                                        : std::vector<c10::Argument>{};
    for (size_t i = 0; i < tuple->elements().size(); ++i)
      g.outputs.push_back({i < names.size() ? names[i].name() : std::string()});
  }
}

}  // namespace

std::string input_label(const std::vector<InputDesc> &inputs, size_t index) {
  return "input " + std::to_string(index) + " (\"" + inputs[index].name + "\")";
}

Error load_graph(wasinn_backend *backend, const wasinn_load_request *req, wasinn_graph **out) {
  if (!backend || !req || !WASINN_REQUEST_HAS(req, builder_count))
    return invalid("malformed load request");
  if (req->encoding && std::string_view(req->encoding) != "pytorch")
    return {WASINN_INVALID_ENCODING, std::string("the pytorch backend loads only \"pytorch\", not \"") +
                                         req->encoding + "\""};
  if (req->builder_count != 1 || !req->builders)
    return invalid("the pytorch encoding expects exactly one graph builder (a TorchScript "
                   "archive), got " + std::to_string(req->builders ? req->builder_count : 0));
  const wasinn_bytes &archive = req->builders[0];
  if (!archive.data || archive.length == 0) return invalid("the TorchScript archive is empty (0 bytes)");
  if (WASINN_REQUEST_HAS(req, config_length))
    if (Error e = check_graph_config(req->config, req->config_length)) return e;

  auto g = std::make_unique<wasinn_graph>();
  if (Error e = pick_device(req->target, g->device)) return e;
  const char *path = WASINN_REQUEST_HAS(req, paths) && req->paths ? req->paths[0] : nullptr;
  const std::string what = path ? std::string(path) : "the model";

  auto reader = std::make_shared<BytesReader>(archive.data, archive.length);
  try {
    g->module = torch::jit::load(reader, g->device);
  } catch (const std::exception &e) {
    return invalid(what + ": not a TorchScript archive this libtorch can load: " +
                   exception_summary(e));
  }
  if (reader.use_count() != 1)  // libtorch would read bytes the host is about to free
    return {WASINN_RUNTIME_ERROR, "libtorch kept a reference to the model bytes after loading"};
  g->module.eval();
  auto forward = g->module.find_method("forward");
  if (!forward) return invalid(what + ": the TorchScript module has no forward method");
  g->forward.emplace(std::move(*forward));
  describe_io(g->forward->function().getSchema(), *g);
  *out = g.release();
  return {};
}

void release_graph(wasinn_graph *graph) { delete graph; }

size_t io_count(const wasinn_graph &graph, bool is_output) {
  return is_output ? graph.outputs.size() : graph.inputs.size();
}

int io_info(const wasinn_graph &graph, bool is_output, size_t index, wasinn_io_info &out) {
  if (index >= io_count(graph, is_output)) return WASINN_INVALID_ARGUMENT;
  // TorchScript declares neither dtypes nor shapes: type unknown, rank unknown.
  out.name = is_output ? graph.outputs[index].name.c_str() : graph.inputs[index].name.c_str();
  out.type = WASINN_TYPE_UNKNOWN;
  out.rank = -1;
  out.dims = nullptr;
  return WASINN_OK;
}

}  // namespace wasinn_torch
