// The WIT ABI (wasi:nn@0.2.0-rc-*, abi/wit_nn): what a component can still get wrong once
// Wasmtime has lifted its values: names (unknown, twice, missing), a tensor whose type or bytes
// do not fit the model, handles used after compute consumed or the guest dropped them, enum
// cases no backend serves, outputs asked for before compute. The expected errno is the witx
// one of the same core error; each body also checks the WIT error-code the guest would see.
#include <cstring>

#include "abi/wit_nn.h"
#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

constexpr auto W = Abi::wit;
constexpr auto kNone = Backend::none;

// One component guest's resources over its own session in the shared environment.
struct WitGuest {
  wit_nn::WitSession wit{std::make_shared<NnSession>(HostUnderTest::get().shared_env())};

  uint32_t graph() {
    const auto& model = HostUnderTest::get().fixture("digits/model.onnx");
    const std::span<const uint8_t> b(model);
    auto g = wit.load(std::span(&b, 1), "onnx", "cpu");
    EXPECT_TRUE(g.ok()) << "setup: load";
    return g.ok() ? *g : 0;
  }
  uint32_t context() {
    auto c = wit.init_execution_context(graph());
    EXPECT_TRUE(c.ok()) << "setup: init-execution-context";
    return c.ok() ? *c : 0;
  }
  uint32_t tensor(TensorType type, std::vector<uint32_t> dims, std::vector<uint8_t> data) {
    auto t = wit.new_tensor(OwnedTensor{type, std::move(dims), std::move(data)});
    EXPECT_TRUE(t.ok()) << "setup: tensor";
    return t.ok() ? *t : 0;
  }
  uint32_t digit(const CaseRun& r) {
    const auto& px = HostUnderTest::get().digit(r.sample).pixels;
    std::vector<uint8_t> bytes(px.size() * sizeof(float));
    std::memcpy(bytes.data(), px.data(), bytes.size());
    return tensor(TensorType::f32, {1, 64}, std::move(bytes));
  }
  Status compute(uint32_t ctx, std::vector<wit_nn::NamedRep> inputs) {
    auto out = wit.compute(ctx, inputs);
    if (out.ok()) return {};
    return out.take_error();
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
    {"wit", "compute_without_the_required_input", W, kNone, kInvalidArgument, "compute([])", [](CaseRun&) {
       WitGuest g;
       return as_wit(g.compute(g.context(), {}), "invalid-argument");
     }},
    {"wit", "compute_wrong_tensor_type", W, kNone, kInvalidArgument, "U8 [1, 64] for an f32 input", [](CaseRun&) {
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
       EXPECT_TRUE(g.wit.drop_context(ctx).ok());
       return as_wit(g.compute(ctx, {{"input", g.digit(r)}}), "invalid-argument");
     }},
    {"wit", "tensor_rank_over_the_limit", W, kNone, kInvalidArgument, "a tensor of rank 65", [](CaseRun&) {
       WitGuest g;
       return as_wit(g.wit.new_tensor(OwnedTensor{TensorType::u8, std::vector<uint32_t>(65, 1), {1}}),
                     "invalid-argument");
     }},
    {"wit", "tensor_read_after_drop", W, kNone, kInvalidArgument, "tensor.data() after the tensor's drop",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t t = g.digit(r);
       EXPECT_TRUE(g.wit.drop_tensor(t).ok());
       return as_wit(g.wit.tensor(t), "invalid-argument");
     }},
    {"wit", "load_unsupported_encoding_case", W, kNone, kInvalidEncoding, "load(digits, \"nope\", cpu)",
     [](CaseRun&) {
       WitGuest g;
       const auto& model = HostUnderTest::get().fixture("digits/model.onnx");
       const std::span<const uint8_t> b(model);
       return as_wit(g.wit.load(std::span(&b, 1), "nope", "cpu"), "invalid-encoding");
     }},
    {"wit", "load_autodetect_garbage", W, kNone, kInvalidEncoding, "load(\"garbage\", autodetect, cpu)",
     [](CaseRun&) {
       WitGuest g;
       static const std::vector<uint8_t> garbage{'g', 'a', 'r', 'b', 'a', 'g', 'e'};
       const std::span<const uint8_t> b(garbage);
       return as_wit(g.wit.load(std::span(&b, 1), "autodetect", "cpu"), "invalid-encoding");
     }},
    {"wit", "load_no_builders", W, kNone, kInvalidArgument, "load([], onnx, cpu)", [](CaseRun&) {
       WitGuest g;
       return as_wit(g.wit.load({}, "onnx", "cpu"), "invalid-argument");
     }},
    {"wit", "load_by_name_unregistered", W, kNone, kNotFound, "load-by-name(\"no-such-model\")", [](CaseRun&) {
       WitGuest g;
       return as_wit(g.wit.load_by_name("no-such-model"), "not-found");
     }},
    {"wit", "init_on_a_dropped_graph", W, kNone, kInvalidArgument, "init-execution-context after the graph's drop",
     [](CaseRun&) {
       WitGuest g;
       const uint32_t graph = g.graph();
       EXPECT_TRUE(g.wit.drop_graph(graph).ok());
       return as_wit(g.wit.init_execution_context(graph), "invalid-argument");
     }},
    {"wit", "get_output_before_compute", W, kNone, kInvalidArgument, "get-output(\"logits\") before compute (08-19)",
     [](CaseRun&) {
       WitGuest g;
       return as_wit(g.wit.get_output(g.context(), "logits"), "invalid-argument");
     }},
    {"wit", "get_output_unknown_name", W, kNone, kInvalidArgument, "get-output(\"nope\") after compute (08-19)",
     [](CaseRun& r) {
       WitGuest g;
       const uint32_t ctx = g.context();
       EXPECT_TRUE(g.wit.set_input(ctx, "input", g.digit(r)).ok());
       EXPECT_TRUE(g.wit.compute(ctx).ok());
       return as_wit(g.wit.get_output(ctx, "nope"), "invalid-argument");
     }},
    {"wit", "set_input_unknown_context", W, kNone, kInvalidArgument, "set-input on a context never made (08-19)",
     [](CaseRun& r) {
       WitGuest g;
       return as_wit(g.wit.set_input(1000000, "input", g.digit(r)), "invalid-argument");
     }},
    {"wit", "error_read_after_drop", W, kNone, kInvalidArgument, "error.data() after the error's drop", [](CaseRun&) {
       WitGuest g;
       auto e = g.wit.keep_error(make_error(Errc::not_found, "x"));
       EXPECT_TRUE(e.ok());
       EXPECT_TRUE(g.wit.drop_error(*e).ok());
       return as_wit(g.wit.error(*e), "invalid-argument");
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
