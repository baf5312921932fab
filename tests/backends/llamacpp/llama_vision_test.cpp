// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Images into text models, through the plugin's C table: the tiny llama with the tiny LLaVA
// projector (scripts/fixtures/export_llava.py) must answer as native llama.cpp's llama-mtmd-cli
// does on the same files, greedy, whichever way the image arrives (input 3, inline base64,
// WasmEdge's "image" path), by compute and by compute_single, and through WasmEdge's llava
// example rebuilt on its crates (guest/rust/wasmedge-ggml-llava) on the wasinn command; and bad
// input (a missing or mismatched projector, bytes that are no image, marker counts, base64) is
// an error with a reason, after which the same context answers correctly.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "guest_runner.h"
#include "plugin_harness.h"
#include "probe_run.h"
#ifdef WASINN_HAVE_WIT_RUN_MODEL
#include "wit_guest.h"
#endif

namespace wasinn_test {
namespace {

using json = nlohmann::json;

const std::string kQuestion = "describe the picture";
// llama-mtmd-cli's prompt for kQuestion with --chat-template vicuna (its marker before the
// question, as it puts it when the prompt has none), in WasmEdge's marker.
const std::string kPrompt = "USER: <image>" + kQuestion + "\nASSISTANT:";
constexpr int kPredict = 16;

std::string llava(const std::string& name) { return (fixtures_dir() / "llava" / name).string(); }

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Native llama.cpp: llama-mtmd-cli on the same files and settings, its stdout without the
// newline it prints before the answer and the two after.
std::string native_answer(const std::string& image, const std::string& mmproj = llava("mmproj-tiny.gguf"),
                          const std::string& model = tiny_model()) {
  static std::map<std::string, std::string> cache;
  const std::string key = image + "|" + mmproj + "|" + model;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const std::string cmd = "GGML_BACKEND_PATH=" + shell_quote(std::string(WASINN_GGML_MODULE_DIR) + "/libggml-cpu.so") +
                          " " + shell_quote(WASINN_LLAMA_MTMD_CLI) + " -m " + shell_quote(model) + " --mmproj " +
                          shell_quote(mmproj) + " --image " + shell_quote(image) + " -p " + shell_quote(kQuestion) +
                          " --chat-template vicuna --temp 0 -n " + std::to_string(kPredict) +
                          " -t 1 -c 512 --seed 1 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr) << cmd;
  if (!p) return "";
  std::string out;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  const int status = pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd << "\n" << out;
  EXPECT_TRUE(out.size() >= 3 && out.front() == '\n' && out.substr(out.size() - 2) == "\n\n") << out;
  if (out.size() < 3) return "";
  return cache[key] = out.substr(1, out.size() - 3);
}

std::string base64(const std::vector<uint8_t>& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += abc[(v >> s) & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = bytes[i] << 16;
    out += std::string{abc[(v >> 18) & 63], abc[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += std::string{abc[(v >> 18) & 63], abc[(v >> 12) & 63], abc[(v >> 6) & 63], '='};
  }
  return out;
}

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

json greedy() { return {{"temp", 0}, {"ctx-size", 512}, {"n-predict", kPredict}, {"threads", 1}}; }

Loaded load_tiny(const json& config, bool allow_paths = true) {
  LoadArgs args = model_args("ggml", {read_file(tiny_model())});
  args.paths = {tiny_model()};
  args.config = config.dump();
  Loaded r;
  Diag d;
  r.status = load(backend(allow_paths), args, r.graph, d);
  r.detail = d.detail;
  return r;
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
  const std::string native = native_answer(llava("image.png"), mmproj, model);
  ASSERT_FALSE(native.empty());
  LoadArgs args = model_args("ggml", {read_file(model)});
  args.paths = {model};
  json config = greedy();
  config["mmproj"] = mmproj;
  args.config = config.dump();
  Graph g;
  Diag d;
  ASSERT_EQ(load(backend(), args, g, d), WASINN_OK) << d.detail;
  Context c(llama(), g.ptr);
  ASSERT_EQ(set_bytes(c.ptr, 3, read_file(llava("image.png"))), WASINN_OK);
  ASSERT_EQ(set_text(c.ptr, 0, kPrompt), WASINN_OK);
  EXPECT_EQ(compute_text(c.ptr), native);
  EXPECT_EQ(streamed_text(c.ptr), native);
  EXPECT_NE(native, native_answer(llava("image2.png"), mmproj, model));
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

// ---- WasmEdge's llava example (guest/rust/wasmedge-ggml-llava) on the wasinn command ----

const std::string kLlavaGuest = "compat_wasmedge_ggml_llava";

class LlavaGuest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(std::string(WASINN_GUEST_DIR) + "/" + kLlavaGuest + ".wasm"))
      GTEST_SKIP() << "the Rust guests are not built (scripts/fetch-deps.sh rust-guest)";
  }
  // The example's command line: the model preloaded as "default", the projector and image in
  // its environment, greedy through wasinn's optional additions.
  GuestRun run(const std::string& image, const std::string& prompt, std::vector<std::string> env = {},
               bool allow_paths = true) {
    std::vector<std::string> host = {"--nn-preload", "default:GGML:AUTO:" + tiny_model(),
                                     "--env",        "mmproj=" + llava("mmproj-tiny.gguf"),
                                     "--env",        "image=" + image};
    for (const std::string& e : {"temp=0", "n_predict=16", "threads=1", "ctx_size=512"}) env.push_back(e);
    for (const auto& e : env) host.insert(host.end(), {"--env", e});
    if (allow_paths) host.insert(host.end(), {"--backend-config", R"(llamacpp={"allow-preload-paths":true})"});
    return run_guest(host, kLlavaGuest, {"default", prompt});
  }
};

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

TEST_F(LlavaGuest, AnswerEqualsNativeMtmdCli) {
  for (const std::string& image : {llava("image.png"), llava("image2.png")}) {
    const GuestRun r = run(image, kPrompt);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The example prints the answer trimmed, on the line before the final token counts.
    EXPECT_NE(r.output.find("Response:\n"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\n" + trimmed(native_answer(image)) + "\n[INFO] Number of input tokens: "),
              std::string::npos)
        << "native: " << native_answer(image) << "\n"
        << r.output;
    EXPECT_NE(r.output.find("[INFO] Number of output tokens: " + std::to_string(kPredict)), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("[INFO] llama_build_number: 11312"), std::string::npos) << r.output;
  }
}

TEST_F(LlavaGuest, BadInputIsAnErrorWithItsReason) {
  // The example's expect() panics on the errno; the host's log has the reason.
  const GuestRun bad = run(llava("not-an-image.png"), kPrompt);
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("Failed to set input: BackendError(InvalidArgument)"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("is not an image"), std::string::npos) << bad.output;
  const GuestRun missing = run(llava("no-such.png"), kPrompt);
  EXPECT_NE(missing.exit_code, 0) << missing.output;
  EXPECT_NE(missing.output.find("no-such.png does not exist"), std::string::npos) << missing.output;
  const GuestRun refused = run(llava("image.png"), kPrompt, {}, /*allow_paths=*/false);
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find("Failed to build graph"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("allow-preload-paths"), std::string::npos) << refused.output;
  const GuestRun markers = run(llava("image.png"), "no marker");
  EXPECT_NE(markers.exit_code, 0) << markers.output;
  EXPECT_NE(markers.output.find("0 image marker(s)"), std::string::npos) << markers.output;
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

}  // namespace
}  // namespace wasinn_test
