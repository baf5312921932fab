// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named tensors through WIT components (wasi:nn@0.2.0-rc-2024-10-28) on real llama.cpp: the
// component guest wit_run_model on `wasinn run` with the names wasinn defines for GGML (inputs
// "prompt", the optional "metadata" and "messages", outputs "text" and "metadata"), its text equal to
// native llama.cpp's greedy run on the tiny fixture model, the names those `models inspect`
// shows; and an embedding as an fp32 tensor.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llama_native.h"
#include "plugin_harness.h"
#include "probe_run.h"
#include "wit_guest.h"

namespace wasinn_test {
namespace {

const std::string kPrompt = "The quick brown fox jumps over the lazy dog. Once upon a time";

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

TEST(LlamaWit, NamedPromptAndMetadataMatchNative) {
  const InspectedIo io = inspect_io({"--encoding", "ggml", tiny_model()});
  ASSERT_EQ(io.error, "");
  ASSERT_EQ(io.inputs, (std::vector<std::string>{"prompt", "metadata", "messages", "image"}));
  // prompt is optional only beside messages: left out alone, the plugin says it is missing.
  EXPECT_NE(io.input_framework_types[0].find("optional when messages"), std::string::npos);
  EXPECT_NE(io.input_framework_types[1].find("optional"), std::string::npos) << io.input_framework_types[1];
  ASSERT_EQ(io.outputs, (std::vector<std::string>{"text", "metadata"}));

  NativeSettings s;
  s.n_ctx = 128;
  s.n_predict = 12;
  const NativeRun native = native_generate(tiny_model(), kPrompt, s);
  ASSERT_EQ(native.tokens.size(), 12u);

  const std::string in = scratch_dir("llama_wit_in");
  const std::string config = greedy_config(128, 12);
  write_file(in + "/prompt.txt", bytes_of(kPrompt));
  write_file(in + "/config.json", bytes_of(config));
  auto host = llama_host_args(scratch_dir("llama_wit_out"));
  // "tinycfg": the model with the config as a second builder, for a compute without metadata.
  host.insert(host.end(), {"--dir", in + "::/in", "--log-level", "error", "--nn-preload",
                           "tinycfg:GGML:AUTO:" + tiny_model() + ":" + in + "/config.json"});
  const std::string prompt = wit_input("prompt", "u8", {static_cast<uint32_t>(kPrompt.size())}, "/in/prompt.txt");
  const std::string metadata = wit_input("metadata", "u8", {static_cast<uint32_t>(config.size())}, "/in/config.json");

  // metadata given (before prompt: names, not order, bind them), by name.
  const WitModelRun named =
      run_wit_model("llama_wit_named", host, {"--name", "tiny", "--input", metadata, "--input", prompt});
  ASSERT_EQ(named.run.exit_code, 0) << named.run.output;
  EXPECT_EQ(named.names(), io.outputs);
  ASSERT_EQ(named.outputs.size(), 2u);
  EXPECT_EQ(named.outputs[0].type, "u8");
  EXPECT_EQ(text_of(named.outputs[0].data), native.text());
  const auto meta = nlohmann::json::parse(named.outputs[1].data, nullptr, false);
  ASSERT_FALSE(meta.is_discarded()) << text_of(named.outputs[1].data);
  EXPECT_EQ(meta.value("output_tokens", -1), 12);
  EXPECT_EQ(meta.value("input_tokens", -1), static_cast<long>(native.n_prompt));

  // metadata left out: the load's config builder holds the settings.
  const WitModelRun bare = run_wit_model("llama_wit_bare", host, {"--name", "tinycfg", "--input", prompt});
  ASSERT_EQ(bare.run.exit_code, 0) << bare.run.output;
  EXPECT_EQ(bare.names(), io.outputs);
  ASSERT_FALSE(bare.outputs.empty());
  EXPECT_EQ(text_of(bare.outputs[0].data), native.text());

  // prompt left out, or a name GGML does not have: invalid-argument naming the inputs.
  const WitModelRun no_prompt = run_wit_model("llama_wit_no_prompt", host, {"--name", "tiny", "--input", metadata});
  EXPECT_NE(no_prompt.run.output.find("error invalid-argument"), std::string::npos) << no_prompt.run.output;
  EXPECT_NE(no_prompt.run.output.find("no prompt"), std::string::npos) << no_prompt.run.output;
  const WitModelRun unknown =
      run_wit_model("llama_wit_unknown", host,
                    {"--name", "tiny", "--input", prompt, "--input", wit_input("text", "u8", {1}, "/in/prompt.txt")});
  EXPECT_NE(unknown.run.output.find("the model has no input named 'text'"), std::string::npos) << unknown.run.output;
}

TEST(LlamaWit, EmbeddingIsAnF32TensorEqualToNative) {
  // WIT's tensors carry their type, so the host marks the context (WASINN_PROPERTY_TYPED_OUTPUTS)
  // and the embedding comes back as fp32 [n_embd], not the JSON text witx guests get.
  NativeSettings s;
  s.n_ctx = 128;
  const std::vector<float> native = native_embedding(tiny_model(), kPrompt, s);
  const std::string in = scratch_dir("llama_wit_embed_in");
  const std::string config = R"({"embedding": true, "ctx-size": 128, "threads": 1})";
  write_file(in + "/prompt.txt", bytes_of(kPrompt));
  write_file(in + "/config.json", bytes_of(config));
  auto host = llama_host_args(scratch_dir("llama_wit_embed_out"));
  host.insert(host.end(), {"--dir", in + "::/in", "--log-level", "error"});
  const WitModelRun r =
      run_wit_model("llama_wit_embed", host,
                    {"--name", "tiny", "--input",
                     wit_input("prompt", "u8", {static_cast<uint32_t>(kPrompt.size())}, "/in/prompt.txt"), "--input",
                     wit_input("metadata", "u8", {static_cast<uint32_t>(config.size())}, "/in/config.json")});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
  ASSERT_FALSE(r.outputs.empty());
  EXPECT_EQ(r.outputs[0].type, "fp32");
  EXPECT_EQ(r.outputs[0].dims, std::to_string(native.size()));
  ASSERT_EQ(r.outputs[0].data.size(), native.size() * 4);
  const std::vector<float> got = as_vector<float>(r.outputs[0].data);
  for (size_t i = 0; i < native.size(); ++i) EXPECT_NEAR(got[i], native[i], 1e-5) << i;
}

}  // namespace
}  // namespace wasinn_test
