// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge-WASINN-examples' vision examples, rebuilt on their crates (guest/rust/wasmedge-ggml-*),
// on the wasinn command with the tiny fixtures (scripts/fixtures/export_llava.py): llava and
// qwen2vl (the picture from the "image" path), gemma-3 and its base64 binary, and
// llava-base64-stream (the picture inline, the answer streamed by compute_single). Each answer,
// one-shot or turn by turn of the examples' chat on stdin, must be native llama-mtmd-cli's on
// the prompt the example builds, greedy (wasinn's optional temp/n_predict/threads). With
// WASINN_WASMEDGE_EXAMPLES naming a checkout of the examples, their own prebuilt .wasm files too.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <tuple>

#include "guest_runner.h"
#include "llama_vision_support.h"
#include "plugin_harness.h"
#include "probe_run.h"

namespace wasinn_test {
namespace {

struct Pair {
  std::string model, mmproj;
};
Pair llava_pair() { return {tiny_model(), llava("mmproj-tiny.gguf")}; }
Pair qwen2vl_pair() { return {llava("tiny-qwen2vl.gguf"), llava("mmproj-qwen2vl.gguf")}; }
Pair gemma3_pair() { return {llava("tiny-gemma3.gguf"), llava("mmproj-gemma3.gguf")}; }

// An example's chat format, as its source builds the prompt: the first turn with the picture,
// what a later line appends, what a (trimmed) answer appends.
struct Format {
  std::function<std::string(const std::string&)> first, next, keep;
};
const std::string kSystem =
    "You are a helpful, respectful and honest assistant. Always answer as short as possible, while being safe.";
Format llava_format(const std::string& image) {
  return {[=](const std::string& q) { return kSystem + "\nUSER:" + image + "\n" + q + "\nASSISTANT:"; },
          [](const std::string& q) { return "\nUSER: " + q + "\nASSISTANT:"; },
          [](const std::string& a) { return " " + a; }};
}
Format qwen2vl_format() {
  return {[](const std::string& q) {
            return "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
                   "<|vision_start|><image><|vision_end|>" +
                   q + "<|im_end|>\n<|im_start|>assistant\n";
          },
          [](const std::string& q) { return "<|im_start|>user\n" + q + "<|im_end|>\n<|im_start|>assistant\n"; },
          [](const std::string& a) { return a + "<|im_end|>\n"; }};
}
Format gemma3_format(const std::string& image) {
  return {[=](const std::string& q) {
            return "<start_of_turn>user\n<start_of_image>" + image + "<end_of_image>" + q +
                   "<end_of_turn>\n<start_of_turn>model\n";
          },
          [](const std::string& q) { return "<start_of_turn>user\n" + q + "<end_of_turn>\n<start_of_turn>model\n"; },
          [](const std::string& a) { return a + "<end_of_turn>\n"; }};
}

const std::vector<std::string> kLines = {kQuestion, "what else is in it"};

// Native's answers to the chat's turns: each prompt the whole conversation so far, the image
// at WasmEdge's marker (`format` built with "<image>").
std::vector<std::string> native_chat(const Format& format, const Pair& pair, const std::string& image) {
  std::vector<std::string> answers;
  std::string conversation;
  for (const std::string& line : kLines) {
    conversation += answers.empty() ? format.first(line) : format.next(line);
    answers.push_back(native_answer(image, conversation, pair.model, pair.mmproj));
    conversation += format.keep(trimmed(answers.back()));
  }
  return answers;
}

// The chat's transcript on stdout: the answer trimmed after "ASSISTANT:\n", or streamed as it
// came and then a newline; "USER:" again at the end of stdin.
std::string transcript(const std::vector<std::string>& answers, bool streamed) {
  std::string out;
  for (const std::string& a : answers) out += "USER:\nASSISTANT:\n" + (streamed ? a : trimmed(a)) + "\n";
  return out + "USER:\n";
}

// The chat's run: its end reached, each turn native's.
void expect_chat(const GuestRun& r, const std::vector<std::string>& answers, bool streamed) {
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(transcript(answers, streamed)), std::string::npos)
      << transcript(answers, streamed) << r.output;
}

// A one-shot run that prints the metadata: the answer trimmed, on the line before the final
// token counts.
void expect_one_shot(const GuestRun& r, const std::string& native) {
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\n" + trimmed(native) + "\n[INFO] Number of input tokens: "), std::string::npos)
      << "native: " << native << "\n"
      << r.output;
}

class VisionGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* g : {"compat_wasmedge_ggml_llava", "compat_wasmedge_ggml_qwen2vl", "compat_wasmedge_ggml_gemma_3",
                          "compat_wasmedge_ggml_gemma_3_base64", "compat_wasmedge_ggml_llava_base64_stream"}) {
      if (!std::filesystem::exists(std::string(WASINN_GUEST_DIR) + "/" + g + ".wasm"))
        GTEST_SKIP() << "the Rust guests are not built (scripts/fetch-deps.sh rust-guest)";
    }
  }
  // The examples' command line: the model preloaded as "default", the projector (and the image
  // or its base64) in the environment, greedy through wasinn's optional additions.
  static std::vector<std::string> host(const Pair& pair, std::vector<std::string> env, bool allow_paths = true) {
    std::vector<std::string> args = {"--nn-preload", "default:GGML:AUTO:" + pair.model, "--env",
                                     "mmproj=" + pair.mmproj};
    for (const char* e : {"temp=0", "n_predict=16", "threads=1", "ctx_size=512"}) env.push_back(e);
    for (const auto& e : env) args.insert(args.end(), {"--env", e});
    if (allow_paths) args.insert(args.end(), {"--backend-config", R"(llamacpp={"allow-preload-paths":true})"});
    return args;
  }
  static std::string chat_input() { return kLines[0] + "\n\n" + kLines[1] + "\n"; }
  static std::string image_base64() { return "image_base64=" + base64(read_file(llava("image.png"))); }
};

// ---- llava: one-shot with the metadata, bad input, and its chat ----

TEST_F(VisionGuest, LlavaOneShotEqualsNativeMtmdCli) {
  for (const std::string& image : {llava("image.png"), llava("image2.png")}) {
    const GuestRun r =
        run_guest(host(llava_pair(), {"image=" + image}), "compat_wasmedge_ggml_llava", {"default", kPrompt});
    expect_one_shot(r, native_answer(image));
    EXPECT_NE(r.output.find("Response:\n"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[INFO] Number of output tokens: " + std::to_string(kPredict)), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("[INFO] llama_build_number: 11312"), std::string::npos) << r.output;
  }
}

TEST_F(VisionGuest, LlavaBadInputIsAnErrorWithItsReason) {
  auto run = [&](const std::string& image, const std::string& prompt, bool allow_paths = true) {
    return run_guest(host(llava_pair(), {"image=" + image}, allow_paths), "compat_wasmedge_ggml_llava",
                     {"default", prompt});
  };
  // The example's expect() panics on the errno; the host's log has the reason.
  const GuestRun bad = run(llava("not-an-image.png"), kPrompt);
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("Failed to set input: BackendError(InvalidArgument)"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("is not an image"), std::string::npos) << bad.output;
  const GuestRun missing = run(llava("no-such.png"), kPrompt);
  EXPECT_NE(missing.exit_code, 0) << missing.output;
  EXPECT_NE(missing.output.find("no-such.png does not exist"), std::string::npos) << missing.output;
  const GuestRun refused = run(llava("image.png"), kPrompt, /*allow_paths=*/false);
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find("Failed to build graph"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("allow-preload-paths"), std::string::npos) << refused.output;
  const GuestRun markers = run(llava("image.png"), "no marker");
  EXPECT_NE(markers.exit_code, 0) << markers.output;
  EXPECT_NE(markers.output.find("0 image marker(s)"), std::string::npos) << markers.output;
}

TEST_F(VisionGuest, LlavaChatTurnsEqualNativeMtmdCli) {
  const auto answers = native_chat(llava_format("<image>"), llava_pair(), llava("image.png"));
  expect_chat(run_guest_with_stdin(host(llava_pair(), {"image=" + llava("image.png")}), "compat_wasmedge_ggml_llava",
                                   {"default"}, chat_input()),
              answers, false);
}

// docs/backends/llamacpp.md's vision example (the fenced command running the llava guest), run
// as written but for where the build and the fixtures are: its answer is native's.
TEST_F(VisionGuest, TheDocumentedExampleRunsAsWritten) {
  std::ifstream doc(WASINN_LLAMACPP_DOC);
  std::string line, command;
  for (bool fenced = false; std::getline(doc, line);) {
    if (line.starts_with("```")) fenced = !fenced;
    if (fenced && line.find("compat_wasmedge_ggml_llava.wasm") != std::string::npos) command = line;
  }
  ASSERT_FALSE(command.empty()) << "no fenced llava command in " << WASINN_LLAMACPP_DOC;
  const std::string prompt = "USER: <image>describe the picture ASSISTANT:";
  ASSERT_NE(command.find(" default '" + prompt + "'"), std::string::npos) << command;
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = command.find(from); at != std::string::npos; at = command.find(from, at + to.size()))
      command.replace(at, from.size(), to);
  };
  replace_all("build/bin/wasinn run ", std::string(WASINN_CLI) + " run --backend-dir " + WASINN_BACKEND_DIR + " ");
  replace_all("build/guests/", std::string(WASINN_GUEST_DIR) + "/");
  replace_all("$HOME/.cache/wasinn/fixtures/",
              std::filesystem::path(llava("")).parent_path().parent_path().string() + "/");
  const std::string dir = scratch_dir("documented_vision");
  { std::ofstream(dir + "/example.sh") << command << "\n"; }
  const int status = std::system(("bash " + dir + "/example.sh >" + dir + "/out.txt 2>&1").c_str());
  std::ifstream in(dir + "/out.txt");
  GuestRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output.assign(std::istreambuf_iterator<char>(in), {});
  expect_one_shot(r, native_answer(llava("image.png"), prompt));
  EXPECT_NE(r.output.find("[INFO] Number of output tokens: 16"), std::string::npos) << r.output;
}

// ---- qwen2vl: Qwen2-VL's projector and M-RoPE model, ChatML turns ----

TEST_F(VisionGuest, Qwen2VlChatTurnsAndOneShotEqualNativeMtmdCli) {
  const auto answers = native_chat(qwen2vl_format(), qwen2vl_pair(), llava("image.png"));
  const auto args = host(qwen2vl_pair(), {"image=" + llava("image.png")});
  expect_chat(run_guest_with_stdin(args, "compat_wasmedge_ggml_qwen2vl", {"default"}, chat_input()), answers, false);
  // One-shot: the first turn's prompt given whole.
  expect_one_shot(run_guest(args, "compat_wasmedge_ggml_qwen2vl", {"default", qwen2vl_format().first(kLines[0])}),
                  answers[0]);
}

// ---- gemma-3: Gemma 3's projector and model; its two binaries, the picture by path and inline ----

TEST_F(VisionGuest, Gemma3ChatTurnsEqualNativeMtmdCli) {
  const auto answers = native_chat(gemma3_format("<image>"), gemma3_pair(), llava("image.png"));
  expect_chat(run_guest_with_stdin(host(gemma3_pair(), {"image=" + llava("image.png")}), "compat_wasmedge_ggml_gemma_3",
                                   {"default"}, chat_input()),
              answers, false);
  expect_chat(run_guest_with_stdin(host(gemma3_pair(), {image_base64()}), "compat_wasmedge_ggml_gemma_3_base64",
                                   {"default"}, chat_input()),
              answers, false);
}

TEST_F(VisionGuest, Gemma3WithoutItsImageSaysWhat) {
  const GuestRun r = run_guest_with_stdin(host(gemma3_pair(), {}), "compat_wasmedge_ggml_gemma_3", {"default"}, "hi\n");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("Failed to get the target image."), std::string::npos) << r.output;
  const GuestRun b64 =
      run_guest_with_stdin(host(gemma3_pair(), {}), "compat_wasmedge_ggml_gemma_3_base64", {"default"}, "hi\n");
  EXPECT_EQ(b64.exit_code, 1) << b64.output;
  EXPECT_NE(b64.output.find("Failed to get image_base64"), std::string::npos) << b64.output;
}

// ---- llava-base64-stream: the picture inline, each answer streamed by compute_single ----

TEST_F(VisionGuest, LlavaBase64StreamChatTurnsEqualNativeMtmdCli) {
  const auto answers = native_chat(llava_format("<image>"), llava_pair(), llava("image.png"));
  expect_chat(run_guest_with_stdin(host(llava_pair(), {image_base64()}), "compat_wasmedge_ggml_llava_base64_stream",
                                   {"default"}, chat_input()),
              answers, true);
}

TEST_F(VisionGuest, LlavaBase64StreamOneShotTakesTheTagInThePrompt) {
  // Its non-interactive mode computes once and prints the answer alone; the picture is the
  // prompt's own inline tag.
  const std::string tag = "<img src=\"data:image/png;base64," + base64(read_file(llava("image2.png"))) + "\">";
  const GuestRun r = run_guest(host(llava_pair(), {}), "compat_wasmedge_ggml_llava_base64_stream",
                               {"default", "USER: " + tag + kQuestion + "\nASSISTANT:"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Response:\n" + trimmed(native_answer(llava("image2.png"))) + "\n"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("[INFO]"), std::string::npos) << r.output;
  // Not base64: the plugin's reason, the example's panic.
  const GuestRun bad = run_guest(host(llava_pair(), {}), "compat_wasmedge_ggml_llava_base64_stream",
                                 {"default", "USER: <img src=\"data:image/png;base64,@@\">hi\nASSISTANT:"});
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("not valid base64"), std::string::npos) << bad.output;
}

// ---- WasmEdge's own prebuilt .wasm files, unchanged (opt-in) ----
// None can be fetched here and they are not ours to commit: WASINN_WASMEDGE_EXAMPLES names a
// checkout of second-state/WasmEdge-WASINN-examples. They read no temp or n_predict, so the
// preload's JSON config makes them greedy; their chats read on at the end of stdin, so
// --timeout ends them after their turns.

class PrebuiltWasmEdgeGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("WASINN_WASMEDGE_EXAMPLES");
    if (!dir || !*dir) GTEST_SKIP() << "WASINN_WASMEDGE_EXAMPLES (a WasmEdge-WASINN-examples checkout) is not set";
    root_ = std::string(dir) + "/wasmedge-ggml/";
    const std::string config = scratch_dir("prebuilt") + "/greedy.json";
    const std::string greedy = R"({"temp": 0, "n-predict": 16, "threads": 1})";
    write_file(config, std::vector<uint8_t>(greedy.begin(), greedy.end()));
    config_ = config;
  }
  std::vector<std::string> host(const Pair& pair, const std::vector<std::string>& env) const {
    std::vector<std::string> args = {"--nn-preload",     "default:GGML:AUTO:" + pair.model + ":" + config_,
                                     "--timeout",        "10",
                                     "--backend-config", R"(llamacpp={"allow-preload-paths":true})"};
    for (const auto& e : {"mmproj=" + pair.mmproj, std::string("ctx_size=512")}) args.insert(args.end(), {"--env", e});
    for (const auto& e : env) args.insert(args.end(), {"--env", e});
    return args;
  }
  // The picture an example embeds in `source`, as a file for llama-mtmd-cli.
  std::string embedded_picture(const std::string& source) const {
    const auto text = read_file(root_ + source);
    const std::string code(text.begin(), text.end()), start = "let image_base64_bytes = \"";
    const size_t at = code.find(start), end = code.find('"', at + start.size());
    std::vector<uint8_t> jpeg;
    EXPECT_TRUE(at != std::string::npos && end != std::string::npos &&
                decode_base64(code.substr(at + start.size(), end - at - start.size()), jpeg))
        << source;
    const std::string path = scratch_dir("prebuilt_" + std::filesystem::path(source).stem().string()) + "/picture.jpg";
    write_file(path, jpeg);
    return path;
  }
  std::string root_, config_;
};

TEST_F(PrebuiltWasmEdgeGuest, OneShotAnswersEqualNativeMtmdCli) {
  const std::string image = llava("image.png");
  const std::string qwen = qwen2vl_format().first(kQuestion), gemma = gemma3_format("<image>").first(kQuestion);
  for (const auto& [wasm, pair, prompt] : {std::tuple{"llava/wasmedge-ggml-llava.wasm", llava_pair(), kPrompt},
                                           std::tuple{"qwen2vl/wasmedge-ggml-qwen2vl.wasm", qwen2vl_pair(), qwen},
                                           std::tuple{"gemma-3/wasmedge-ggml-gemma-3.wasm", gemma3_pair(), gemma}}) {
    SCOPED_TRACE(wasm);
    expect_one_shot(run_guest_with_stdin(host(pair, {"image=" + image}), root_ + wasm, {"default", prompt}, ""),
                    native_answer(image, prompt, pair.model, pair.mmproj));
  }
}

TEST_F(PrebuiltWasmEdgeGuest, Base64ChatsWithTheirOwnPicturesEqualNativeMtmdCli) {
  struct Case {
    std::string wasm, source;
    Pair pair;
    Format format;
    bool streamed;
  };
  for (const Case& c : {Case{"llava-base64-stream/wasmedge-ggml-llava-base64-stream.wasm",
                             "llava-base64-stream/src/main.rs", llava_pair(), llava_format("<image>"), true},
                        Case{"gemma-3/wasmedge-ggml-gemma-3-base64.wasm", "gemma-3/src/base64.rs", gemma3_pair(),
                             gemma3_format("<image>"), false}}) {
    const auto answers = native_chat(c.format, c.pair, embedded_picture(c.source));
    const GuestRun r =
        run_guest_with_stdin(host(c.pair, {}), root_ + c.wasm, {"default"}, kLines[0] + "\n" + kLines[1] + "\n");
    EXPECT_EQ(r.output.find(transcript(answers, c.streamed)), 0u) << c.wasm << "\n" << r.output;
  }
}

}  // namespace
}  // namespace wasinn_test
