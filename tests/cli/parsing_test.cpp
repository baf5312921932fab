// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Issue 16's second bug and the exit codes: options are parsed as `wasmtime run` parses them
// (attached short forms -Snn, -Wtimeout=..., options only before the module, everything after
// it the guest's), usage errors exit 2 naming the option, never one of CLI11's own numbers.
#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

const std::string kArgsOut = "argc=3\nargv[0]=wasi_probe.wasm\nargv[1]=args\nargv[2]=x\n";

TEST(ShortForms, AttachedAndSeparateWasiOptionsParseTheSame) {
  for (const auto& form : std::vector<std::vector<std::string>>{
           {"-Snn"}, {"-S", "nn"}, {"--wasi", "nn"}, {"--wasi=nn"}, {"-Snn=y"}, {"-S", "nn,cli"}, {"-Snn", "-Scli"}}) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), form.begin(), form.end());
    args.insert(args.end(), {guest("wasi_probe"), "args", "x"});
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 0) << form[0] << "\n" << r.describe();
    EXPECT_EQ(r.out, kArgsOut) << form[0];
  }
}

TEST(ShortForms, AttachedTimeoutStopsTheGuestLikeTheLongForm) {
  // The message names the flag as it was given.
  for (const auto& form : std::vector<std::vector<std::string>>{{"-Wtimeout=300ms"},
                                                                {"-W", "timeout=300ms"},
                                                                {"--wasm", "timeout=300ms"},
                                                                {"--wasm=timeout=300ms"},
                                                                {"--timeout", "300ms"}}) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), form.begin(), form.end());
    args.insert(args.end(), {guest("wasi_probe"), "spin"});
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 134) << form[0] << "\n" << r.describe();
    EXPECT_EQ(r.out, "spinning\n") << form[0];
    const std::string flag = form[0] == "--timeout" ? "--timeout 300ms" : "-W timeout=300ms";
    EXPECT_NE(r.err.find("ran longer than " + flag + " and was stopped"), std::string::npos) << form[0] << "\n"
                                                                                             << r.describe();
  }
}

TEST(ShortForms, WasmtimeTimeoutUnitsAreAccepted) {
  // A number alone is seconds in Wasmtime; the guest exits at once, so only the parse matters.
  for (const std::string t : {"1", "2s", "1500ms", "1m", "250000us"}) {
    const ChildResult r = wasinn({"run", "-Wtimeout=" + t, guest("wasi_probe"), "exit", "5"});
    EXPECT_EQ(r.exit_code, 5) << t << "\n" << r.describe();
  }
  const ChildResult bad = wasinn({"run", "-Wtimeout=soon", guest("wasi_probe"), "exit", "5"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("-W timeout=soon"), std::string::npos) << bad.describe();
  // Both given: Wasmtime's -W timeout wins.
  const ChildResult both = wasinn({"run", "--timeout", "10m", "-Wtimeout=300ms", guest("wasi_probe"), "spin"});
  EXPECT_EQ(both.exit_code, 134) << both.describe();
  EXPECT_NE(both.err.find("-W timeout=300ms"), std::string::npos) << both.describe();
}

TEST(ShortForms, AttachedNnGraphRegistersTheModelLikeTheSeparateForm) {
  const auto tiny = fixture("tiny/model.onnx");
  if (!tiny || !ort_plugin_built()) GTEST_SKIP() << "needs the tiny fixture and the ONNX Runtime plugin";
  const std::string dir = tiny->parent_path().string();
  std::vector<ChildResult> runs;
  for (const auto& form : std::vector<std::vector<std::string>>{{"-Snn-graph=onnx::" + dir},
                                                                {"-S", "nn-graph=onnx::" + dir},
                                                                {"--wasi", "nn,nn-graph=onnx::" + dir},
                                                                {"-Snn", "-Snn-graph=onnx::" + dir}}) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), form.begin(), form.end());
    args.insert(args.end(), {guest("run_model"), "--name", "tiny"});
    runs.push_back(wasinn(args));
    EXPECT_EQ(runs.back().out.find("errno 8 in load_by_name"), std::string::npos) << form[0] << runs.back().describe();
    EXPECT_EQ(runs.back().exit_code, runs.front().exit_code) << form[0] << runs.back().describe();
    EXPECT_EQ(runs.back().out, runs.front().out) << form[0];
  }
  const ChildResult unregistered = wasinn({"run", guest("run_model"), "--name", "tiny"});
  EXPECT_NE(unregistered.out.find("errno 8 in load_by_name"), std::string::npos) << unregistered.describe();
}

TEST(GuestArguments, EverythingAfterTheModuleIsTheGuests) {
  const ChildResult r = wasinn({"run", guest("wasi_probe"), "args", "--dir", "x", "-Snn", "--help", "--", "-V", "run"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out,
            "argc=9\nargv[0]=wasi_probe.wasm\nargv[1]=args\nargv[2]=--dir\nargv[3]=x\nargv[4]=-Snn\n"
            "argv[5]=--help\nargv[6]=--\nargv[7]=-V\nargv[8]=run\n");
}

TEST(GuestArguments, DoubleDashBeforeTheModuleEndsTheOptions) {
  const ChildResult r = wasinn({"run", "--env", "A=1", "--", guest("wasi_probe"), "args", "x"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, kArgsOut);
}

TEST(ImplicitRun, ModuleFirstRunsLikeRun) {
  const ChildResult implicit = wasinn({guest("wasi_probe"), "args", "x"});
  const ChildResult explicit_run = wasinn({"run", guest("wasi_probe"), "args", "x"});
  EXPECT_EQ(implicit.exit_code, 0) << implicit.describe();
  EXPECT_EQ(implicit.out, kArgsOut);
  EXPECT_EQ(implicit.out, explicit_run.out);
  // Options before the module too, as `wasmtime --dir . app.wasm`.
  const ChildResult with_options = wasinn({"--env", "GREETING=hi", "-Snn", guest("wasi_probe"), "env", "GREETING"});
  EXPECT_EQ(with_options.exit_code, 0) << with_options.describe();
  EXPECT_EQ(with_options.out, "GREETING=hi\n");
}

TEST(ExitCodes, UsageErrorsAreTwoAndNameTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string probe = guest("wasi_probe");
  const std::vector<Case> cases = {
      {{"run", "--frobnicate", probe}, "unknown option --frobnicate"},
      {{"--frobnicate", probe}, "unknown option --frobnicate"},
      {{"run", "--frobnicate=3", probe}, "unknown option --frobnicate=3"},
      {{"run", "-X", probe}, "unknown option -X"},
      {{"backends", "--frobnicate"}, "unknown option --frobnicate"},
      {{"backends", "extra"}, "unexpected argument 'extra'"},
      {{"models", "inspect", "--frobnicate", "m.onnx"}, "unknown option --frobnicate"},
      {{"run", "--dir"}, "--dir"},
      {{"run", "--max-graphs", "many", probe}, "--max-graphs"},
      {{"run", "--isolate-loads", "sometimes", probe}, "--isolate-loads"},
      {{"run"}, "missing app.wasm"},
      {{"run", "-q", "-v", probe}, "excludes"},
      {{"models"}, "subcommand"},
      {{"help", "nosuch"}, "no command named 'nosuch'"},
  };
  for (const auto& c : cases) {
    const ChildResult r = wasinn(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << " " << (c.args.size() > 1 ? c.args[1] : "") << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.describe();
    EXPECT_EQ(r.out, "") << r.describe();
  }
  // No arguments: the help, on stderr, as a usage error.
  const ChildResult none = wasinn({});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_NE(none.err.find("Subcommands:"), std::string::npos) << none.describe();
}

TEST(ExitCodes, GuestCodeTrapAndModuleFailureAsWasmtime) {
  EXPECT_EQ(wasinn({"run", guest("wasi_probe"), "exit", "42"}).exit_code, 42);
  EXPECT_EQ(wasinn({"run", guest("wasi_probe"), "exit", "0"}).exit_code, 0);
  EXPECT_EQ(wasinn({"run", guest("trap_guest")}).exit_code, 134);
  ScratchDir dir;
  const ChildResult missing = wasinn({"run", (dir / "nope.wasm").string()});
  EXPECT_EQ(missing.exit_code, 1) << missing.describe();
}

TEST(Help, HelpSubcommandAndFlagsShowTheSameText) {
  const ChildResult top = wasinn({"help"});
  EXPECT_EQ(top.exit_code, 0) << top.describe();
  EXPECT_NE(top.out.find("Subcommands:"), std::string::npos) << top.describe();
  EXPECT_EQ(top.out, wasinn({"--help"}).out);
  EXPECT_EQ(top.out, wasinn({"-h"}).out);

  const ChildResult run = wasinn({"help", "run"});
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.out, wasinn({"run", "--help"}).out);
  for (const char* flag : {"--dir", "--env", "--invoke", "--argv0", "-S,--wasi", "-W,--wasm", "-O,--optimize",
                           "-C,--codegen", "-D,--debug", "--no-cache", "-q,--quiet", "-v,--verbose"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag << "\n" << run.out;
  }
  const ChildResult inspect = wasinn({"help", "models", "inspect"});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.describe();
  EXPECT_NE(inspect.out.find("--encoding"), std::string::npos) << inspect.describe();
  EXPECT_EQ(inspect.out, wasinn({"models", "inspect", "--help"}).out);
}

TEST(Help, VersionShortAndLong) {
  const ChildResult shortv = wasinn({"-V"});
  const ChildResult longv = wasinn({"--version"});
  EXPECT_EQ(shortv.exit_code, 0) << shortv.describe();
  EXPECT_EQ(shortv.out.rfind("wasinn ", 0), 0u) << shortv.describe();
  // The engine built from src/Cargo.toml's workspace.
  EXPECT_NE(shortv.out.find("wasmtime 49.0.5"), std::string::npos) << shortv.describe();
  EXPECT_EQ(shortv.out, longv.out);
  // The commit it was built from and each plugin's framework as built (cmake/BuildInfo.cmake).
  EXPECT_NE(shortv.out.find(", commit "), std::string::npos) << shortv.describe();
  EXPECT_EQ(shortv.out.find(", commit unknown"), std::string::npos) << shortv.describe();
  EXPECT_NE(shortv.out.find("\nbuilt with:\n"), std::string::npos) << shortv.describe();
  EXPECT_NE(shortv.out.find("  onnxruntime: ONNX Runtime 1.29.0"), std::string::npos) << shortv.describe();
  EXPECT_NE(shortv.out.find("  llamacpp: llama.cpp b"), std::string::npos) << shortv.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
