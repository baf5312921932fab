// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The WIT ABI (wasi:nn@0.2.0-rc-*, abi/wit_nn through the engine's table, engine/wit_host.h):
// what a component can still get wrong once Wasmtime has lifted its values: names (unknown, twice, missing), a tensor
// whose type or bytes do not fit the model, handles used after compute consumed or the guest dropped them, enum cases
// no backend serves, outputs asked for before compute. The expected errno is the witx one of the same core error; each
// body also checks the WIT error-code the guest would see.
#include <cstring>

#include "abi/wit_nn.h"
#include "engine/guest_state.h"
#include "engine/wit_nn_imports.h"
#include "engine/wit_str.h"
#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

constexpr auto W = Abi::wit;

// One component guest's resources over its own session in the shared environment, reached
// through the engine's table (engine/wit_host.h) as the typed Rust imports reach them. A failed
// call's error resource is read back (its WIT code as the core error it names, its detail) and
// dropped; a trap, which ends a real guest, is recorded as invalid_argument with "trap: ...".
struct WitGuest {
  GuestState state;
  const wasinn_wit_host& t = wit_host_table();
  WitGuest() {
    state.session = std::make_shared<NnSession>(HostUnderTest::get().shared_env());
    state.wit = std::make_shared<wit_nn::WitSession>(state.session);
  }
  void* guest() { return &state; }

  // The table's outcome as the core's: the rep made, or the error the guest would read.
  Result<uint32_t> outcome(wasinn_wit_status status, const wasinn_wit_out& out) {
    if (status == WASINN_WIT_OK) return out.rep;
    if (status == WASINN_WIT_TRAP) {
      return make_error(Errc::invalid_argument, "trap: " + std::string(out.message.data, out.message.len));
    }
    wasinn_wit_out e{};
    EXPECT_EQ(t.error_code(guest(), out.rep, &e), WASINN_WIT_OK);
    auto code = wit_nn::decode_error_code({static_cast<const char*>(e.data), e.len});
    EXPECT_TRUE(code.ok()) << "an error code outside the WIT enum";
    EXPECT_EQ(t.error_data(guest(), out.rep, &e), WASINN_WIT_OK);
    Error error{code.ok() ? *code : Errc::unknown, std::string(static_cast<const char*>(e.data), e.len)};
    EXPECT_EQ(t.drop(guest(), WASINN_WIT_ERROR, out.rep, &e), WASINN_WIT_OK);
    return error;
  }
  static Status status(Result<uint32_t> r) { return r.ok() ? Status() : Status(r.take_error()); }

  Result<uint32_t> load(std::span<const std::span<const uint8_t>> builders, std::string_view encoding,
                        std::string_view target) {
    std::vector<wasinn_wit_bytes> raw;
    for (const auto& b : builders) raw.push_back({b.data(), b.size()});
    wasinn_wit_out out{};
    return outcome(t.graph_load(guest(), raw.data(), raw.size(), wit_str(encoding), wit_str(target), &out), out);
  }
  Result<uint32_t> load_by_name(std::string_view name) {
    wasinn_wit_out out{};
    return outcome(t.graph_load_by_name(guest(), wit_str(name), &out), out);
  }
  Result<uint32_t> init_execution_context(uint32_t graph) {
    wasinn_wit_out out{};
    return outcome(t.graph_init_execution_context(guest(), graph, &out), out);
  }
  Result<uint32_t> new_tensor(TensorType type, std::vector<uint32_t> dims, std::vector<uint8_t> data) {
    wasinn_wit_out out{};
    const std::string_view name = wit_nn::tensor_type_case(type).value();
    return outcome(t.tensor_new(guest(), dims.data(), dims.size(), wit_str(name), {data.data(), data.size()}, &out),
                   out);
  }
  Status read_tensor(uint32_t tensor) {
    wasinn_wit_out out{};
    return status(outcome(t.tensor_data(guest(), tensor, &out), out));
  }
  Status read_error(uint32_t error) {
    wasinn_wit_out out{};
    return status(outcome(t.error_data(guest(), error, &out), out));
  }
  Status drop(wasinn_wit_resource kind, uint32_t rep) {
    wasinn_wit_out out{};
    return status(outcome(t.drop(guest(), kind, rep, &out), out));
  }
  Status set_input(uint32_t ctx, std::string_view name, uint32_t tensor) {
    wasinn_wit_out out{};
    return status(outcome(t.graph_execution_context_set_input(guest(), ctx, wit_str(name), tensor, &out), out));
  }
  Status compute(uint32_t ctx) {
    wasinn_wit_out out{};
    return status(outcome(t.graph_execution_context_compute(guest(), ctx, &out), out));
  }
  Result<uint32_t> get_output(uint32_t ctx, std::string_view name) {
    wasinn_wit_out out{};
    return outcome(t.graph_execution_context_get_output(guest(), ctx, wit_str(name), &out), out);
  }
  Status compute(uint32_t ctx, std::vector<wit_nn::NamedRep> inputs) {
    std::vector<wasinn_wit_named> named;
    for (const auto& in : inputs) named.push_back({wit_str(in.name), in.tensor});
    wasinn_wit_out out{};
    return status(
        outcome(t.graph_execution_context_compute_inputs(guest(), ctx, named.data(), named.size(), &out), out));
  }

  uint32_t graph() {
    const auto& model = HostUnderTest::get().fixture("digits/model.onnx");
    const std::span<const uint8_t> b(model);
    auto g = load(std::span(&b, 1), "onnx", "cpu");
    EXPECT_TRUE(g.ok()) << "setup: load";
    return g.ok() ? *g : 0;
  }
  uint32_t context() {
    auto c = init_execution_context(graph());
    EXPECT_TRUE(c.ok()) << "setup: init-execution-context";
    return c.ok() ? *c : 0;
  }
  uint32_t tensor(TensorType type, std::vector<uint32_t> dims, std::vector<uint8_t> data) {
    auto t = new_tensor(type, std::move(dims), std::move(data));
    EXPECT_TRUE(t.ok()) << "setup: tensor";
    return t.ok() ? *t : 0;
  }
  uint32_t digit(const CaseRun& r) {
    const auto& px = HostUnderTest::get().digit(r.sample).pixels;
    std::vector<uint8_t> bytes(px.size() * sizeof(float));
    std::memcpy(bytes.data(), px.data(), bytes.size());
    return tensor(TensorType::f32, {1, 64}, std::move(bytes));
  }
};

// The WIT error-code the guest gets for the status, checked against `code`.
Status as_wit(Status s, std::string_view code) {
  if (!s.ok()) {
    EXPECT_EQ(wit_nn::error_code_case(s.error().code), code) << s.error().detail;
  }
  return s;
}
template <class T>
Status as_wit(Result<T> r, std::string_view code) {
  return as_wit(r.ok() ? Status() : Status(r.take_error()), code);
}

const CaseList kWitCases{
    {"wit", "compute_unknown_input_name", W, kNone, kInvalidArgument, "compute([(\"nope\", digit)])",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t ctx = g.context();
       return as_wit(g.compute(ctx, {{"nope", g.digit(r)}}), "invalid-argument");
     }},
    {"wit", "compute_same_name_twice", W, kNone, kInvalidArgument, "compute([(input, t1), (input, t2)])",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t ctx = g.context();
       return as_wit(g.compute(ctx, {{"input", g.digit(r)}, {"input", g.digit(r)}}), "invalid-argument");
     }},
    {"wit", "compute_without_the_required_input", W, kNone, kInvalidArgument, "compute([])",
     [](CaseRun&) {
       WitGuest g;
       return as_wit(g.compute(g.context(), {}), "invalid-argument");
     }},
    {"wit", "compute_wrong_tensor_type", W, kNone, kInvalidArgument, "U8 [1, 64] for an f32 input",
     [](CaseRun&) {
       WitGuest g;
       const uint32_t ctx = g.context();
       return as_wit(g.compute(ctx, {{"input", g.tensor(TensorType::u8, {1, 64}, std::vector<uint8_t>(64))}}),
                     "invalid-argument");
     }},
    {"wit", "compute_bytes_do_not_fit_dims", W, kNone, kInvalidArgument, "FP32 [1, 64] with 10 bytes",
     [](CaseRun&) {
       WitGuest g;
       const uint32_t ctx = g.context();
       return as_wit(g.compute(ctx, {{"input", g.tensor(TensorType::f32, {1, 64}, std::vector<uint8_t>(10))}}),
                     "invalid-argument");
     }},
    {"wit", "compute_with_a_consumed_tensor", W, kNone, kInvalidArgument, "the same tensor in a second compute",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t ctx = g.context();
       const uint32_t t = g.digit(r);
       EXPECT_TRUE(g.compute(ctx, {{"input", t}}).ok()) << "setup: first compute";
       return as_wit(g.compute(ctx, {{"input", t}}), "invalid-argument");
     }},
    {"wit", "compute_on_a_dropped_context", W, kNone, kInvalidArgument, "compute after the context's drop",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t ctx = g.context();
       EXPECT_TRUE(g.drop(WASINN_WIT_CONTEXT, ctx).ok());
       return as_wit(g.compute(ctx, {{"input", g.digit(r)}}), "invalid-argument");
     }},
    {"wit", "tensor_rank_over_the_limit", W, kNone, kInvalidArgument, "a tensor of rank 65, used by compute",
     [](CaseRun&) {
       WitGuest g;
       const uint32_t ctx = g.context();
       // WIT's constructor has no error: the tensor is made and its refusal is compute's answer.
       return as_wit(g.compute(ctx, {{"input", g.tensor(TensorType::u8, std::vector<uint32_t>(65, 1), {1})}}),
                     "invalid-argument");
     }},
    {"wit", "tensor_read_after_drop", W, kNone, kInvalidArgument, "tensor.data() after the tensor's drop",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t t = g.digit(r);
       EXPECT_TRUE(g.drop(WASINN_WIT_TENSOR, t).ok());
       return as_wit(g.read_tensor(t), "invalid-argument");
     }},
    {"wit", "load_unsupported_encoding_case", W, kNone, kInvalidEncoding, "load(digits, \"nope\", cpu)",
     [](CaseRun&) {
       WitGuest g;
       const auto& model = HostUnderTest::get().fixture("digits/model.onnx");
       const std::span<const uint8_t> b(model);
       return as_wit(g.load(std::span(&b, 1), "nope", "cpu"), "invalid-encoding");
     }},
    {"wit", "load_autodetect_garbage", W, kNone, kInvalidEncoding, "load(\"garbage\", autodetect, cpu)",
     [](CaseRun&) {
       WitGuest g;
       static const std::vector<uint8_t> garbage{'g', 'a', 'r', 'b', 'a', 'g', 'e'};
       const std::span<const uint8_t> b(garbage);
       return as_wit(g.load(std::span(&b, 1), "autodetect", "cpu"), "invalid-encoding");
     }},
    {"wit", "load_no_builders", W, kNone, kInvalidArgument, "load([], onnx, cpu)",
     [](CaseRun&) {
       WitGuest g;
       return as_wit(g.load({}, "onnx", "cpu"), "invalid-argument");
     }},
    {"wit", "load_by_name_unregistered", W, kNone, kNotFound, "load-by-name(\"no-such-model\")",
     [](CaseRun&) {
       WitGuest g;
       return as_wit(g.load_by_name("no-such-model"), "not-found");
     }},
    {"wit", "init_on_a_dropped_graph", W, kNone, kInvalidArgument, "init-execution-context after the graph's drop",
     [](CaseRun&) {
       WitGuest g;
       const uint32_t graph = g.graph();
       EXPECT_TRUE(g.drop(WASINN_WIT_GRAPH, graph).ok());
       return as_wit(g.init_execution_context(graph), "invalid-argument");
     }},
    {"wit", "get_output_before_compute", W, kNone, kInvalidArgument, "get-output(\"logits\") before compute (08-19)",
     [](CaseRun&) {
       WitGuest g;
       return as_wit(g.get_output(g.context(), "logits"), "invalid-argument");
     }},
    {"wit", "get_output_unknown_name", W, kNone, kInvalidArgument, "get-output(\"nope\") after compute (08-19)",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t ctx = g.context();
       EXPECT_TRUE(g.set_input(ctx, "input", g.digit(r)).ok());
       EXPECT_TRUE(g.compute(ctx).ok());
       return as_wit(g.get_output(ctx, "nope"), "invalid-argument");
     }},
    {"wit", "set_input_unknown_context", W, kNone, kInvalidArgument, "set-input on a context never made (08-19)",
     [](CaseRun& r) {
       WitGuest g;
       return as_wit(g.set_input(1000000, "input", g.digit(r)), "invalid-argument");
     }},
    {"wit", "error_read_after_drop", W, kNone, kInvalidArgument, "error.data() after the error's drop",
     [](CaseRun&) {
       WitGuest g;
       // An error resource the guest got from a failed call, dropped, then read.
       wasinn_wit_out out{};
       EXPECT_EQ(g.t.graph_load_by_name(g.guest(), wit_str("no-such-model"), &out), WASINN_WIT_ERR);
       EXPECT_TRUE(g.drop(WASINN_WIT_ERROR, out.rep).ok());
       return as_wit(g.read_error(out.rep), "invalid-argument");
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
