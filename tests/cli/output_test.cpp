// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Output people and tools read: -q/-v beside --log-level (off is silent), the `wasinn
// backends --check` table aligned whatever the names and versions, and --json for it and for
// `models inspect` (the listing without --check: backends_test.cpp).
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

// A guest loading a name nobody registered: the failed call is a warning; the guest exits 8.
ChildResult run_with_warning(const std::vector<std::string>& options) {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {guest("run_model"), "--name", "ghost"});
  return wasinn(args);
}

TEST(LogLevel, QuietVerboseAndOff) {
  const ChildResult normal = run_with_warning({});
  EXPECT_EQ(normal.exit_code, 8) << normal.describe();
  EXPECT_NE(normal.err.find("no model named 'ghost'"), std::string::npos) << normal.describe();
  for (const auto& hush : std::vector<std::vector<std::string>>{
           {"-q"}, {"--quiet"}, {"-qq"}, {"--log-level", "error"}, {"--log-level", "off"}, {"--log-level=off"}}) {
    const ChildResult r = run_with_warning(hush);
    EXPECT_EQ(r.exit_code, 8) << hush[0] << "\n" << r.describe();
    EXPECT_EQ(r.err, "") << hush[0] << "\n" << r.describe();
  }
  for (const auto& more :
       std::vector<std::vector<std::string>>{{"-v"}, {"-vv"}, {"--verbose"}, {"--log-level", "debug"}}) {
    const ChildResult r = run_with_warning(more);
    EXPECT_EQ(r.exit_code, 8) << more[0] << "\n" << r.describe();
    EXPECT_NE(r.err.find("no model named 'ghost'"), std::string::npos) << more[0] << "\n" << r.describe();
  }
  const ChildResult both = run_with_warning({"--log-level", "info", "-q"});
  EXPECT_EQ(both.exit_code, 2) << both.describe();
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// A guest sees only an errno; the host says why at the default level. run_model on a GGUF
// generates until the tiny model's context is full: the guest prints "errno 101 in compute" and
// the reason is on stderr without -v.
TEST(GuestVisibleFailures, TheReasonIsAWarningAtTheDefaultLevel) {
  const auto gguf = fixture("llama/tiny.gguf");
  if (!gguf || !fs::exists(backend_dir() / "libwasinn_backend_llamacpp.so"))
    GTEST_SKIP() << "no llama fixture or llamacpp plugin";
  ScratchDir dir;
  const std::string prompt = "Once upon a time";
  write_text(dir / "prompt.txt", prompt);
  const ChildResult r =
      wasinn({"run", "--dir", gguf->parent_path().string() + "::/m", "--dir", dir.path().string() + "::/o",
              guest("run_model"), "--model", "/m/tiny.gguf", "--encoding", "ggml", "--input",
              "0:u8:" + std::to_string(prompt.size()) + ":/o/prompt.txt", "--output", "0:/o/out.txt"});
  EXPECT_EQ(r.exit_code, 101) << r.describe();
  EXPECT_NE(r.out.find("errno 101 in compute"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("wasinn: warning: wasi_ephemeral_nn::compute -> context_full (101): the context is full"),
            std::string::npos)
      << r.describe();
}

// A guest making the same refused call again and again does not flood the log: each kind
// (function and outcome) warns once, then at its 10th, 100th... time with the count; -vv shows
// every one. nn_error_paths makes more than ten refused set_input calls (invalid_argument).
TEST(GuestVisibleFailures, RepeatedRefusalsWarnOnceThenByCount) {
  const auto fixtures = fixture("digits/model.onnx");
  if (!fixtures || !ort_plugin_built()) GTEST_SKIP() << "no digits fixture or ONNX Runtime plugin";
  const fs::path root = fixtures->parent_path().parent_path();
  const auto run = [&](const std::vector<std::string>& level) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), level.begin(), level.end());
    args.insert(args.end(), {"--nn-preload", "digits:ONNX:AUTO:" + fixtures->string(), "--dir", root.string() + "::/f",
                             guest("nn_error_paths"), "/f"});
    return wasinn(args);
  };
  const ChildResult normal = run({});
  ASSERT_EQ(normal.exit_code, 0) << normal.describe();
  // The first and the 10th; the 10th with its count after the reason.
  const std::string kind = "wasinn: warning: wasi_ephemeral_nn::set_input -> invalid_argument (1): ";
  EXPECT_EQ(count_of(normal.err, kind), 2u) << normal.describe();
  const size_t tenth = normal.err.rfind(kind);
  ASSERT_NE(tenth, std::string::npos);
  const std::string tenth_line = normal.err.substr(tenth, normal.err.find('\n', tenth) - tenth);
  EXPECT_TRUE(tenth_line.ends_with(" (10 times so far; -vv logs each)")) << tenth_line;
  const ChildResult all = run({"-vv"});
  ASSERT_EQ(all.exit_code, 0) << all.describe();
  EXPECT_GE(count_of(all.err, "wasi_ephemeral_nn::set_input -> invalid_argument (1)"), 10u) << all.describe();
}

// A trap's reason is its first line; the wasm backtrace follows, its three innermost frames
// unless -v. trap_guest traps two calls below main: five frames.
TEST(GuestVisibleFailures, ATrapsReasonComesFirstAndTheBacktraceIsShortUnlessVerbose) {
  const ChildResult normal = wasinn({"run", guest("trap_guest")});
  EXPECT_EQ(normal.exit_code, 134) << normal.describe();
  EXPECT_TRUE(
      normal.err.starts_with("wasinn: error: wasm trap: wasm `unreachable` instruction executed\n"
                             "wasm backtrace:\n"))
      << normal.describe();
  EXPECT_NE(normal.err.find("wasinn_test_deliberate_trap"), std::string::npos) << normal.describe();
  EXPECT_EQ(normal.err.find("_start.command_export"), std::string::npos) << normal.describe();
  EXPECT_TRUE(normal.err.ends_with("    (2 more frames; -v shows all)\n")) << normal.describe();
  EXPECT_EQ(count_lines(normal.err), 6u) << normal.describe();

  const ChildResult verbose = wasinn({"run", "-v", guest("trap_guest")});
  EXPECT_EQ(verbose.exit_code, 134) << verbose.describe();
  EXPECT_TRUE(verbose.err.starts_with("wasinn: error: wasm trap: wasm `unreachable` instruction executed\n"))
      << verbose.describe();
  EXPECT_NE(verbose.err.find("_start.command_export"), std::string::npos) << verbose.describe();
  EXPECT_NE(verbose.err.find("WASMTIME_BACKTRACE_DETAILS"), std::string::npos) << verbose.describe();
  EXPECT_EQ(verbose.err.find("more frames"), std::string::npos) << verbose.describe();

  // The timeout's own words stay first, the trap's cause after them.
  const ChildResult spin = wasinn({"run", "--timeout", "200ms", guest("wasi_probe"), "spin"});
  EXPECT_EQ(spin.exit_code, 134) << spin.describe();
  EXPECT_TRUE(
      spin.err.starts_with("wasinn: error: the guest ran longer than --timeout 200ms and was stopped\n"
                           "wasm trap: interrupt\nwasm backtrace:\n"))
      << spin.describe();
}

// wasi:logging for core modules (LlamaEdge's llama-api-server imports it): each call one line of
// wasinn's log at the guest's level; a context is a label, never a file; bad calls are dropped.
TEST(WasiLogging, EachCallIsALineOfTheLogAtTheGuestsLevel) {
  const ChildResult normal = wasinn({"run", guest("wasi_logging")});
  ASSERT_EQ(normal.exit_code, 0) << normal.describe();
  EXPECT_EQ(normal.out, "done\n");
  // run's default level is warn: warn, error and critical show.
  EXPECT_EQ(normal.err,
            "wasinn: warning: guest: probe: warn line\n"
            "wasinn: error: guest: probe: error line\n"
            "wasinn: critical: guest: probe: critical line\n")
      << normal.describe();
  const ChildResult all = wasinn({"run", "--log-level", "trace", guest("wasi_logging")});
  ASSERT_EQ(all.exit_code, 0) << all.describe();
  for (const char* line : {"trace: guest: probe: trace line\n", "debug: guest: probe: debug line\n",
                           "info: guest: probe: info line\n", "info: guest: no context\n"})
    EXPECT_NE(all.err.find(line), std::string::npos) << line << "\n" << all.describe();
}

TEST(WasiLogging, QuietKeepsOnlyTheGuestsErrors) {
  const ChildResult text = wasinn({"run", "-q", guest("wasi_logging")});
  EXPECT_EQ(text.err, "wasinn: error: guest: probe: error line\nwasinn: critical: guest: probe: critical line\n")
      << text.describe();
}

TEST(WasiLogging, BadCallsAreDroppedWithAWarningAndTheGuestGoesOn) {
  const ChildResult r = wasinn({"run", "--log-level", "info", guest("wasi_logging"), "bad"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "done\n");
  EXPECT_NE(r.err.find("wasi:logging/logging.log: context: 100 bytes at guest address 0xfffffff0 lie outside"),
            std::string::npos)
      << r.describe();
  EXPECT_NE(r.err.find("wasi:logging/logging.log: message: 100 bytes at guest address 0xfffffff0 lie outside"),
            std::string::npos)
      << r.describe();
  EXPECT_NE(r.err.find("level 9 is none of trace (0) to critical (5)"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("info: guest: probe: after\n"), std::string::npos) << r.describe();
}

TEST(WasiLogging, AContextNamingAFileIsALabelNotAPathToWrite) {
  const fs::path file = "/tmp/wasinn-logging-file";
  fs::remove(file);
  const ChildResult r = wasinn({"run", "--log-level", "info", guest("wasi_logging"), "file"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("info: guest: /tmp/wasinn-logging-file: not into a file\n"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(file));
}

// Manifests whose plugins are missing: names of any length, each row with its reason.
void write_manifest(const fs::path& dir, const std::string& name, const std::string& encodings) {
  write_text(dir / (name + ".json"), "{\"name\": \"" + name + "\", \"abi_version\": 1, \"library\": \"lib" + name +
                                         ".so\", \"encodings\": " + encodings + "}");
}

TEST(Backends, TableColumnsLineUpWhateverTheLengths) {
  ScratchDir dir;
  write_manifest(dir.path(), "a", "[\"onnx\"]");
  write_manifest(dir.path(), "a_backend_with_a_very_long_name", "[\"onnx\", \"openvino\", \"pytorch\", \"ggml\"]");
  const ChildResult r = wasinn({"backends", "--check", "--backend-dir", dir.path().string()});
  ASSERT_EQ(r.exit_code, 1) << r.describe();  // neither plugin exists: --check fails, the table still prints
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(r.out.substr(at, nl - at));
  }
  ASSERT_EQ(lines.size(), 4u) << r.out;  // searched, header, two backends
  const size_t status = lines[1].find("STATUS");
  const size_t version = lines[1].find("VERSION");
  ASSERT_NE(status, std::string::npos) << r.out;
  for (size_t i = 2; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].find("backend ", status - 1), status) << "STATUS column moved\n" << r.out;
    EXPECT_EQ(lines[i][version], '-') << "VERSION column moved\n" << r.out;
    EXPECT_EQ(lines[i][version - 1], ' ') << r.out;
  }
}

TEST(Backends, JsonListsEveryBackend) {
  ScratchDir dir;
  write_manifest(dir.path(), "first", "[\"onnx\"]");
  write_manifest(dir.path(), "second", "[\"openvino\"]");
  const ChildResult r = wasinn({"backends", "--check", "--json", "--backend-dir", dir.path().string()});
  ASSERT_EQ(r.exit_code, 1) << r.describe();  // the plugins do not exist
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["backends"].size(), 2u) << r.out;
  EXPECT_EQ(j["backends"][0]["name"], "first");
  EXPECT_EQ(j["backends"][0]["encodings"], nlohmann::json::array({"onnx"}));
  EXPECT_EQ(j["backends"][0]["loadable"], false);
  EXPECT_NE(j["backends"][0]["problem"].get<std::string>().find("libfirst.so"), std::string::npos);
  EXPECT_EQ(j["searched"], nlohmann::json::array({dir.path().string()}));
}

TEST(Backends, RealPluginRowKeepsItsShape) {
  if (!ort_plugin_built()) GTEST_SKIP() << "the ONNX Runtime plugin is not built";
  const ChildResult r = wasinn({"backends", "--check"});
  ASSERT_EQ(r.exit_code, r.err.find("backends cannot load") == std::string::npos ? 0 : 1) << r.describe();
  const auto j = nlohmann::json::parse(wasinn({"backends", "--check", "--json"}).out);
  bool found = false;
  for (const auto& b : j["backends"]) {
    if (b["name"] != "onnxruntime") continue;
    found = true;
    EXPECT_TRUE(b["loadable"].get<bool>()) << b.dump();
    const std::regex row("(^|\\n)onnxruntime +onnx +" + b["framework_version"].get<std::string>() + " +ok\\n");
    EXPECT_TRUE(std::regex_search(r.out, row)) << r.out;
  }
  EXPECT_TRUE(found) << j.dump();
}

TEST(Inspect, JsonDescribesInputsAndOutputs) {
  const auto model = fixture("tiny/model.onnx");
  if (!model || !ort_plugin_built()) GTEST_SKIP() << "needs the tiny fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", "--json", model->string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "onnxruntime");
  EXPECT_EQ(j["encoding"], "onnx");
  ASSERT_FALSE(j["inputs"].empty()) << r.out;
  EXPECT_EQ(j["inputs"][0]["index"], 0);
  EXPECT_TRUE(j["inputs"][0]["type"].is_string());
  EXPECT_TRUE(j["inputs"][0]["shape"].is_array() || j["inputs"][0]["shape"].is_null());
  // The properties a guest reads (wasinn:nn-ext): the host's facts first, the ONNX metadata after.
  ASSERT_GE(j["properties"].size(), 4u) << r.out;
  EXPECT_EQ(j["properties"][0], (nlohmann::json{{"name", "backend"}, {"value", "onnxruntime"}, {"settable", false}}));
  EXPECT_EQ(j["properties"][3]["name"], "device");
  const ChildResult table = wasinn({"models", "inspect", model->string()});
  ASSERT_EQ(table.exit_code, 0) << table.describe();
  EXPECT_NE(table.out.find("backend: onnxruntime"), std::string::npos) << table.describe();
  EXPECT_NE(table.out.find("properties (wasinn:nn-ext"), std::string::npos) << table.describe();

  const ChildResult bad = wasinn({"models", "inspect", "--json", "/nonexistent.onnx"});
  EXPECT_EQ(bad.exit_code, 1) << bad.describe();
}

TEST(Completion, ScriptsAreGeneratedFromTheParser) {
  const ChildResult bash = wasinn({"completion", "bash"});
  ASSERT_EQ(bash.exit_code, 0) << bash.describe();
  EXPECT_NE(bash.out.find("complete -F _wasinn wasinn"), std::string::npos);
  for (const char* word : {"--wasi", "--invoke", "--backend-config", "inspect", "--encoding"}) {
    EXPECT_NE(bash.out.find(word), std::string::npos) << word;
  }
  ScratchDir dir;
  write_text(dir / "wasinn.bash", bash.out);
  const ChildResult syntax = wasinn_it::run_child({"/bin/bash", "-n", (dir / "wasinn.bash").string()});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.describe();
  const ChildResult fish = wasinn({"completion", "fish"});
  EXPECT_EQ(fish.exit_code, 0) << fish.describe();
  EXPECT_NE(fish.out.find("complete -c wasinn"), std::string::npos);
  EXPECT_EQ(wasinn({"completion", "tcsh"}).exit_code, 2);
}

// `wasinn ARGS... | reader` where the reader has closed its end before wasinn writes (wasinn's
// start is far slower): the exit code is wasinn's own, SIGPIPE's 141 if a signal ended it. The
// test process ignores SIGPIPE, and an ignored signal stays ignored across exec: env resets it.
ChildResult into_closed_reader(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/env",
                                "--default-signal=PIPE",
                                "/bin/bash",
                                "-c",
                                R"("$0" "$@" | { exec 0<&-; sleep 0.3; }; exit "${PIPESTATUS[0]}")",
                                wasinn_it::wasinn_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return wasinn_it::run_child(argv);
}

// As with Wasmtime's CLI: the guest's write to a reader that has gone fails (EPIPE, the guest's
// to handle), and `wasinn run app.wasm | head` exits with the guest's code.
TEST(ClosedReader, TheGuestsExitCodeIsStillWasinns) {
  ScratchDir dir;
  write_text(dir / "hello.wat", kHelloWat);
  const ChildResult r = into_closed_reader({"run", (dir / "hello.wat").string()});
  EXPECT_EQ(r.exit_code, 7) << r.describe();
}

// wasinn's own output to a reader that has gone: the reader has what it wanted; no error.
TEST(ClosedReader, WasinnsOwnOutputEndsQuietly) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--help-all"}, {"run", "--help"}, {"completion", "bash"}, {"backends", "--json"}}) {
    const ChildResult r = into_closed_reader(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << "\n" << r.describe();
    EXPECT_EQ(r.err, "") << args[0] << "\n" << r.describe();
  }
}

}  // namespace
}  // namespace wasinn_cli_test
