// graph_load: request checks, the TorchScript archive read straight from the builder bytes, and
// the io description taken from forward's schema.
#include "graph.h"

#include <ATen/Context.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "backend.h"
#include "config.h"
#include "context.h"
#include "torch_error.h"
#include "torch_log.h"
#include "torch_module.h"

namespace wasinn::pytorch {
namespace {

// libtorch's archive reader over the builder bytes in place: no copy of the model. The bytes
// live only during graph_load, so load checks that libtorch kept no reference to this.
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
        return sdk::unsupported(
            std::string("target gpu is not available: libtorch built without CUDA (") +
            TorchBackend::framework_version() + ", CPU build)");
      out = c10::Device(c10::kCUDA, 0);
      return {};
    case WASINN_TARGET_TPU:
      return sdk::unsupported("target tpu is not available: libtorch has no TPU support");
    default:
      return sdk::invalid("unknown execution target " + std::to_string(target));
  }
}

bool is_tensor_type(const c10::TypePtr &t) {
  if (t->kind() == c10::TypeKind::TensorType) return true;
  if (auto opt = t->cast<c10::OptionalType>())
    return opt->getElementType()->kind() == c10::TypeKind::TensorType;
  return false;
}

// Inputs and outputs from forward's schema. TorchScript declares no dtypes or shapes, so each
// IoDesc keeps its defaults: type unknown, rank -1.
void describe_io(const c10::FunctionSchema &schema, std::vector<InputArg> &args,
                 std::vector<sdk::IoDesc> &inputs, std::vector<sdk::IoDesc> &outputs) {
  const auto &params = schema.arguments();
  for (size_t i = 1; i < params.size(); ++i) {  // argument 0 is self
    inputs.emplace_back().name = params[i].name();
    InputArg &a = args.emplace_back();
    a.type_name = params[i].type()->annotation_str();
    a.takes_tensor = is_tensor_type(params[i].type());
    if (params[i].default_value()) a.fallback = *params[i].default_value();
  }
  if (schema.returns().size() != 1) return;
  const c10::TypePtr &ret = schema.returns()[0].type();
  if (ret->kind() == c10::TypeKind::TensorType) {
    outputs.emplace_back();
  } else if (auto tuple = ret->cast<c10::TupleType>()) {
    const auto &names = tuple->schema() ? tuple->schema()->arguments()
                                        : std::vector<c10::Argument>{};
    for (size_t i = 0; i < tuple->elements().size(); ++i)
      outputs.emplace_back().name = i < names.size() ? names[i].name() : std::string();
  }
}

}  // namespace

TorchGraph::TorchGraph() = default;
TorchGraph::~TorchGraph() = default;

Error TorchGraph::load(const sdk::LoadRequest &req, std::unique_ptr<TorchGraph> &out) {
  if (!req.encoding().empty() && req.encoding() != "pytorch")
    return {WASINN_INVALID_ENCODING, "the pytorch backend loads only \"pytorch\", not \"" +
                                         std::string(req.encoding()) + "\""};
  if (req.builders().size() != 1)
    return sdk::invalid(
        "the pytorch encoding expects exactly one graph builder (a TorchScript archive), got " +
        std::to_string(req.builders().size()));
  const wasinn_bytes &archive = req.builders()[0];
  if (!archive.data || archive.length == 0)
    return sdk::invalid("the TorchScript archive is empty (0 bytes)");
  if (Error e = check_graph_config(req.config())) return e;

  return catch_torch([&]() -> Error {
    TorchWarnings warnings;
    auto g = std::make_unique<TorchGraph>();
    g->module_ = std::make_unique<TorchModule>();
    TorchModule &m = *g->module_;
    if (Error e = pick_device(req.target(), m.device)) return e;
    const char *path = req.path(0);
    const std::string what = path ? std::string(path) : "the model";

    auto reader = std::make_shared<BytesReader>(archive.data, archive.length);
    try {
      m.module = torch::jit::load(reader, m.device);
    } catch (const std::exception &e) {  // bad_alloc included: the bytes are the likelier culprit
      return sdk::invalid(what + ": not a TorchScript archive this libtorch can load: " +
                          exception_summary(e));
    }
    if (reader.use_count() != 1)  // libtorch would read bytes the host is about to free
      return sdk::runtime_error("libtorch kept a reference to the model bytes after loading");
    m.module.eval();
    auto forward = m.module.find_method("forward");
    if (!forward) return sdk::invalid(what + ": the TorchScript module has no forward method");
    m.forward.emplace(std::move(*forward));
    describe_io(m.forward->function().getSchema(), m.args, g->inputs_, g->outputs_);
    out = std::move(g);
    return {};
  });
}

}  // namespace wasinn::pytorch
