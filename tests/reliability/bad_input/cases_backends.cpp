// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tensor-level misuses every backend's plugin must reject on its own digits model (wrong
// shape, wrong type, missing input, output before compute, indices out of range, a buffer too
// small), and the llama.cpp backend's own bad inputs (no prompt, bad slots, bad JSON, a prompt
// longer than the context).
#include <algorithm>
#include <cstring>

#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

// A witx f32 tensor over `dims` with `bytes` bytes of the case's digit (zero-padded).
uint32_t tensor_of(CaseRun& r, const std::vector<uint32_t>& dims, uint8_t type, uint32_t bytes) {
  std::vector<uint8_t> data(bytes);
  const auto& px = r.host.digit(r.sample).pixels;
  std::memcpy(data.data(), px.data(), std::min<size_t>(bytes, px.size() * 4));
  return r.guest.tensor(dims, type, data);
}

Status output(CaseRun& r, uint32_t ctx, uint32_t index, uint32_t max) {
  const uint32_t buf = r.guest.buffer(std::max<uint32_t>(max, 4));
  const uint32_t written = r.guest.out_u32();
  const Status st = nn::get_output(r.call(), ctx, index, buf, max, written);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(buf, std::max<uint32_t>(max, 4)));
  }
  if (nn::errno_of(st) == kTooLarge) {
    EXPECT_EQ(r.guest.u32_at(written), 40u) << "bytes_written must report the needed size";
  } else if (!st.ok()) {
    EXPECT_TRUE(r.untouched(written));
  }
  return st;
}

// set_input of a mismatched tensor, then compute: a plugin that knows its input's shape and
// type rejects the tensor at set_input; TorchScript declares neither, so there the forward
// itself fails at compute.
Status mismatched(CaseRun& r, Backend b, const std::vector<uint32_t>& dims, uint8_t type, uint32_t bytes) {
  const uint32_t ctx = r.context(b);
  const Status st = nn::set_input(r.call(), ctx, 0, tensor_of(r, dims, type, bytes));
  if (!st.ok()) return st;
  return nn::compute(r.call(), ctx);
}

std::vector<MatrixCase> tensor_cases(Backend b) {
  const std::string g = "tensors_" + std::string(backend_name(b));
  const std::string then = b == Backend::pytorch ? ", then compute" : "";
  const int32_t mismatch = b == Backend::pytorch ? kRuntimeError : kInvalidArgument;
  return {
      {g, "wrong_shape", E, b, mismatch, "set_input f32 [1, 63] for the digits input f32 [?, 64]" + then,
       [b](CaseRun& r) {
         return mismatched(r, b, {1, 63}, 1, 252);
       }},
      // torch.nn.Linear takes an unbatched [64] as well: TorchScript computes it.
      {g, "wrong_rank", E, b, b == Backend::pytorch ? kSuccess : kInvalidArgument,
       "set_input f32 [64] (rank 1) for a rank-2 input" + (b == Backend::pytorch ? then + " (Linear takes it)" : ""),
       [b](CaseRun& r) { return mismatched(r, b, {64}, 1, 256); }},
      {g, "wrong_type_i32", E, b, mismatch, "set_input i32 [1, 64] (256 bytes) for an f32 input" + then,
       [b](CaseRun& r) {
         return mismatched(r, b, {1, 64}, 4, 256);
       }},
      {g, "input_index_out_of_range", E, b, kInvalidArgument, "set_input index 1 of a one-input model",
       [b](CaseRun& r) { return nn::set_input(r.call(), r.context(b), 1, r.digit_tensor()); }},
      {g, "compute_without_input", E, b, kInvalidArgument, "compute before any set_input",
       [b](CaseRun& r) { return nn::compute(r.call(), r.context(b)); }},
      {g, "get_output_before_compute", E, b, kInvalidArgument, "get_output after set_input, before compute",
       [b](CaseRun& r) { return output(r, r.fed_context(b), 0, 64); }},
      {g, "output_index_out_of_range", E, b, kInvalidArgument, "get_output index 1 of a one-output model",
       [b](CaseRun& r) { return output(r, r.computed_context(b), 1, 64); }},
      {g, "output_buffer_too_small", E, b, kTooLarge, "get_output into 16 bytes for 40 bytes of logits",
       [b](CaseRun& r) { return output(r, r.computed_context(b), 0, 16); }},
      // This machine has no GPU: every plugin refuses rather than silently running on the CPU.
      {g, "target_gpu_unavailable", E, b, kUnsupportedOperation,
       "load with execution_target 1 (gpu) on a host without a GPU",
       [b](CaseRun& r) {
         const auto files = HostUnderTest::digits_model(b);
         const uint32_t out = r.guest.out_u32();
         const Status st = nn::load(r.call(), r.fixture_builders(files), static_cast<uint32_t>(files.size()),
                                    witx_encoding(b), 1, out);
         if (!st.ok()) {
           EXPECT_TRUE(r.untouched(out));
         }
         return r.tracked_graph(st, out);
       }},
  };
}

const struct BackendTensorCases {
  BackendTensorCases() {
    for (Backend b :
         {Backend::onnxruntime, Backend::openvino, Backend::pytorch, Backend::tensorflowlite, Backend::tensorflow}) {
      for (auto& c : tensor_cases(b)) all_cases().push_back(std::move(c));
    }
  }
} backend_tensor_cases;

// A llama context on the tiny model with a short greedy config, through load_by_name_with_config.
uint32_t llama_context(CaseRun& r,
                       const std::string& config = R"({"temp": 0, "ctx-size": 64, "n-predict": 4, "threads": 1})") {
  const std::string name = HostUnderTest::kTinyLlama;
  const uint32_t g = r.guest.out_u32();
  const Status st = nn::load_by_name_with_config(r.call(), r.guest.put(name), static_cast<uint32_t>(name.size()),
                                                 r.guest.put(config), static_cast<uint32_t>(config.size()), g);
  EXPECT_TRUE(r.tracked_graph(st, g).ok()) << "setup: load tiny: " << (st.ok() ? "" : st.error().detail);
  const uint32_t c = r.guest.out_u32();
  EXPECT_TRUE(r.tracked_context(nn::init_execution_context(r.call(), r.guest.u32_at(g), c), c).ok());
  return r.guest.u32_at(c);
}

uint32_t text(CaseRun& r, const std::string& s) {
  return r.guest.tensor({static_cast<uint32_t>(s.size())}, 3, {reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

uint32_t prompted(CaseRun& r,
                  const std::string& config = R"({"temp": 0, "ctx-size": 64, "n-predict": 4, "threads": 1})") {
  const uint32_t c = llama_context(r, config);
  EXPECT_TRUE(nn::set_input(r.call(), c, 0, text(r, "Once upon a time")).ok()) << "setup: prompt";
  return c;
}

Status llama_output(CaseRun& r, uint32_t ctx, uint32_t index, uint32_t max) {
  const uint32_t buf = r.guest.buffer(std::max<uint32_t>(max, 4));
  const uint32_t written = r.guest.out_u32();
  const Status st = nn::get_output(r.call(), ctx, index, buf, max, written);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(buf, std::max<uint32_t>(max, 4)));
  }
  return st;
}

const CaseList llama_cases{
    {"llama", "compute_without_prompt", E, kLlama, kInvalidArgument, "compute before the prompt is set",
     [](CaseRun& r) { return nn::compute(r.call(), llama_context(r)); }},
    {"llama", "set_input_index_2", E, kLlama, kInvalidArgument, "set_input index 2 (0 is the prompt, 1 the metadata)",
     [](CaseRun& r) { return nn::set_input(r.call(), llama_context(r), 2, text(r, "hello")); }},
    {"llama", "get_output_index_2", E, kLlama, kInvalidArgument, "get_output index 2 after compute",
     [](CaseRun& r) {
       const uint32_t c = prompted(r);
       EXPECT_TRUE(nn::compute(r.call(), c).ok());
       return llama_output(r, c, 2, 256);
     }},
    {"llama", "get_output_before_compute", E, kLlama, kSuccess,
     "get_output after the prompt, before compute (WasmEdge: the empty text so far)",
     [](CaseRun& r) { return llama_output(r, prompted(r), 0, 256); }},
    {"llama", "output_buffer_too_small", E, kLlama, kTooLarge, "get_output of the generated text into 1 byte",
     [](CaseRun& r) {
       const uint32_t c = prompted(r);
       EXPECT_TRUE(nn::compute(r.call(), c).ok());
       return llama_output(r, c, 0, 1);
     }},
    {"llama", "prompt_invalid_utf8", E, kLlama, kSuccess, "a prompt of bytes that are not UTF-8, then compute",
     [](CaseRun& r) {
       const uint32_t c = llama_context(r);
       EXPECT_TRUE(nn::set_input(r.call(), c, 0, text(r, "\xFF\xFE\xC0\xAF\xED\xA0\x80 tail")).ok());
       return nn::compute(r.call(), c);
     }},
    {"llama", "empty_prompt", E, kLlama, kSuccess, "a 0-byte prompt, then compute (BOS alone still generates)",
     [](CaseRun& r) {
       const uint32_t c = llama_context(r);
       const Status st = nn::set_input(r.call(), c, 0, r.guest.tensor({0}, 3, {}));
       if (!st.ok()) return st;
       return nn::compute(r.call(), c);
     }},
    {"llama", "metadata_not_json", E, kLlama, kInvalidArgument, "set_input index 1 (metadata) with \"{oops\"",
     [](CaseRun& r) { return nn::set_input(r.call(), llama_context(r), 1, text(r, "{oops")); }},
    {"llama", "config_not_json", E, kLlama, kInvalidArgument, "load_by_name_with_config(tiny, \"{oops\")",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::load_by_name_with_config(r.call(), r.guest.put(HostUnderTest::kTinyLlama), 4,
                                                      r.guest.put("{oops"), 5, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"llama", "config_ctx_size_over_limit", E, kLlama, kInvalidArgument,
     "config ctx-size 4294967296 (the plugin bounds it at 2^20 tokens)",
     [](CaseRun& r) {
       const std::string cfg = R"({"ctx-size": 4294967296})";
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::load_by_name_with_config(r.call(), r.guest.put(HostUnderTest::kTinyLlama), 4,
                                                      r.guest.put(cfg), static_cast<uint32_t>(cfg.size()), out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"llama", "prompt_longer_than_context", E, kLlama, kPromptTooLong,
     "a prompt of ~160 tokens with ctx-size 32, then compute",
     [](CaseRun& r) {
       const uint32_t c = llama_context(r, R"({"temp": 0, "ctx-size": 32, "n-predict": 4, "threads": 1})");
       std::string prompt;
       for (int i = 0; i < 40; ++i) prompt += "many words here ";
       EXPECT_TRUE(nn::set_input(r.call(), c, 0, text(r, prompt)).ok());
       return nn::compute(r.call(), c);
     }},
    {"llama", "compute_single_without_prompt", E, kLlama, kInvalidArgument, "compute_single before the prompt is set",
     [](CaseRun& r) { return nn::compute_single(r.call(), llama_context(r)); }},
    {"llama", "get_output_single_before_compute_single", E, kLlama, kSuccess,
     "get_output_single after the prompt, before any compute_single (no token yet: 0 bytes)",
     [](CaseRun& r) {
       const uint32_t buf = r.guest.buffer(256);
       const uint32_t written = r.guest.out_u32();
       const Status st = nn::get_output_single(r.call(), prompted(r), 0, buf, 256, written);
       if (st.ok()) {
         EXPECT_EQ(r.guest.u32_at(written), 0u);
       }
       return st;
     }},
    {"llama", "context_outlives_unloaded_graph", E, kLlama, kSuccess,
     "unload the graph, then prompt and compute on its context",
     [](CaseRun& r) {
       const uint32_t g = r.guest.out_u32();
       const std::string cfg = R"({"temp": 0, "ctx-size": 64, "n-predict": 4, "threads": 1})";
       EXPECT_TRUE(r.tracked_graph(nn::load_by_name_with_config(r.call(), r.guest.put(HostUnderTest::kTinyLlama), 4,
                                                                r.guest.put(cfg), static_cast<uint32_t>(cfg.size()), g),
                                   g)
                       .ok());
       const uint32_t c = r.guest.out_u32();
       EXPECT_TRUE(r.tracked_context(nn::init_execution_context(r.call(), r.guest.u32_at(g), c), c).ok());
       EXPECT_TRUE(nn::unload(r.call(), r.guest.u32_at(g)).ok());
       EXPECT_TRUE(nn::set_input(r.call(), r.guest.u32_at(c), 0, text(r, "Once upon a time")).ok());
       return nn::compute(r.call(), r.guest.u32_at(c));
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
