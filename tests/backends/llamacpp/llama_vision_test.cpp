// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Images into text models, through the plugin's C table: the tiny llama with the tiny LLaVA
// projector (scripts/fixtures/export_llava.py), and the Qwen2-VL and Gemma 3 pairs, must answer
// as native llama.cpp's llama-mtmd-cli does on the same files, greedy, whichever way the image
// arrives (input 3, inline base64, WasmEdge's "image" path), by compute and by compute_single;
// and bad input (a missing or mismatched projector, bytes that are no image, marker counts,
// base64) is an error with a reason, after which the same context answers correctly. WasmEdge's
// vision examples on the wasinn command: llama_vision_guests_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "guest_runner.h"
#include "llama_vision_support.h"
#include "plugin_harness.h"
#include "probe_run.h"
#ifdef WASINN_HAVE_WIT_RUN_MODEL
#include "wit_guest.h"
#endif

namespace wasinn_test {
namespace {

using json = nlohmann::json;

const wasinn_backend_api& llama() { return plugin_api("llamacpp"); }

// allow-preload-paths: "mmproj" and "image" are host paths the guest names.
Backend& backend(bool allow_paths = true) {
  static Backend allowed(llama(), R"({"allow-preload-paths": true})");
  static Backend plain(llama());
  return allow_paths ? allowed : plain;
}

struct Loaded {
  Graph graph;
  int status = -1;
  std::string detail;
};

// The gemma-3 example's prompt; libmtmd adds its own <start_of_image>/<end_of_image> around the
// image, inside the example's (as under WasmEdge).
const std::string kGemma3Turn =
    "<start_of_turn>user\n<start_of_image><image><end_of_image>" + kQuestion + "<end_of_turn>\n<start_of_turn>model\n";

json greedy() { return {{"temp", 0}, {"ctx-size", 512}, {"n-predict", kPredict}, {"threads", 1}}; }

Loaded load_model(const std::string& model, const json& config, bool allow_paths = true) {
  LoadArgs args = model_args("ggml", {read_file(model)});
  args.paths = {model};
  args.config = config.dump();
  Loaded r;
  Diag d;
  r.status = load(backend(allow_paths), args, r.graph, d);
  r.detail = d.detail;
  return r;
}

Loaded load_tiny(const json& config, bool allow_paths = true) { return load_model(tiny_model(), config, allow_paths); }

// A text model with its projector, greedy.
Loaded load_pair(const std::string& model, const std::string& mmproj) {
  json config = greedy();
  config["mmproj"] = mmproj;
  return load_model(model, config);
}

Loaded load_vision(json extra = json::object()) {
  json config = greedy();
  config["mmproj"] = llava("mmproj-tiny.gguf");
  config.update(extra);
  return load_tiny(config);
}

int set_bytes(wasinn_context* c, uint32_t index, const std::vector<uint8_t>& bytes, std::string* detail = nullptr) {
  Diag d;
  const int s = set_input(llama(), c, by_index(index), WASINN_TYPE_U8, {static_cast<uint32_t>(bytes.size())}, bytes, d);
  if (detail) *detail = d.detail;
  return s;
}
int set_text(wasinn_context* c, uint32_t index, const std::string& text, std::string* detail = nullptr) {
  return set_bytes(c, index, std::vector<uint8_t>(text.begin(), text.end()), detail);
}

std::string compute_text(wasinn_context* c) {
  Diag d;
  EXPECT_EQ(llama().compute(c, &d), WASINN_OK) << d.detail;
  const auto b = output_bytes(llama(), c, by_index(0), WASINN_TYPE_U8);
  return {b.begin(), b.end()};
}

std::string streamed_text(wasinn_context* c) {
  std::string text;
  for (int i = 0; i < 100; ++i) {
    Diag d;
    const int st = llama().compute_single(c, &d);
    if (st == WASINN_END_OF_SEQUENCE) break;
    EXPECT_EQ(st, WASINN_OK) << d.detail;
    if (st != WASINN_OK) break;
    wasinn_tensor t{};
    const wasinn_tensor_id id = by_index(0);
    EXPECT_EQ(llama().get_output_single(c, &id, &t, &d), WASINN_OK) << d.detail;
    text.append(static_cast<const char*>(t.data), t.data_length);
  }
  Diag d;
  EXPECT_EQ(llama().fini_single(c, &d), WASINN_OK) << d.detail;
  return text;
}

long input_tokens(wasinn_context* c) {
  const auto b = output_bytes(llama(), c, by_index(1), WASINN_TYPE_U8);
  return metadata_field(std::string(b.begin(), b.end()), "input_tokens");
}

// The image file as input 3, then the prompt, then compute's answer.
std::string answer(wasinn_context* c, const std::string& image, const std::string& prompt) {
  EXPECT_EQ(set_bytes(c, 3, read_file(image)), WASINN_OK);
  EXPECT_EQ(set_text(c, 0, prompt), WASINN_OK);
  return compute_text(c);
}

TEST(LlamaVision, ImageAsInputTensorEqualsNativeMtmdCli) {
  const std::string native = native_answer(llava("image.png"));
  ASSERT_FALSE(native.empty());
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
  // 16 image tokens (56x56 in 14x14 patches) and the text's.
  EXPECT_GT(input_tokens(c.ptr), 16);
  // The same by name, the image after its prompt, and streamed token by token.
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  Diag d;
  const auto png = read_file(llava("image.png"));
  ASSERT_EQ(set_input(llama(), c.ptr, by_name("image"), WASINN_TYPE_U8, {1}, png, d), WASINN_OK) << d.detail;
  EXPECT_EQ(streamed_text(c.ptr), native);
}

TEST(LlamaVision, AnotherImageGivesNativesOtherAnswer) {
  const std::string native1 = native_answer(llava("image.png"));
  const std::string native2 = native_answer(llava("image2.png"));
  ASSERT_NE(native1, native2) << "the projector must make the image matter";
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image2.png"))), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native2);
}

TEST(LlamaVision, InlineBase64ImageAsWasmEdgeTakesIt) {
  const std::string native = native_answer(llava("image.png"));
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  const std::string tag = "<img src=\"data:image/png;base64," + base64(read_file(llava("image.png"))) + "\">";
  ASSERT_EQ(set_text(c.ptr, 0, "USER: " + tag + kQuestion + "\nASSISTANT:"), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
  EXPECT_EQ(streamed_text(c.ptr), native);
}

TEST(LlamaVision, ImagePathInConfigAsWasmEdgesLlavaGuest) {
  const std::string native = native_answer(llava("image.png"));
  Loaded r = load_vision({{"image", llava("image.png")}});
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
  // In metadata, for the next prompt.
  ASSERT_EQ(set_text(c.ptr, 1, json{{"image", llava("image2.png")}}.dump()), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native_answer(llava("image2.png")));
  // As a context property (wasinn:nn-ext), likewise.
  const std::string name = "image", value = llava("image.png");
  Diag d;
  ASSERT_EQ(llama().property_set(r.graph.ptr, c.ptr, name.data(), name.size(), value.data(), value.size(), &d),
            WASINN_OK)
      << d.detail;
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
}

TEST(LlamaVision, TextPromptsStillWorkOnAVisionGraph) {
  Loaded text_only = load_tiny(greedy());
  ASSERT_EQ(text_only.status, WASINN_OK) << text_only.detail;
  Context t(llama(), text_only.graph.ptr);
  ASSERT_EQ(set_text(t.ptr, 0, "Once upon a time"), WASINN_OK);
  const std::string expected = compute_text(t.ptr);
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  ASSERT_EQ(set_text(c.ptr, 0, "Once upon a time"), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), expected);
}

TEST(LlamaVision, Qwen2VlProjectorWithMRopeEqualsNativeMtmdCli) {
  // Another projector type: Qwen2-VL's merger, with M-RoPE positions in the text model.
  const std::string model = llava("tiny-qwen2vl.gguf"), mmproj = llava("mmproj-qwen2vl.gguf");
  const std::string native = native_answer(llava("image.png"), kPrompt, model, mmproj);
  ASSERT_FALSE(native.empty());
  Loaded r = load_pair(model, mmproj);
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  EXPECT_EQ(answer(c.ptr, llava("image.png"), kPrompt), native);
  EXPECT_EQ(streamed_text(c.ptr), native);
  EXPECT_NE(native, native_answer(llava("image2.png"), kPrompt, model, mmproj));
}

TEST(LlamaVision, Gemma3ProjectorAndModelEqualNativeMtmdCli) {
  // Gemma 3: a SigLIP tower pooled 4x4, images decoded with non-causal attention, into a gemma3
  // model whose layer 0 has a 32-token sliding window, shorter than these prompts (kGemma3Turn).
  const std::string model = llava("tiny-gemma3.gguf"), mmproj = llava("mmproj-gemma3.gguf");
  const std::string native = native_answer(llava("image.png"), kGemma3Turn, model, mmproj);
  ASSERT_FALSE(native.empty());
  EXPECT_NE(native, native_answer(llava("image2.png"), kGemma3Turn, model, mmproj));
  Loaded r = load_pair(model, mmproj);
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  EXPECT_EQ(answer(c.ptr, llava("image.png"), kGemma3Turn), native);
  // 16 image tokens, libmtmd's two markers and the text's.
  EXPECT_GT(input_tokens(c.ptr), 18);
  // The example's second turn: the whole conversation again, on the same context.
  const std::string second = kGemma3Turn + trimmed(native) +
                             "<end_of_turn>\n<start_of_turn>user\nwhat else<end_of_turn>\n" + "<start_of_turn>model\n";
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, second), WASINN_OK);
  EXPECT_EQ(streamed_text(c.ptr), native_answer(llava("image.png"), second, model, mmproj));
}

TEST(LlamaVision, TwoContextsOfOneGraphOnTwoThreadsAnswerAsNative) {
  // One projector serves both: its encoder is taken in turns (vision.h), the rest runs at once.
  const std::string native1 = native_answer(llava("image.png"));
  const std::string native2 = native_answer(llava("image2.png"));
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  std::string got[2][3];
  auto run = [&](int who) {
    Context c(llama(), r.graph.ptr);
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(set_bytes(c.ptr, 3, read_file(llava(who == 0 ? "image.png" : "image2.png"))), WASINN_OK);
      EXPECT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
      got[who][round] = round == 1 ? streamed_text(c.ptr) : compute_text(c.ptr);
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(got[0][round], native1) << round;
    EXPECT_EQ(got[1][round], native2) << round;
  }
}

// ---- bad input: an error with a reason, then a correct answer ----

TEST(LlamaVisionBadInput, MissingProjectorIsNotFoundThenALoadWithTheRightOneAnswers) {
  Loaded r = load_vision({{"mmproj", llava("no-such-projector.gguf")}});
  EXPECT_EQ(r.status, WASINN_NOT_FOUND);
  EXPECT_NE(r.detail.find("\"mmproj\": projector file"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("no-such-projector.gguf"), std::string::npos) << r.detail;
  Loaded ok = load_vision();
  ASSERT_EQ(ok.status, WASINN_OK) << ok.detail;
}

TEST(LlamaVisionBadInput, ProjectorThatDoesNotMatchTheModelIsRefusedWithLibmtmdsReason) {
  Loaded r = load_vision({{"mmproj", llava("mmproj-mismatch.gguf")}});
  EXPECT_EQ(r.status, WASINN_INVALID_ARGUMENT);
  EXPECT_NE(r.detail.find("mismatch between text model (n_embd = 64) and mmproj (n_embd = 48)"), std::string::npos)
      << r.detail;
  // A GGUF that is a language model, not a projector.
  Loaded llm = load_vision({{"mmproj", tiny_model()}});
  EXPECT_EQ(llm.status, WASINN_INVALID_ARGUMENT) << llm.detail;
  EXPECT_NE(llm.detail.find("libmtmd could not load"), std::string::npos) << llm.detail;
}

TEST(LlamaVisionBadInput, HostPathsNeedTheOperatorsConsent) {
  json config = greedy();
  config["mmproj"] = llava("mmproj-tiny.gguf");
  Loaded r = load_tiny(config, /*allow_paths=*/false);
  EXPECT_EQ(r.status, WASINN_SECURITY);
  EXPECT_NE(r.detail.find("allow-preload-paths"), std::string::npos) << r.detail;
}

TEST(LlamaVisionBadInput, BytesThatAreNoImageThenARealOne) {
  const std::string native = native_answer(llava("image.png"));
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  std::string detail;
  EXPECT_EQ(set_bytes(c.ptr, 3, read_file(llava("not-an-image.png")), &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("input 3 (\"image\")"), std::string::npos) << detail;
  EXPECT_NE(detail.find("is not an image"), std::string::npos) << detail;
  // A PNG whose header promises 12000x12000 pixels (stb_image would take it): refused before decoding.
  EXPECT_EQ(set_bytes(c.ptr, 3, read_file(llava("huge.png")), &detail), WASINN_TOO_LARGE);
  EXPECT_NE(detail.find("12000x12000 pixels"), std::string::npos) << detail;
  // A PNG cut short, an inline image that is not base64, and one whose bytes are text.
  auto png = read_file(llava("image.png"));
  png.resize(png.size() / 2);
  EXPECT_EQ(set_bytes(c.ptr, 3, png, &detail), WASINN_INVALID_ARGUMENT) << detail;
  EXPECT_EQ(set_text(c.ptr, 0, "USER: <img src=\"data:image/png;base64,@@@\">hi\nASSISTANT:", &detail),
            WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("not valid base64"), std::string::npos) << detail;
  EXPECT_EQ(set_text(c.ptr, 0, "USER: <img src=\"data:image/png;base64,aGVsbG8gd29ybGQ=\">hi\nASSISTANT:", &detail),
            WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("inline image 1"), std::string::npos) << detail;
  // An image path that does not exist.
  EXPECT_EQ(set_text(c.ptr, 1, json{{"image", llava("no-such.png")}}.dump()), WASINN_OK);
  EXPECT_EQ(set_text(c.ptr, 0, kPrompt, &detail), WASINN_NOT_FOUND);
  EXPECT_NE(detail.find("no-such.png"), std::string::npos) << detail;
  ASSERT_EQ(set_text(c.ptr, 1, R"({"image": ""})"), WASINN_OK);
  // Then the same context answers as native.
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
}

// An image's embeddings give no logits to sample from: a prompt must end with text. The fuzzer
// found this (tests/fuzz/regressions/llamacpp): llama.cpp's sampler aborted the host.
TEST(LlamaVisionBadInput, PromptEndingWithAnImageIsRefusedThenTheContextAnswers) {
  const std::string native = native_answer(llava("image.png"));
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  std::string detail;
  const std::string tag = "<img src=\"data:image/png;base64," + base64(read_file(llava("image.png"))) + "\">";
  EXPECT_EQ(set_text(c.ptr, 0, "USER: " + tag, &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("ends with an image"), std::string::npos) << detail;
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  EXPECT_EQ(set_text(c.ptr, 0, "USER: <image>", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("ends with an image"), std::string::npos) << detail;
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
}

// Gemma 3's 16 image tokens attend both ways: llama.cpp aborts when they do not fit one
// micro-batch, so a smaller "ubatch-size" is the guest's error, named at compute.
TEST(LlamaVisionBadInput, Gemma3ImageLargerThanTheMicroBatchIsAnErrorThenALargerOneAnswers) {
  const std::string model = llava("tiny-gemma3.gguf"), mmproj = llava("mmproj-gemma3.gguf");
  const std::string native = native_answer(llava("image.png"), kGemma3Turn, model, mmproj);
  Loaded r = load_pair(model, mmproj);
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  ASSERT_EQ(set_text(c.ptr, 1, R"({"ubatch-size": 8})"), WASINN_OK);
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kGemma3Turn), WASINN_OK);
  Diag d;
  EXPECT_EQ(llama().compute(c.ptr, &d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("raise \"ubatch-size\" to at least 16"), std::string::npos) << d.detail;
  ASSERT_EQ(set_text(c.ptr, 1, R"({"ubatch-size": 512})"), WASINN_OK);  // the default, as native's
  EXPECT_EQ(compute_text(c.ptr), native);
}

TEST(LlamaVisionBadInput, MarkersMustMatchImagesAndAGraphWithoutProjectorTakesNone) {
  Loaded r = load_vision();
  ASSERT_EQ(r.status, WASINN_OK) << r.detail;
  Context c(llama(), r.graph.ptr);
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  std::string detail;
  EXPECT_EQ(set_text(c.ptr, 0, "no marker here", &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("0 image marker(s) \"<image>\" for 1 image(s)"), std::string::npos) << detail;
  EXPECT_EQ(set_text(c.ptr, 0, "<image><image>", &detail), WASINN_INVALID_ARGUMENT);
  // The projector is the graph's: metadata cannot change it.
  EXPECT_EQ(set_text(c.ptr, 1, json{{"mmproj", llava("mmproj-mismatch.gguf")}}.dump(), &detail),
            WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("applies when the model is loaded"), std::string::npos) << detail;

  Loaded text_only = load_tiny(greedy());
  ASSERT_EQ(text_only.status, WASINN_OK) << text_only.detail;
  Context t(llama(), text_only.graph.ptr);
  EXPECT_EQ(set_bytes(t.ptr, 3, read_file(llava("image.png")), &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("without a multimodal projector"), std::string::npos) << detail;
  EXPECT_EQ(set_text(t.ptr, 1, json{{"image", llava("image.png")}}.dump()), WASINN_OK);
  EXPECT_EQ(set_text(t.ptr, 0, kPrompt, &detail), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(detail.find("\"mmproj\""), std::string::npos) << detail;
}

// ---- a WIT component (wasi:nn): the image as the input tensor named "image" ----

#ifdef WASINN_HAVE_WIT_RUN_MODEL
TEST(LlamaVisionWit, ImageTensorByNameEqualsNativeMtmdCli) {
  const std::string in = scratch_dir("llama_vision_wit_in");
  const json config = {
      {"temp", 0}, {"ctx-size", 512}, {"n-predict", kPredict}, {"threads", 1}, {"mmproj", llava("mmproj-tiny.gguf")}};
  const std::string config_text = config.dump();
  write_file(in + "/config.json", std::vector<uint8_t>(config_text.begin(), config_text.end()));
  write_file(in + "/prompt.txt", std::vector<uint8_t>(kPrompt.begin(), kPrompt.end()));
  const auto png = read_file(llava("image.png"));
  write_file(in + "/image.png", png);
  const auto text = read_file(llava("not-an-image.png"));
  write_file(in + "/text.png", text);
  const std::vector<std::string> host = {"--nn-preload",
                                         "vision:GGML:AUTO:" + tiny_model() + ":" + in + "/config.json",
                                         "--dir",
                                         in + "::/in",
                                         "--log-level",
                                         "error",
                                         "--backend-config",
                                         R"(llamacpp={"allow-preload-paths":true})"};
  const std::string prompt = wit_input("prompt", "u8", {static_cast<uint32_t>(kPrompt.size())}, "/in/prompt.txt");
  const std::string image = wit_input("image", "u8", {static_cast<uint32_t>(png.size())}, "/in/image.png");
  // The image before its prompt and after it: names, not order, bind them.
  for (const auto& order : {std::vector<std::string>{"--input", image, "--input", prompt},
                            std::vector<std::string>{"--input", prompt, "--input", image}}) {
    std::vector<std::string> args = {"--name", "vision"};
    args.insert(args.end(), order.begin(), order.end());
    const WitModelRun r = run_wit_model("llama_vision_wit", host, args);
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    ASSERT_FALSE(r.outputs.empty()) << r.run.output;
    EXPECT_EQ(std::string(r.outputs[0].data.begin(), r.outputs[0].data.end()), native_answer(llava("image.png")));
  }
  // Bytes that are no image: invalid-argument with the reason.
  const WitModelRun bad =
      run_wit_model("llama_vision_wit_bad", host,
                    {"--name", "vision", "--input", prompt, "--input",
                     wit_input("image", "u8", {static_cast<uint32_t>(text.size())}, "/in/text.png")});
  EXPECT_NE(bad.run.output.find("error invalid-argument"), std::string::npos) << bad.run.output;
  EXPECT_NE(bad.run.output.find("is not an image"), std::string::npos) << bad.run.output;
}

// wasinn:nn-ext's prompt (guest/components/wit_prompt): one call with the prompt's text, the
// image inline as WasmEdge's base64 tag, on a graph whose config has "mmproj".
TEST(LlamaVisionWit, NnExtPromptWithAnInlineImageEqualsNativeMtmdCli) {
  const std::string in = scratch_dir("llama_vision_prompt_in");
  const std::string config = json{{"mmproj", llava("mmproj-tiny.gguf")}}.dump();
  write_file(in + "/config.json", std::vector<uint8_t>(config.begin(), config.end()));
  const std::string prompt = "USER: <img src=\"data:image/png;base64," + base64(read_file(llava("image.png"))) + "\">" +
                             kQuestion + "\nASSISTANT:";
  const GuestRun r = run_guest({"--nn-preload", "vision:GGML:AUTO:" + tiny_model() + ":" + in + "/config.json",
                                "--log-level", "error", "--backend-config", R"(llamacpp={"allow-preload-paths":true})"},
                               "wit_prompt.component",
                               {"--name", "vision", "--prompt", prompt, "--n-predict", std::to_string(kPredict),
                                "--ctx-size", "512", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string tag = "\ntext greedy ";
  const size_t at = r.output.find(tag);
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string hex = r.output.substr(at + tag.size(), r.output.find('\n', at + 1) - at - tag.size());
  std::string text;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) text += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  EXPECT_EQ(text, native_answer(llava("image.png"))) << r.output;
}
#endif

// The projector as the preload's last file (--nn-preload NAME:GGML:AUTO:model.gguf:mmproj.gguf, what
// `wasinn serve --mmproj` sets): the operator named it, so it needs no allow-preload-paths. A chat's
// "media_marker" part carries an inline image where the template renders it (what the OpenAI
// component sends for an image_url part; tiny.gguf has no template: llama.cpp's ChatML).
TEST(LlamaVisionPreload, ProjectorAsThePreloadsLastFileAndAnImageInAChatMessage) {
  const std::string chatml =
      "<|im_start|>user\n" + std::string(kQuestion) + "<image><|im_end|>\n<|im_start|>assistant\n";
  const std::string native = native_answer(llava("image.png"), chatml);
  LoadArgs args = model_args("ggml", {read_file(tiny_model()), read_file(llava("mmproj-tiny.gguf"))});
  args.paths = {tiny_model(), llava("mmproj-tiny.gguf")};
  args.config = greedy().dump();
  Graph g;
  Diag d;
  ASSERT_EQ(load(backend(/*allow_paths=*/false), args, g, d), WASINN_OK) << d.detail;
  Context c(llama(), g.ptr);
  const std::string tag = "<img src=\"data:image/png;base64," + base64(read_file(llava("image.png"))) + "\">";
  const json messages = json::array({{{"role", "user"},
                                      {"content", json::array({{{"type", "text"}, {"text", kQuestion}},
                                                               {{"type", "media_marker"}, {"text", tag}}})}}});
  ASSERT_EQ(set_text(c.ptr, 2, messages.dump()), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
  // And "mmproj" in the load config besides: two projectors, refused.
  json config = greedy();
  config["mmproj"] = llava("mmproj-tiny.gguf");
  args.config = config.dump();
  Graph two;
  EXPECT_EQ(load(backend(), args, two, d), WASINN_INVALID_ARGUMENT);
  EXPECT_NE(d.detail.find("two projectors"), std::string::npos) << d.detail;
}

}  // namespace
}  // namespace wasinn_test
