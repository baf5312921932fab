// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/wit_nn.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "core/model_format.h"

namespace wasinn::wit_nn {

namespace {

bool same_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

struct TypeCase {
  std::string_view name;
  TensorType type;
};
// tensor-type's cases in declaration order.
constexpr TypeCase kTypeCases[] = {{"FP16", TensorType::f16},  {"FP32", TensorType::f32}, {"FP64", TensorType::f64},
                                   {"BF16", TensorType::bf16}, {"U8", TensorType::u8},    {"I32", TensorType::i32},
                                   {"I64", TensorType::i64}};

constexpr std::string_view kErrorCases[] = {
    "invalid-argument", "invalid-encoding", "timeout",  "runtime-error", "unsupported-operation",
    "too-large",        "not-found",        "security", "unknown"};

}  // namespace

// The bytes of the guest's last tensor, kept when it is dropped for the guest's next one: a
// serving guest makes a tensor of the same size per request, each a fresh allocation otherwise
// (for an image, above glibc's mmap threshold: mapped, faulted in page by page and unmapped).
// At most one buffer of at most kMaxKept bytes per session. Locked: the last holder of a tensor
// (a pending input, a compute) may drop it on another thread.
struct SpareBytes {
  static constexpr size_t kMaxKept = size_t{16} << 20;
  std::mutex mu;
  std::vector<uint8_t> bytes;

  // The spare, if it fits `need` bytes without more than doubling them (a small tensor kept long
  // must not pin a large buffer).
  std::vector<uint8_t> take(size_t need) {
    std::lock_guard lock(mu);
    if (bytes.capacity() < need || bytes.capacity() / 2 > need) return {};
    return std::exchange(bytes, {});
  }
  void give(std::vector<uint8_t>&& freed) {
    if (freed.capacity() > kMaxKept) return;
    std::lock_guard lock(mu);
    if (freed.capacity() > bytes.capacity()) bytes = std::move(freed);
  }
};

namespace {

// A guest tensor's deleter: its bytes go back to the session's spare.
struct GiveBytesBack {
  std::shared_ptr<SpareBytes> spare;
  void operator()(const OwnedTensor* tensor) const {
    auto* owned = const_cast<OwnedTensor*>(tensor);  // made non-const by new_tensor
    spare->give(std::move(owned->data));
    delete owned;
  }
};

}  // namespace

std::string_view version_name(Version v) {
  switch (v) {
    case Version::rc_2024_06_25: return "0.2.0-rc-2024-06-25";
    case Version::rc_2024_08_19: return "0.2.0-rc-2024-08-19";
    case Version::rc_2024_10_28: return "0.2.0-rc-2024-10-28";
  }
  return "?";
}

Result<TensorType> decode_tensor_type(std::string_view case_name) {
  for (const auto& c : kTypeCases) {
    if (same_case(c.name, case_name)) return c.type;
  }
  return make_error(Errc::invalid_argument, fmt::format("tensor type '{}' is not a wasi:nn tensor-type", case_name));
}

Result<std::string_view> tensor_type_case(TensorType type) {
  for (const auto& c : kTypeCases) {
    if (c.type == type) return c.name;
  }
  return make_error(Errc::unsupported_operation,
                    fmt::format("the model's {} tensor has no wasi:nn tensor-type (FP16 FP32 FP64 BF16 U8 I32 I64)",
                                type_name(type)));
}

Result<Encoding> decode_encoding(std::string_view case_name, std::span<const std::span<const uint8_t>> builders) {
  if (same_case(case_name, "autodetect")) {
    if (auto e = detect_encoding(builders)) return *e;
    return make_error(Errc::invalid_encoding, std::string(kNoKnownFormat));
  }
  // The other cases are the core's encoding names.
  // remote is the core's own (named models only): no WIT case reaches it.
  if (auto e = parse_encoding(case_name); e && *e != Encoding::autodetect && *e != Encoding::remote) return *e;
  return make_error(Errc::invalid_encoding, fmt::format("graph encoding '{}' is not supported", case_name));
}

Result<Target> decode_target(std::string_view case_name) {
  for (Target t : {Target::cpu, Target::gpu, Target::tpu}) {
    if (same_case(case_name, target_name(t))) return t;
  }
  return make_error(Errc::invalid_argument, fmt::format("execution target '{}' is not cpu, gpu or tpu", case_name));
}

std::string_view error_code_case(Errc code) {
  switch (code) {  // core/errc.def's WIT error-code
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) \
  case Errc::name:                                                                     \
    return wit_case;
#include "core/errc.def"
#undef WASINN_ERRC
  }
  return "unknown";  // not an Errc at all (a cast of a stray number)
}

Result<Errc> decode_error_code(std::string_view case_name) {
  for (auto c : kErrorCases) {
    if (!same_case(c, case_name)) continue;
    for (size_t i = 0; i < kErrcCount; ++i) {
      if (error_code_case(static_cast<Errc>(i)) == c) return static_cast<Errc>(i);
    }
  }
  return make_error(Errc::invalid_argument, fmt::format("'{}' is not a wasi:nn error-code", case_name));
}

WitSession::WitSession(std::shared_ptr<NnSession> session)
    : session_(std::move(session)),
      spare_(std::make_shared<SpareBytes>()),
      tensors_("tensor", session_->environment().limits().max_tensors, "--max-tensors"),
      errors_("error", session_->environment().limits().max_tensors, "--max-tensors") {}

std::optional<Error> WitSession::over_limits(size_t rank, size_t bytes) const {
  const Limits& limits = session_->environment().limits();
  if (rank > limits.max_rank) {
    return Error{Errc::invalid_argument,
                 fmt::format("tensor of rank {} exceeds the limit of {}", rank, limits.max_rank)};
  }
  if (bytes > limits.max_tensor_bytes) {
    return Error{Errc::too_large, fmt::format("tensor of {} bytes exceeds the tensor limit of {} (--max-tensor-bytes)",
                                              bytes, limits.max_tensor_bytes)};
  }
  return std::nullopt;
}

Result<uint32_t> WitSession::new_tensor(TensorView tensor) {
  auto refusal = over_limits(tensor.dims.size(), tensor.data.size());
  auto kept = std::make_unique<OwnedTensor>(OwnedTensor{tensor.type, {}, {}});
  if (!refusal) {
    kept->dims.assign(tensor.dims.begin(), tensor.dims.end());
    kept->data = spare_->take(tensor.data.size());
    kept->data.assign(tensor.data.begin(), tensor.data.end());  // the one copy of the guest's bytes
  }
  auto rep = tensors_.insert(std::shared_ptr<const OwnedTensor>(kept.release(), GiveBytesBack{spare_}));
  if (rep && refusal) refused_.emplace(*rep, std::move(*refusal));
  return rep;
}

Result<uint32_t> WitSession::new_tensor(OwnedTensor tensor) {
  if (auto refusal = over_limits(tensor.dims.size(), tensor.data.size())) return std::move(*refusal);
  return tensors_.insert(std::make_shared<const OwnedTensor>(std::move(tensor)));
}

Result<std::shared_ptr<const OwnedTensor>> WitSession::tensor(uint32_t rep) const { return tensors_.get(rep); }

Result<std::shared_ptr<const OwnedTensor>> WitSession::take_tensor(uint32_t rep) {
  auto t = tensors_.erase(rep);
  if (!t) return t;
  if (auto refused = refused_.find(rep); refused != refused_.end()) {
    Error why = std::move(refused->second);
    refused_.erase(refused);
    return why;
  }
  return t;
}

Status WitSession::drop_tensor(uint32_t rep) {
  auto t = tensors_.erase(rep);
  if (!t) return t.take_error();
  refused_.erase(rep);
  return {};
}

Result<uint32_t> WitSession::load(std::span<const std::span<const uint8_t>> builders, std::string_view encoding,
                                  std::string_view target) {
  auto t = decode_target(target);
  if (!t) return t.take_error();
  auto e = decode_encoding(encoding, builders);
  if (!e) return e.take_error();
  return session_->load(builders, *e, *t);
}

Result<uint32_t> WitSession::load_by_name(std::string_view name) { return session_->load_by_name(name, {}); }

Result<uint32_t> WitSession::init_execution_context(uint32_t graph) {
  auto ctx = session_->init_execution_context(graph);
  if (!ctx) return ctx;
  // WIT's tensors say their type: a plugin that asks (backend_plugin.h) is told so.
  auto g = session_->graph(graph);
  if (!g) return g.take_error();
  const auto& props = (*g)->properties();
  const bool asks = std::any_of(props.begin(), props.end(), [](const GraphProperty& p) {
    return p.settable && p.name == WASINN_PROPERTY_TYPED_OUTPUTS;
  });
  if (asks) {
    if (Status set = session_->set_context_property(*ctx, WASINN_PROPERTY_TYPED_OUTPUTS, "true"); !set) {
      (void)session_->finalize_execution_context(*ctx);
      return set.take_error();
    }
  }
  return ctx;
}

Status WitSession::drop_graph(uint32_t graph) { return session_->unload(graph); }

Status WitSession::drop_context(uint32_t context) {
  {
    std::lock_guard lock(pending_mu_);
    pending_.erase(context);
  }
  return session_->finalize_execution_context(context);
}

Result<std::vector<NamedRep>> WitSession::compute(uint32_t context, std::span<const NamedRep> inputs) {
  // Each input is the guest's to give away: taken first, so every one is released on any outcome.
  std::vector<std::shared_ptr<const OwnedTensor>> held;
  std::optional<Error> bad_handle;
  for (const auto& in : inputs) {
    auto t = take_tensor(in.tensor);
    if (t)
      held.push_back(std::move(*t));
    else if (!bad_handle)
      bad_handle = t.take_error();
  }
  if (bad_handle) return std::move(*bad_handle);
  std::vector<NamedInput> named;
  named.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) named.push_back(NamedInput{inputs[i].name, held[i]->view()});
  auto outputs = session_->compute_named(context, named);
  if (!outputs) return outputs.take_error();
  std::vector<NamedRep> reps;
  for (auto& out : *outputs) {
    // Every output is the guest's now, as a witx guest's get_output counts each it copies out.
    session_->count_output_bytes(context, out.tensor.data.size());
    auto rep = new_tensor(std::move(out.tensor));
    if (!rep) {
      for (const auto& r : reps) (void)drop_tensor(r.tensor);
      return rep.take_error();
    }
    reps.push_back(NamedRep{std::move(out.name), *rep});
  }
  return reps;
}

Status WitSession::set_input(uint32_t context, std::string_view name, uint32_t tensor) {
  auto t = take_tensor(tensor);
  if (!t) return t.take_error();
  // A wrong context is named now, as a witx set_input would, not at compute.
  if (Status known = session_->check_context(context); !known) return known;
  std::lock_guard lock(pending_mu_);
  auto& io = pending_[context];
  auto same = std::find_if(io.inputs.begin(), io.inputs.end(), [&](const auto& in) { return in.first == name; });
  if (same != io.inputs.end())
    same->second = std::move(*t);
  else
    io.inputs.emplace_back(std::string(name), std::move(*t));
  return {};
}

Status WitSession::compute(uint32_t context) {
  std::vector<NamedInput> named;
  std::vector<std::pair<std::string, std::shared_ptr<const OwnedTensor>>> inputs;
  {
    std::lock_guard lock(pending_mu_);
    inputs = pending_[context].inputs;
  }
  for (const auto& [name, t] : inputs) named.push_back(NamedInput{name, t->view()});
  auto outputs = session_->compute_named(context, named);
  std::lock_guard lock(pending_mu_);
  if (!outputs) {
    pending_.erase(context);
    return outputs.take_error();
  }
  pending_[context].outputs = std::move(*outputs);
  return {};
}

Result<uint32_t> WitSession::get_output(uint32_t context, std::string_view name) {
  OwnedTensor copy;
  {
    std::lock_guard lock(pending_mu_);
    auto io = pending_.find(context);
    if (io == pending_.end() || io->second.outputs.empty()) {
      return make_error(
          Errc::invalid_argument,
          fmt::format("get-output('{}'): execution context {} has no outputs; call compute first", name, context));
    }
    const auto& outs = io->second.outputs;
    auto it = std::find_if(outs.begin(), outs.end(), [&](const NamedTensor& t) { return t.name == name; });
    if (it == outs.end()) {
      std::vector<std::string_view> names;
      for (const auto& t : outs) names.push_back(t.name);
      return make_error(Errc::invalid_argument, fmt::format("the model has no output named '{}'; its outputs are {}",
                                                            name, fmt::join(names, ", ")));
    }
    copy = it->tensor;
  }
  session_->count_output_bytes(context, copy.data.size());
  return new_tensor(std::move(copy));
}

Result<uint32_t> WitSession::keep_error(Error error) {
  return errors_.insert(std::make_shared<const Error>(std::move(error)));
}

Result<std::shared_ptr<const Error>> WitSession::error(uint32_t rep) const { return errors_.get(rep); }

Status WitSession::drop_error(uint32_t rep) {
  auto e = errors_.erase(rep);
  if (!e) return e.take_error();
  return {};
}

}  // namespace wasinn::wit_nn
