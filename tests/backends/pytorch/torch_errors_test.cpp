// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Error paths through the plugin's C table: each gives its documented status and a detail
// that names the problem, and the plugin stays usable afterwards.
#include "native_torch.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;

int load_file(Backend& b, const std::string& rel, Graph& g, Diag& d, int32_t target = WASINN_TARGET_CPU,
              const std::string& config = "") {
  return load_bytes(b, {read_fixture(rel)}, g, d, target, config);
}

TEST(TorchErrors, CorruptArchivesAreInvalidArgument) {
  Backend b(api());
  for (const char* rel : {"corrupt/garbage.pt", "corrupt/truncated.pt"}) {
    Graph g;
    Diag d;
    EXPECT_EQ(load_file(b, rel, g, d), WASINN_INVALID_ARGUMENT) << rel;
    EXPECT_EQ(g.ptr, nullptr);
    EXPECT_THAT(d.detail, HasSubstr("not a TorchScript archive this libtorch can load")) << rel;
    EXPECT_THAT(d.detail, HasSubstr("PytorchStreamReader failed reading zip archive")) << rel;
    EXPECT_EQ(d.detail.find('\n'), std::string::npos) << "one line: " << d.detail;
  }
  // A zip made by torch.save (a state_dict), not by torch.jit.save.
  Graph g;
  Diag d;
  EXPECT_EQ(load_file(b, "digits/digits_mlp.pt", g, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("constants.pkl"));
}

TEST(TorchErrors, BuilderCountAndEncoding) {
  Backend b(api());
  const auto model = read_fixture("digits/model.pt");
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {model, model}, g, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("exactly one graph builder"));
  EXPECT_EQ(load_bytes(b, {std::vector<uint8_t>{}}, g, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("empty"));
  EXPECT_EQ(load_bytes(b, {model}, g, d, WASINN_TARGET_CPU, "", "onnx"), WASINN_INVALID_ENCODING);
  EXPECT_EQ(load_bytes(b, {model}, g, d, WASINN_TARGET_CPU, "[1]"), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("expected a JSON object"));
  EXPECT_EQ(load_bytes(b, {model}, g, d, WASINN_TARGET_CPU, "{\"num_threads\": 2}"), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("process-wide"));
  EXPECT_EQ(g.ptr, nullptr);
}

TEST(TorchErrors, TargetsWithoutHardwareAreUnsupported) {
  Backend b(api());
  Graph g;
  Diag d;
  EXPECT_EQ(load_file(b, "digits/model.pt", g, d, WASINN_TARGET_GPU), WASINN_UNSUPPORTED_OPERATION);
  // Debian's libtorch is a CPU build: the reason says so, and what would serve gpu.
  EXPECT_THAT(d.detail, HasSubstr("is a CPU build, without CUDA"));
  EXPECT_THAT(d.detail, HasSubstr("use target cpu or auto"));
  EXPECT_EQ(load_file(b, "digits/model.pt", g, d, WASINN_TARGET_TPU), WASINN_UNSUPPORTED_OPERATION);
  EXPECT_THAT(d.detail, HasSubstr("tpu"));
  EXPECT_EQ(load_file(b, "digits/model.pt", g, d, 9), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(g.ptr, nullptr);
  // The device report agrees: the CPU alone, and the same reason for gpu.
  ASSERT_EQ(api().backend_device_count(b.ptr), 1u);
  wasinn_device dev{};
  ASSERT_EQ(api().backend_device_info(b.ptr, 0, &dev), WASINN_OK);
  EXPECT_EQ(dev.target, WASINN_TARGET_CPU);
  ASSERT_NE(api().backend_target_unavailable(b.ptr, WASINN_TARGET_GPU), nullptr);
  EXPECT_THAT(api().backend_target_unavailable(b.ptr, WASINN_TARGET_GPU), HasSubstr("CPU build"));
  EXPECT_EQ(api().backend_target_unavailable(b.ptr, WASINN_TARGET_AUTO), nullptr);
  // auto has no CUDA device to take here: the graph says it runs on the CPU.
  for (int32_t target : {WASINN_TARGET_CPU, WASINN_TARGET_AUTO}) {
    Graph on;
    ASSERT_EQ(load_file(b, "digits/model.pt", on, d, target), WASINN_OK) << d.detail;
    ASSERT_EQ(api().graph_property_count(on.ptr), 1u);
    wasinn_property p{};
    ASSERT_EQ(api().graph_property_info(on.ptr, 0, &p), WASINN_OK);
    EXPECT_STREQ(p.name, "device");
    EXPECT_STREQ(p.value, "cpu");
  }
}

TEST(TorchErrors, WrongInputCount) {
  Backend b(api());
  Graph g = load_model(b, "types/two_in_three_out.pt");
  Context c(api(), g.ptr);
  Diag d;
  EXPECT_EQ(compute(c.ptr, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("inputs not set: input 0 (\"a\"), input 1 (\"b\")"));

  const HostTensor a = make_tensor<float>(WASINN_TYPE_F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(set_input(c.ptr, by_index(0), a, d), WASINN_OK) << d.detail;
  EXPECT_EQ(compute(c.ptr, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("not set: input 1 (\"b\")"));

  EXPECT_EQ(set_input(c.ptr, by_index(2), a, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("input index 2 is out of range: valid indices are 0..1"));
  EXPECT_EQ(set_input(c.ptr, by_name("c"), a, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no input named \"c\": the model's inputs are \"a\", \"b\""));
}

TEST(TorchErrors, WrongDtypeFailsComputeWithTorchsReason) {
  Backend b(api());
  Graph g = load_model(b, "digits/model.pt");
  Context c(api(), g.ptr);
  Diag d;
  const HostTensor ints = make_tensor<int32_t>(WASINN_TYPE_I32, {1, 64}, std::vector<int32_t>(64, 1));
  ASSERT_EQ(set_input(c.ptr, by_index(0), ints, d), WASINN_OK) << d.detail;
  EXPECT_EQ(compute(c.ptr, d), WASINN_RUNTIME_ERROR);
  EXPECT_THAT(d.detail, HasSubstr("forward failed: RuntimeError: mat1 and mat2 must have the same dtype"));
  EXPECT_THAT(d.detail, HasSubstr("input 0 (\"input\") i32 [1, 64]"));
  EXPECT_EQ(d.detail.find('\n'), std::string::npos) << "one line: " << d.detail;

  const HostTensor narrow = make_tensor<float>(WASINN_TYPE_F32, {1, 63}, std::vector<float>(63, 0));
  ASSERT_EQ(set_input(c.ptr, by_index(0), narrow, d), WASINN_OK) << d.detail;
  EXPECT_EQ(compute(c.ptr, d), WASINN_RUNTIME_ERROR);
  EXPECT_THAT(d.detail, HasSubstr("shapes cannot be multiplied (1x63 and 64x64)"));

  // A failed compute leaves no outputs of an earlier run behind, and a good input recovers.
  wasinn_tensor t{};
  wasinn_tensor_id id = by_index(0);
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("call compute first"));
  const HostTensor good = make_tensor<float>(WASINN_TYPE_F32, {1, 64}, std::vector<float>(64, 0));
  ASSERT_EQ(set_input(c.ptr, by_index(0), good, d), WASINN_OK) << d.detail;
  EXPECT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  EXPECT_EQ(output(c.ptr, by_index(0)).dims, (std::vector<uint32_t>{1, 10}));
}

TEST(TorchErrors, MalformedTensors) {
  Backend b(api());
  Graph g = load_model(b, "digits/model.pt");
  Context c(api(), g.ptr);
  Diag d;
  HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {1, 64}, std::vector<float>(64, 0));
  x.bytes.pop_back();
  EXPECT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("f32 [1, 64] needs 256 bytes, got 255"));
  x.bytes.push_back(0);
  x.type = 42;
  EXPECT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("tensor type 42 is not a wasinn tensor type"));
  wasinn_tensor_id id = by_index(0);
  EXPECT_EQ(api().set_input(c.ptr, &id, nullptr, &d), WASINN_INVALID_ARGUMENT);
}

// A TorchScript int takes one integer element; a float tensor is refused, naming both types.
// (torch_scalars_test.cpp covers scalar arguments in full.)
TEST(TorchErrors, ScalarArgumentOfWrongType) {
  Backend b(api());
  Graph g = load_model(b, "types/optional_input.pt");
  Context c(api(), g.ptr);
  Diag d;
  const HostTensor k = make_tensor<float>(WASINN_TYPE_F32, {}, {3});
  EXPECT_EQ(set_input(c.ptr, by_name("scale"), k, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("input 2 (\"scale\") is a TorchScript int, which takes one "
                                  "i64, i32, i8 or u8 element, got f32 []"));
}

TEST(TorchErrors, OutputsBeforeComputeAndOutOfRange) {
  Backend b(api());
  Graph g = load_model(b, "digits/model.pt");
  Context c(api(), g.ptr);
  Diag d;
  wasinn_tensor t{};
  wasinn_tensor_id id = by_index(0);
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("call compute first"));
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {1, 64}, std::vector<float>(64, 0));
  ASSERT_EQ(set_input(c.ptr, by_index(0), x, d), WASINN_OK);
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK);
  id = by_index(1);
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("output index 1 is out of range: the only valid index is 0"));
  const std::string logits = "logits";  // by_name views it: it must outlive the id
  id = by_name(logits);
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no output named \"logits\""));
}

TEST(TorchErrors, BadBackendConfig) {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "malformed JSON"},
      {"[]", "expected a JSON object"},
      {"{\"num_threads\": 100000}", "\"num_threads\" must be between 0 and"},
      {"{\"num_threads\": 2.5}", "\"num_threads\" must be a non-negative integer"},
      {"{\"num_threads\": \"4\"}", "\"num_threads\" must be a non-negative integer"},
      {"{\"interop_threads\": -1}", "\"interop_threads\" must be between 0 and"},
  };
  for (auto [config, want] : cases) {
    wasinn_backend* b = nullptr;
    Diag d;
    EXPECT_EQ(api().backend_create(config, std::strlen(config), &b, &d), WASINN_INVALID_ARGUMENT) << config;
    EXPECT_THAT(d.detail, HasSubstr(want)) << config;
    EXPECT_EQ(b, nullptr);
  }
  // 0, the SDK's "the framework's default", leaves libtorch's thread counts alone.
  Backend defaults(api(), "{\"num_threads\": 0, \"interop_threads\": 0}");
  EXPECT_NE(defaults.ptr, nullptr);
}

// The one rule of backend_plugin.h: a name the model does not have is INVALID_ARGUMENT, and the
// detail lists the names it does have. Output names are those of the last forward's result
// (here a dict's keys), since TorchScript declares none for a dict.
TEST(TorchErrors, UnknownNamesListTheModelsNames) {
  Backend b(api());
  Graph g = load_model(b, "types/dict_out.pt");
  Context c(api(), g.ptr);
  Diag d;
  const HostTensor x = make_tensor<float>(WASINN_TYPE_F32, {3}, {1, 2, 4});
  EXPECT_EQ(set_input(c.ptr, by_name("y"), x, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no input named \"y\": the model's inputs are \"x\""));
  ASSERT_EQ(set_input(c.ptr, by_name("x"), x, d), WASINN_OK) << d.detail;
  ASSERT_EQ(compute(c.ptr, d), WASINN_OK) << d.detail;
  const std::string beta = "beta";  // by_name views it: it must outlive the id
  const wasinn_tensor_id id = by_name(beta);
  wasinn_tensor t{};
  EXPECT_EQ(api().get_output(c.ptr, &id, &t, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("no output named \"beta\": the model's outputs are \"alpha\", "
                                  "\"mid\", \"zeta\""));
}

// libtorch sizes its inter-op pool once per process: the first config fixes it, a later
// different size is refused with the reason, the same size is accepted.
TEST(TorchErrors, InteropThreadsAreSizedOnce) {
  { Backend first(api(), "{\"interop_threads\": 1}"); }
  wasinn_backend* b = nullptr;
  Diag d;
  const std::string two = "{\"interop_threads\": 2}";
  EXPECT_EQ(api().backend_create(two.data(), two.size(), &b, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("can be sized only once per process"));
  Backend again(api(), "{\"interop_threads\": 1}");
  EXPECT_NE(again.ptr, nullptr);
}

}  // namespace
}  // namespace wasinn_test
