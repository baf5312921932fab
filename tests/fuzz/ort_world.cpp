// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ABI fuzz world over the real ONNX Runtime plugin and the digits model (fixtures
// digits/model.onnx: f32 [batch, 64] -> f32 [batch, 10]), in guest memory for load and
// registered as the named model "digits" for load_by_name. Only the ORT plugin is visible, so
// guest-chosen encodings cannot reach frameworks with known load crashes (reliability.md).
#include <string>
#include <string_view>
#include <vector>

#include "abi_world.h"
#include "fuzz_fixtures.h"
#include "guest_structures.h"

namespace wasinn::fuzz {
namespace {

GuestLayout make_layout(const std::vector<uint8_t>& model, const std::vector<uint8_t>& x) {
  GuestLayout l(32 * 1024);
  const std::string_view m(reinterpret_cast<const char*>(model.data()), model.size());
  named_builders(l, {m}, "builders", "legacy_builders");
  named_builders(l, {m.substr(0, m.size() / 2)});
  named_builders(l, {m, "{\"intra_op_threads\":1}"});
  named_builders(l, {m, m});
  const std::span<const uint8_t> row(x.data(), 64 * 4), rows(x.data(), 3 * 64 * 4);
  witx_tensor(l, {1, 64}, 1, row, 4, "tensor");
  witx_tensor(l, {3, 64}, 1, rows);
  witx_tensor(l, {64}, 1, row);
  witx_tensor(l, {1, 63}, 1, row.first(63 * 4));
  witx_tensor(l, {1, 64}, 5, rows.first(64 * 8));  // i64: the wrong type for this model
  witx_tensor(l, {1, 64}, 1, row, 1);
  witx_tensor(l, {}, 1, row.first(4), 1, "tensor_rank0");
  legacy_tensor(l, {1, 64}, 1, row, 4, "legacy_tensor");
  legacy_tensor(l, {2, 64}, 1, rows.first(2 * 64 * 4), 1);
  legacy_tensor(l, {}, 1, row.first(4), 1, "legacy_tensor_rank0");
  named_text(l, "digits", "name");
  for (std::string_view n : {"digits_auto", "missing"}) named_text(l, n);
  named_text(l, "{\"intra_op_threads\":1}", "config");
  for (std::string_view c : {"{\"graph_optimization_level\":\"all\"}", "{", "[]"}) {
    named_text(l, c);
  }
  named_buffer(l, 4, 0xDEADBEEF, "slot");
  named_buffer(l, 4, 0xDEADBEEF, "slot2");
  for (int i = 0; i < 2; ++i) named_buffer(l, 4, 0xDEADBEEF);
  named_buffer(l, 4, 10, "legacy_capacity");  // exactly the 10 logits
  named_buffer(l, 4, 9);
  named_buffer(l, 40, 0, "output");
  // Property names and a value (wasinn:nn-ext): a fact every graph has, the fake's knob.
  named_text(l, "backend", "prop");
  named_text(l, "scale", "knob");
  named_text(l, "2", "knob_value");
  named_buffer(l, 4096);
  l.pad_to((static_cast<uint32_t>(l.image().size()) + 0xFFFF) & ~0xFFFFu);
  return l;
}

AbiWorld make_world() {
  AbiWorld w;
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_ORT_ONLY_DIR};
  // One thread per session: the fuzzer creates many, and the machine is shared.
  options.backend_configs["onnxruntime"] = "{\"intra_op_threads\":1,\"inter_op_threads\":1}";
  options.limits.max_graphs = 4;
  options.limits.max_contexts = 6;
  w.env = wire_environment(std::move(options)).env;
  const std::string model_path = fixture_path("digits/model.onnx");
  const auto model = read_fixture("digits/model.onnx");
  const auto x = read_fixture("digits/test_x.f32");
  if (x.size() < 3 * 64 * 4) invariant_failed("setup", "digits/test_x.f32 is too short");
  for (auto [name, enc] : {std::pair{"digits", Encoding::onnx}, std::pair{"digits_auto", Encoding::autodetect}}) {
    if (!w.env->models().add({name, enc, Target::cpu, {model_path}}))
      invariant_failed("setup", "cannot register digits");
  }
  (void)w.env->models().add({"missing", Encoding::onnx, Target::cpu, {fixture_path("no_such_model.onnx")}});
  w.layout = make_layout(model, x);
  return w;
}

}  // namespace

const AbiWorld& abi_world() {
  static const AbiWorld w = make_world();
  return w;
}

}  // namespace wasinn::fuzz
