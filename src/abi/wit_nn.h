// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The WIT guest ABI, `wasi:nn@0.2.0-rc-*` (world `ml`), as one component guest's resources over
// an NnSession: the third guest ABI on the same core as the witx ones. The engine binding lifts
// the canonical ABI into values (names for enum cases, vectors for lists) and passes resource
// representations ("reps") in and out; this layer decodes and checks them and owns what the
// guest's handles stand for. Graph and context reps are the NnSession's handles; tensor and
// error reps are this session's. Used by one thread at a time (a component store's).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/handle_table.h"
#include "core/nn_session.h"
#include "core/types.h"

namespace wasinn::wit_nn {

// The versions served, oldest first. 06-25 and 08-19 have set-input/compute/get-output (06-25
// also an error constructor); 10-28 has compute(list<named-tensor>).
enum class Version : uint8_t { rc_2024_06_25, rc_2024_08_19, rc_2024_10_28 };
inline constexpr Version kVersions[] = {Version::rc_2024_06_25, Version::rc_2024_08_19, Version::rc_2024_10_28};
std::string_view version_name(Version v);  // "0.2.0-rc-2024-10-28"

// Enum cases as WIT spells them, compared without regard to case ("FP32", "onnx").
Result<TensorType> decode_tensor_type(std::string_view case_name);
Result<std::string_view> tensor_type_case(TensorType type);  // i8 has no WIT case
Result<Encoding> decode_encoding(std::string_view case_name, std::span<const std::span<const uint8_t>> builders);
Result<Target> decode_target(std::string_view case_name);
// The WIT error-code for a core error: WasmEdge's LLM codes go to the nearest one.
std::string_view error_code_case(Errc code);
Result<Errc> decode_error_code(std::string_view case_name);

struct SpareBytes;

struct NamedRep {
  std::string name;
  uint32_t tensor;
};

class WitSession {
 public:
  explicit WitSession(std::shared_ptr<NnSession> session);

  // tensor: WIT's constructor cannot return an error, so a tensor over the limits (rank, bytes)
  // is made without its bytes and refused by the call that uses it (compute, set-input), with
  // too-large or invalid-argument; only a full table (--max-tensors) is an error here (a trap).
  Result<uint32_t> new_tensor(TensorView tensor);
  // An output: made, or refused at once (the compute that made it fails).
  Result<uint32_t> new_tensor(OwnedTensor tensor);
  Result<std::shared_ptr<const OwnedTensor>> tensor(uint32_t rep) const;
  Status drop_tensor(uint32_t rep);

  // graph
  Result<uint32_t> load(std::span<const std::span<const uint8_t>> builders, std::string_view encoding,
                        std::string_view target);
  Result<uint32_t> load_by_name(std::string_view name);
  Result<uint32_t> init_execution_context(uint32_t graph);
  Status drop_graph(uint32_t graph);
  Status drop_context(uint32_t context);

  // inference, 10-28: the input tensors are the guest's own handles, consumed by the call
  // (dropped here whatever the outcome); the outputs are new tensors.
  Result<std::vector<NamedRep>> compute(uint32_t context, std::span<const NamedRep> inputs);
  // inference, 06-25 and 08-19: set-input consumes its tensor; get-output makes a new one.
  Status set_input(uint32_t context, std::string_view name, uint32_t tensor);
  Status compute(uint32_t context);
  Result<uint32_t> get_output(uint32_t context, std::string_view name);

  // errors: a failed call's Error becomes an error resource (a trap if the guest holds too many).
  Result<uint32_t> keep_error(Error error);
  Result<std::shared_ptr<const Error>> error(uint32_t rep) const;
  Status drop_error(uint32_t rep);

  size_t live_tensors() const { return tensors_.size(); }

  // wasinn:nn-ext (describe, properties, prompt) and wasinn:nn-async's cancel, over the same
  // session (wit_nn_ext.cpp). A handle the guest does not hold is the canonical ABI's misuse:
  // borrow_graph and borrow_context say so, and the import layer traps; every other refusal
  // is the call's own answer.
  Status borrow_graph(uint32_t graph) const;
  Status borrow_context(uint32_t context) const;
  struct Io {
    std::string_view name;
    std::string_view type;                         // its WIT case, "" when unknown or i8
    std::optional<std::span<const int64_t>> dims;  // -1: dynamic; none when the rank is unknown
  };
  // The graph's inputs or outputs; the views live as long as the guest holds the graph.
  Result<std::vector<Io>> describe(uint32_t graph, bool outputs) const;
  Result<std::vector<GraphProperty>> properties(uint32_t graph) const;
  Result<std::string> get_property(uint32_t graph, std::string_view name) const;
  Status set_graph_property(uint32_t graph, std::string_view name, std::string_view value);
  Status set_context_property(uint32_t context, std::string_view name, std::string_view value);
  Result<uint32_t> init_prompt_context(uint32_t graph);
  Result<std::string> prompt(uint32_t context, std::string_view text);
  Status prompt_start(uint32_t context, std::string_view input, std::string_view text);
  Result<std::optional<std::string>> prompt_next(uint32_t context);
  Result<std::string> prompt_metadata(uint32_t context);
  Status cancel(uint32_t context);

 private:
  // What the older versions keep between set-input, compute and get-output, per context.
  struct PendingIo {
    std::vector<std::pair<std::string, std::shared_ptr<const OwnedTensor>>> inputs;
    std::vector<NamedTensor> outputs;
  };
  Result<std::shared_ptr<const OwnedTensor>> take_tensor(uint32_t rep);
  // Why a tensor is refused (rank, bytes), or nothing.
  std::optional<Error> over_limits(size_t rank, size_t bytes) const;

  std::shared_ptr<NnSession> session_;
  std::shared_ptr<SpareBytes> spare_;  // shared with the tensors, which may outlive the session
  HandleTable<const OwnedTensor> tensors_;
  HandleTable<const Error> errors_;
  std::unordered_map<uint32_t, Error> refused_;  // tensors made over the limits, by rep
  std::mutex pending_mu_;
  std::unordered_map<uint32_t, PendingIo> pending_;
};

}  // namespace wasinn::wit_nn
