// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// graph_load: request checks, the TorchScript archive read straight from the builder bytes, and
// the io description taken from forward's schema.
#include "graph.h"

#include <ATen/Context.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "archive_check.h"
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
// libtorch allocates each record before reading it, and a pickle may load one storage record
// again and again (torch.jit.save memoizes each storage: once is what it writes), so reads stop
// at twice the archive and 1 MiB: a real load reads each byte about once.
class BytesReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  BytesReader(const uint8_t* data, size_t size) : data_(data), size_(size), budget_(2 * uint64_t{size} + (1 << 20)) {}
  size_t size() const override { return size_; }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - pos));
    if (n > budget_) {
      exhausted_ = true;
      return 0;  // libtorch's zip reader fails the record: load says why from exhausted()
    }
    budget_ -= n;
    read_ += n;
    std::memcpy(buf, data_ + pos, n);
    return n;
  }
  bool exhausted() const { return exhausted_; }
  uint64_t bytes_read() const { return read_; }

 private:
  const uint8_t* data_;
  size_t size_;
  mutable uint64_t budget_;
  mutable uint64_t read_ = 0;
  mutable bool exhausted_ = false;
};

Error pick_device(const TorchBackend& backend, int32_t target, c10::Device& out) {
  const bool cuda = backend.cuda().count > 0;
  switch (target) {
    case WASINN_TARGET_CPU: out = c10::Device(c10::kCPU); return {};
    case WASINN_TARGET_AUTO:  // the accelerator when there is one: that is what "auto" asks
      out = cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
      return {};
    case WASINN_TARGET_GPU:
      // Never a silent CPU fallback: a guest asking for a GPU must learn it has none.
      if (!cuda)
        return sdk::unsupported("target gpu is not available: " + backend.cuda().unavailable +
                                "; use target cpu or auto");
      out = c10::Device(c10::kCUDA, 0);
      return {};
    case WASINN_TARGET_TPU:
      return sdk::unsupported(
          "target tpu is not available: libtorch has no TPU support; use "
          "target cpu or auto");
    default: return sdk::invalid("unknown execution target " + std::to_string(target));
  }
}

// What a TorchScript type is to wasinn; Optional[T] is T (unset, it takes its default).
ArgKind kind_of(const c10::TypePtr& type) {
  c10::TypePtr t = type;
  if (auto opt = t->cast<c10::OptionalType>()) t = opt->getElementType();
  switch (t->kind()) {
    case c10::TypeKind::TensorType: return ArgKind::tensor;
    case c10::TypeKind::IntType: return ArgKind::int_scalar;
    case c10::TypeKind::FloatType: return ArgKind::float_scalar;
    case c10::TypeKind::BoolType: return ArgKind::bool_scalar;
    default: return ArgKind::unsupported;
  }
}

// One input or output slot of TorchScript type `type`. A scalar declares its wasinn type with
// rank 0; a tensor keeps type unknown and rank -1 (TorchScript declares no dtype or shape).
sdk::IoDesc describe_slot(std::string name, const c10::TypePtr& type, ArgKind kind) {
  sdk::IoDesc d;
  d.name = std::move(name);
  d.framework_type = "TorchScript " + type->annotation_str();
  if (is_scalar(kind)) {
    d.type = declared_type(kind);
    d.rank = 0;
  } else if (kind == ArgKind::unsupported) {
    d.not_a_tensor = "a " + d.framework_type;
  }
  return d;
}

// A tuple's elements depth-first, as compute flattens them, so declared and computed indices
// agree. A name joins the NamedTuple field names on the way with "." ("stats.mean"); a plain
// tuple's element under a named level adds its position ("stats.0"); a leaf with no named level
// is "output<i>", i its flat index (the name the host gives an unnamed output, so witx and WIT
// guests see one name). A single Tensor or scalar is "output0".
void declare_outputs(const c10::TypePtr& type, const std::string& name, std::vector<sdk::IoDesc>& outputs) {
  auto tuple = type->cast<c10::TupleType>();
  if (!tuple) {
    outputs.push_back(
        describe_slot(name.empty() ? sdk::default_output_name(outputs.size()) : name, type, kind_of(type)));
    return;
  }
  const auto* fields = tuple->schema() ? &tuple->schema()->arguments() : nullptr;
  for (size_t i = 0; i < tuple->elements().size(); ++i) {
    std::string field = fields && i < fields->size() ? (*fields)[i].name() : std::string();
    if (!name.empty()) field = name + "." + (field.empty() ? std::to_string(i) : field);
    declare_outputs(tuple->elements()[i], field, outputs);
  }
}

// ", optional (default 2)" for an argument with a default that is not already Optional[...]:
// compute passes the default when the argument is not set, and the host reads "optional" in an
// input's framework words as "a WIT guest may leave it out" (src/core/named_io.h).
std::string default_words(const c10::IValue& fallback) {
  if (fallback.isInt() || fallback.isDouble() || fallback.isBool())
    return " (optional, default " + c10::str(fallback) + ")";
  return " (optional, has a default)";
}

// Inputs and outputs from forward's schema.
void describe_io(const c10::FunctionSchema& schema, std::vector<InputArg>& args, std::vector<sdk::IoDesc>& inputs,
                 std::vector<sdk::IoDesc>& outputs) {
  const auto& params = schema.arguments();
  for (size_t i = 1; i < params.size(); ++i) {  // argument 0 is self
    InputArg& a = args.emplace_back();
    a.type_name = params[i].type()->annotation_str();
    a.kind = kind_of(params[i].type());
    if (params[i].default_value()) a.fallback = *params[i].default_value();
    inputs.push_back(describe_slot(params[i].name(), params[i].type(), a.kind));
    if (a.fallback && !params[i].type()->cast<c10::OptionalType>())
      inputs.back().framework_type += default_words(*a.fallback);
  }
  if (schema.returns().size() != 1) return;
  const c10::TypePtr& ret = schema.returns()[0].type();
  // A list's or dict's length is known only after a compute: no declared outputs.
  if (ret->kind() == c10::TypeKind::ListType || ret->kind() == c10::TypeKind::DictType) return;
  declare_outputs(ret, "", outputs);
}

}  // namespace

TorchGraph::TorchGraph() = default;
TorchGraph::~TorchGraph() = default;

Error TorchGraph::load(const TorchBackend& backend, const sdk::LoadRequest& req, std::unique_ptr<TorchGraph>& out) {
  if (Error e = req.expect_encoding(TorchBackend::kName, "pytorch")) return e;
  if (Error e =
          req.expect_one_builder("the pytorch encoding expects exactly one graph builder (a TorchScript archive)"))
    return e;
  const wasinn_bytes& archive = req.builders()[0];
  if (!archive.data || archive.length == 0) return sdk::invalid("the TorchScript archive is empty (0 bytes)");
  if (Error e = check_graph_config(req.config())) return e;

  return catch_torch([&]() -> Error {
    TorchWarnings warnings;
    auto g = std::make_unique<TorchGraph>();
    g->module_ = std::make_unique<TorchModule>();
    TorchModule& m = *g->module_;
    if (Error e = pick_device(backend, req.target(), m.device)) return e;
    const char* path = req.path(0);
    const std::string what = path ? std::string(path) : "the model";

    // Sizes libtorch would allocate before reading are checked first (archive_check.h).
    if (Error e = check_archive({archive.data, archive.length})) return sdk::invalid(what + ": " + e.detail);
    auto reader = std::make_shared<BytesReader>(archive.data, archive.length);
    try {
      m.module = torch::jit::load(reader, m.device);
    } catch (const std::exception& e) {  // bad_alloc included: the bytes are the likelier culprit
      if (reader->exhausted())
        return sdk::invalid(what + ": a malformed TorchScript archive: libtorch read " +
                            std::to_string(reader->bytes_read()) + " bytes of its " + std::to_string(archive.length) +
                            " and asked for more (a pickle loading the same storage again and again?)");
      return sdk::invalid(what + ": not a TorchScript archive this libtorch can load: " + exception_summary(e));
    }
    if (reader.use_count() != 1)  // libtorch would read bytes the host is about to free
      return sdk::runtime_error("libtorch kept a reference to the model bytes after loading");
    m.module.eval();
    auto forward = m.module.find_method("forward");
    if (!forward) return sdk::invalid(what + ": the TorchScript module has no forward method");
    m.forward.emplace(std::move(*forward));
    describe_io(m.forward->function().getSchema(), m.args, g->inputs_, g->outputs_);
    g->properties_ = {{"device", m.device.str(), false}};
    out = std::move(g);
    return {};
  });
}

Error TorchGraph::check_property(std::string_view name, std::string_view) const {
  return sdk::not_settable(TorchBackend::kName, name);
}

}  // namespace wasinn::pytorch
