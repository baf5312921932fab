// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a new user trips on (issue 26), one test per item: mistakes in preloads, durations,
// remote URLs and backend configs are errors at start, before any guest runs, each with the
// exact exit code and first line; typos get the near name; `backends --check` is a health
// check; and the completion scripts complete, tried through bash itself (and zsh when installed).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

ChildResult run_probe(std::vector<std::string> options) {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {guest("wasi_probe"), "exit", "0"});
  return wasinn(args);
}

TEST(StartChecks, BadPreloadPathsAreErrorsNamingTheFlagGiven) {
  const ChildResult missing = run_probe({"--nn-preload", "digits:onnx:cpu:/x/nope.onnx"});
  EXPECT_EQ(missing.exit_code, 2) << missing.describe();
  EXPECT_EQ(first_line(missing.err),
            "wasinn: error: --nn-preload 'digits:onnx:cpu:/x/nope.onnx': /x/nope.onnx does not exist");

  ScratchDir dir;
  write_text(dir / "model.onnx", "not read: the path is refused first");
  const std::string spec = "digits:onnx:cpu:" + dir.path().string();
  const ChildResult directory = run_probe({"--nn-preload", spec});
  EXPECT_EQ(directory.exit_code, 2) << directory.describe();
  EXPECT_EQ(first_line(directory.err),
            "wasinn: error: --nn-preload '" + spec + "': " + dir.path().string() +
                " is a directory; give the model file in it: " + (dir / "model.onnx").string());

  const ChildResult graph = run_probe({"-S", "nn-graph=onnx::/nonexistent"});
  EXPECT_EQ(graph.exit_code, 2) << graph.describe();
  EXPECT_EQ(first_line(graph.err),
            "wasinn: error: -S nn-graph 'onnx::/nonexistent': /nonexistent/model.onnx does not "
            "exist (nn-graph=ENCODING::DIR reads Wasmtime's file name for ENCODING in DIR)");
}

// One duration rule for every flag (issue 41), Wasmtime's: a number alone is seconds, units as
// in 200ms or 2s; --*-ms flags keep milliseconds for a number alone. A bad value says the forms.
TEST(StartChecks, DurationsAreReadOneWayAndABadOneSaysTheForms) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--timeout", "soon"}, {"--max-compute-ms", "2 parsecs"}, {"--nn-remote-timeout-ms", "-1"}}) {
    const ChildResult r = run_probe({flag, value});
    EXPECT_EQ(r.exit_code, 2) << flag << r.describe();
    EXPECT_EQ(first_line(r.err),
              "wasinn: error: " + flag + ": '" + value +
                  "' is not a duration: write a number and a "
                  "unit, e.g. 200ms, 2s, 1.5m or 1h (units ns, us, ms, s, m, h, d; a number alone is " +
                  (flag == "--timeout" ? "seconds" : "milliseconds") + ")")
        << r.describe();
  }
  for (const std::string flag : {"--request-timeout", "--shutdown-timeout"}) {
    const ChildResult r = wasinn({"serve", flag, "5x", "--addr", "127.0.0.1:0", guest("wasi_probe")});
    EXPECT_EQ(r.exit_code, 2) << flag << r.describe();
    EXPECT_NE(first_line(r.err).find(flag + ": '5x' is not a duration: write a number and a unit, e.g. 200ms, 2s"),
              std::string::npos)
        << r.describe();
  }
  const ChildResult w = run_probe({"-W", "timeout=soon"});
  EXPECT_EQ(w.exit_code, 2) << w.describe();
  EXPECT_NE(first_line(w.err).find("-W timeout=soon: 'soon' is not a duration"), std::string::npos) << w.describe();
  for (const std::string ok : {"1s", "1500ms", "2m", "0", "10", "0.5"}) {
    const ChildResult r = run_probe({"--timeout", ok});
    EXPECT_EQ(r.exit_code, 0) << ok << "\n" << r.describe();
  }
  const ChildResult stopped = wasinn({"run", "-W", "timeout=1s", guest("wasi_probe"), "spin"});
  EXPECT_EQ(stopped.exit_code, 134) << stopped.describe();
  EXPECT_EQ(first_line(stopped.err), "wasinn: error: the guest ran longer than -W timeout=1s and was stopped");
}

// --timeout 1 is one second, as -W timeout=1 (it was refused as unit-less); 200ms is 200 ms.
TEST(StartChecks, ABareNumberIsSecondsAndAUnitSaysOtherwise) {
  auto spin_for = [](const std::string& value) {
    const auto start = std::chrono::steady_clock::now();
    const ChildResult r = wasinn({"run", "--timeout", value, guest("wasi_probe"), "spin"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 134) << value << r.describe();
    EXPECT_EQ(first_line(r.err), "wasinn: error: the guest ran longer than --timeout " + value + " and was stopped");
    return seconds;
  };
  EXPECT_GE(spin_for("1"), 0.95);
  EXPECT_GE(spin_for("1s"), 0.95);
  EXPECT_LT(spin_for("200ms"), 0.9);
}

TEST(StartChecks, RemoteUrlsAreCheckedAtStartAndCredentialsNeverShown) {
  const ChildResult path = run_probe({"--nn-remote", "m=http://127.0.0.1:8000/digits"});
  EXPECT_EQ(path.exit_code, 2) << path.describe();
  EXPECT_EQ(first_line(path.err),
            "wasinn: error: remote model 'm': remote model URL 'http://127.0.0.1:8000/digits': the path does not "
            "start with /models/ (expected SCHEME://HOST:PORT/models/NAME[/versions/VERSION], SCHEME http, https, "
            "grpc or grpcs)");
  const ChildResult secret = run_probe({"--nn-remote", "m=http://user:hunter2@127.0.0.1:8000/models/digits"});
  EXPECT_EQ(secret.exit_code, 2) << secret.describe();
  EXPECT_EQ(first_line(secret.err)
                .rfind("wasinn: error: remote model 'm': remote model URL "
                       "'http://***@127.0.0.1:8000/models/digits': credentials in the URL are not "
                       "accepted",
                       0),
            0u)
      << secret.describe();
  EXPECT_EQ(secret.err.find("hunter2"), std::string::npos) << secret.describe();
}

TEST(StartChecks, BackendConfigValuesAreCheckedAtStartAndCheckIsAHealthCheck) {
  if (ort_plugin_built()) {
    const ChildResult threads = run_probe({"--backend-config", R"(onnxruntime={"intra_op_threads":-1})"});
    EXPECT_EQ(threads.exit_code, 2) << threads.describe();
    EXPECT_EQ(first_line(threads.err)
                  .rfind("wasinn: error: --backend-config onnxruntime: backend config: "
                         "\"intra_op_threads\" must be between 0 and ",
                         0),
              0u)
        << threads.describe();
  }
  if (fs::exists(backend_dir() / "libwasinn_backend_remote.so")) {
    const ChildResult remote = run_probe({"--backend-config", R"(remote={"timeout_ms":"fast"})"});
    EXPECT_EQ(remote.exit_code, 2) << remote.describe();
    EXPECT_EQ(first_line(remote.err),
              "wasinn: error: --backend-config remote: remote backend config: "
              "\"timeout_ms\" must be an integer from 0 to 604800000, got \"fast\"");
  }
  ScratchDir dir;
  write_text(dir / "gone.json",
             R"({"name": "gone", "abi_version": 1, "library": "libgone.so", "encodings": ["onnx"]})");
  const ChildResult check = wasinn({"backends", "--check", "--backend-dir", dir.path().string()});
  EXPECT_EQ(check.exit_code, 1) << check.describe();
  EXPECT_EQ(first_line(check.err), "wasinn: error: 1 of 1 backends cannot load: gone");
}

// A command component (wasi:cli/run) handed to serve is refused with the command that runs it.
TEST(StartChecks, ServingACommandComponentSaysToRunIt) {
  std::string command = guest("wit_classify_digits");
  command.replace(command.size() - 5, 5, ".component.wasm");
  if (!std::filesystem::exists(command)) GTEST_SKIP() << command << " was not built";
  const ChildResult r = wasinn({"serve", "--addr", "127.0.0.1:0", command});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("no exported instance named `wasi:http/incoming-handler"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("a command component (one exporting wasi:cli/run) runs with `wasinn run`"), std::string::npos)
      << r.describe();
}

// serve's mistakes, before anything is loaded or bound: the address, a core module, the
// component's arguments; an address that cannot be bound after the component compiled.
TEST(StartChecks, ServeChecksItsAddressAndProgramAtStart) {
  std::string faults = guest("http_faults");
  faults.replace(faults.size() - 5, 5, ".component.wasm");
  const ChildResult addr = wasinn({"serve", "--addr", "localhost", guest("wasi_probe")});
  EXPECT_EQ(addr.exit_code, 2) << addr.describe();
  EXPECT_EQ(first_line(addr.err),
            "wasinn: error: --addr 'localhost': expected HOST:PORT with a port from 0 to 65535, "
            "e.g. 0.0.0.0:8080, 127.0.0.1:0 (any free port) or [::1]:8080");
  const ChildResult core = wasinn({"serve", "--addr", "127.0.0.1:0", guest("wasi_probe")});
  EXPECT_EQ(core.exit_code, 1) << core.describe();
  EXPECT_NE(core.err.find("is a core module; wasinn serve runs a component that exports wasi:http/incoming-handler"),
            std::string::npos)
      << core.describe();
  const ChildResult args = wasinn({"serve", guest("wasi_probe"), "extra"});
  EXPECT_EQ(args.exit_code, 2) << args.describe();
  EXPECT_EQ(first_line(args.err),
            "wasinn: error: serve takes one component, not 'extra' after it: a served guest has "
            "no arguments");
  if (!std::filesystem::exists(faults)) GTEST_SKIP() << faults << " was not built";
  const ChildResult away = wasinn({"serve", "--addr", "192.0.2.1:8080", faults});
  EXPECT_EQ(away.exit_code, 1) << away.describe();
  EXPECT_NE(away.err.find("--addr 192.0.2.1:8080: cannot listen there"), std::string::npos) << away.describe();
  // A registered model is loaded before the server listens: one that does not load stops it.
  ScratchDir dir;
  write_text(dir / "bad.onnx", "not an ONNX model");
  const ChildResult bad = wasinn({"serve", "--addr", "127.0.0.1:0", "--isolate-loads", "never", "--nn-preload",
                                  "bad:onnx:cpu:" + (dir / "bad.onnx").string(), faults});
  EXPECT_EQ(bad.exit_code, 1) << bad.describe();
  EXPECT_NE(bad.err.find("the model 'bad' does not load: loading the ONNX model"), std::string::npos) << bad.describe();
  EXPECT_EQ(bad.err.find("Serving HTTP"), std::string::npos) << bad.describe();
}

// Every listening flag reads HOST:PORT one way (cli/host_port): --oip-* may leave the port out.
TEST(StartChecks, ListeningAddressesAreCheckedAlike) {
  const ChildResult oip = wasinn({"serve", "--oip-http", "127.0.0.1:99999"});
  EXPECT_EQ(oip.exit_code, 2) << oip.describe();
  EXPECT_EQ(first_line(oip.err),
            "wasinn: error: --oip-http '127.0.0.1:99999': expected HOST[:PORT] with a port from 0 "
            "to 65535, e.g. 0.0.0.0:8000 or 127.0.0.1:0 (any free port)");
  const ChildResult grpc = wasinn({"serve", "--oip-grpc", ":8001"});
  EXPECT_EQ(grpc.exit_code, 2) << grpc.describe();
  EXPECT_NE(first_line(grpc.err).find("--oip-grpc ':8001': expected HOST[:PORT]"), std::string::npos)
      << grpc.describe();
  const ChildResult metrics = run_probe({"--metrics-addr", "127.0.0.1:port"});
  EXPECT_EQ(metrics.exit_code, 2) << metrics.describe();
  EXPECT_EQ(first_line(metrics.err),
            "wasinn: error: --metrics-addr '127.0.0.1:port': expected HOST:PORT with a port "
            "from 0 to 65535, e.g. 127.0.0.1:9464 or 127.0.0.1:0 (any free port)");
  const ChildResult v6 = run_probe({"--metrics-addr", "[::1]:9464"});
  EXPECT_EQ(v6.exit_code, 2) << v6.describe();
  EXPECT_NE(first_line(v6.err).find("the host must be an IPv4 address"), std::string::npos) << v6.describe();
}

TEST(StartChecks, TyposGetTheNearName) {
  const ChildResult option = run_probe({"--nn-prelaod", "digits:onnx:cpu:/m.onnx"});
  EXPECT_EQ(option.exit_code, 2) << option.describe();
  EXPECT_EQ(first_line(option.err),
            "wasinn: error: unknown option --nn-prelaod; did you mean '--nn-preload'? (see 'wasinn run --help')");

  const ChildResult command = wasinn({"backend"});
  EXPECT_EQ(command.exit_code, 2) << command.describe();
  EXPECT_EQ(first_line(command.err),
            "wasinn: error: no command or module named 'backend'; did you mean 'backends'? (see 'wasinn --help')");

  const ChildResult sub = wasinn({"models", "inpsect", "m.onnx"});
  EXPECT_EQ(sub.exit_code, 2) << sub.describe();
  EXPECT_EQ(
      first_line(sub.err),
      "wasinn: error: 'wasinn models' has no command 'inpsect'; did you mean 'inspect'? (see 'wasinn models --help')");

  ScratchDir dir;
  write_text(dir / "wasinn.toml", "max_graphs = 4\n");
  const ChildResult key = run_probe({"--config", (dir / "wasinn.toml").string()});
  EXPECT_EQ(key.exit_code, 2) << key.describe();
  EXPECT_EQ(first_line(key.err).rfind("wasinn: error: " + (dir / "wasinn.toml").string() +
                                          ":1: unknown key \"max_graphs\"; did you mean 'max-graphs'? (",
                                      0),
            0u)
      << key.describe();

  if (const auto model = fixture("digits/model.onnx")) {
    const ChildResult name =
        wasinn({"run", "--nn-preload", "digits:onnx:cpu:" + model->string(), guest("run_model"), "--name", "digitz"});
    EXPECT_EQ(name.exit_code, 8) << name.describe();
    EXPECT_NE(name.err.find("no model named 'digitz' is registered; did you mean 'digits'?"), std::string::npos)
        << name.describe();
  }
}

TEST(SmallFixes, WitRunModelTakesTheTypeNamesModelsInspectPrints) {
  const auto digits = fixture("digits");
  if (!digits || !ort_plugin_built()) GTEST_SKIP() << "needs the digits fixture and the ONNX Runtime plugin";
  for (const std::string type : {"f32", "fp32"}) {
    const ChildResult r =
        wasinn({"run", "--dir", digits->string() + "::/d", "--nn-preload",
                "digits:onnx:cpu:" + (*digits / "model.onnx").string(), guest("wit_run_model.component"), "--name",
                "digits", "--input", "input:" + type + ":450x64:/d/test_x.f32"});
    EXPECT_EQ(r.exit_code, 0) << type << "\n" << r.describe();
  }
}

// Completes `words` (the last one under the cursor) with the bash script, through bash itself.
std::string bash_complete(const fs::path& script, const std::string& words) {
  const std::string program = "source '" + script.string() + "'; COMP_WORDS=(" + words +
                              "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _wasinn; echo \"${COMPREPLY[*]}\"";
  const ChildResult r = wasinn_it::run_child({"/bin/bash", "-c", program});
  EXPECT_EQ(r.exit_code, 0) << words << "\n" << r.describe();
  return r.out.substr(0, r.out.find('\n'));
}

TEST(Completion, BashCompletesValuesCommandsAndOptionsAfterValues) {
  ScratchDir dir;
  const ChildResult script = wasinn({"completion", "bash"});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  write_text(dir / "wasinn.bash", script.out);
  const ChildResult registered =
      wasinn_it::run_child({"/bin/bash", "-c", "source '" + (dir / "wasinn.bash").string() + "'; complete -p wasinn"});
  EXPECT_EQ(registered.out, "complete -F _wasinn wasinn\n") << registered.describe();
  const fs::path bash = dir / "wasinn.bash";
  EXPECT_EQ(bash_complete(bash, "wasinn run --dir /tmp --nn-p"), "--nn-preload");
  EXPECT_EQ(bash_complete(bash, "wasinn --dir /tmp --nn-p"), "--nn-preload");  // Wasmtime's implicit run
  EXPECT_EQ(bash_complete(bash, "wasinn models in"), "inspect");
  EXPECT_EQ(bash_complete(bash, "wasinn run --log-level d"), "debug");
  EXPECT_EQ(bash_complete(bash, "wasinn run --log-level = w"), "warn");  // bash splits --log-level=w
  EXPECT_EQ(bash_complete(bash, "wasinn run --isolate-loads a"), "auto always");
  EXPECT_EQ(bash_complete(bash, "wasinn completion z"), "zsh");
  EXPECT_EQ(bash_complete(bash, "wasinn b"), "backends");
  EXPECT_EQ(bash_complete(bash, "wasinn run app.wasm --nn-p"), "") << "the guest's arguments are its own";
}

// zsh's completion system (compadd, _files, compdef) replaced by functions that print what they
// are given: the real script runs in the real shell.
TEST(Completion, ZshScriptIsZshsOwn) {
  const std::string zsh = fs::exists("/usr/bin/zsh") ? "/usr/bin/zsh" : "/bin/zsh";
  if (!fs::exists(zsh)) GTEST_SKIP() << "zsh is not installed";
  ScratchDir dir;
  const ChildResult script = wasinn({"completion", "zsh"});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  EXPECT_EQ(script.out.rfind("#compdef wasinn\n", 0), 0u);
  write_text(dir / "_wasinn", script.out);
  auto complete = [&](const std::string& words) {
    const std::string program =
        "compdef() { :; }; compadd() { [[ $1 == -a ]] && print -r -- ${(P)2}; }; "
        "_files() { print FILES; }; compset() { :; }; source '" +
        (dir / "_wasinn").string() + "'; words=(" + words + "); CURRENT=${#words}; _wasinn";
    const ChildResult r = wasinn_it::run_child({zsh, "-f", "-c", program});
    EXPECT_EQ(r.exit_code, 0) << words << "\n" << r.describe();
    return r.out.substr(0, r.out.find('\n'));
  };
  EXPECT_NE(complete("wasinn run --dir /tmp --nn-p").find("--nn-preload"), std::string::npos);
  EXPECT_EQ(complete("wasinn models ''"), "inspect");
  EXPECT_EQ(complete("wasinn run --log-level ''"), "off error warn info debug trace");
  EXPECT_EQ(complete("wasinn completion ''"), "bash zsh fish");
  EXPECT_EQ(complete("wasinn run app.wasm ''"), "FILES");
}

// `run` loads no serving stack: the OIP server's libraries are wasinn-oip's alone (issue 42).
TEST(StartChecks, TheCommandLinksNoServingStack) {
  const ChildResult needed = wasinn_it::run_child({"/usr/bin/readelf", "-d", WASINN_CLI_PATH});
  ASSERT_EQ(needed.exit_code, 0) << needed.describe();
  for (const char* heavy : {"grpc", "protobuf", "absl", "oip_proto"})
    EXPECT_EQ(needed.out.find(heavy), std::string::npos) << heavy << " is a NEEDED library of wasinn\n" << needed.out;
}

// A wasinn without wasinn-oip beside it says what is missing for serve --oip-*.
TEST(StartChecks, OipServeWithoutItsProgramSaysWhatIsMissing) {
  ScratchDir dir;
  std::filesystem::copy_file(WASINN_CLI_PATH, dir / "wasinn");
  std::filesystem::permissions(dir / "wasinn", std::filesystem::perms::owner_all);
  const ChildResult r = wasinn_it::run_child({(dir / "wasinn").string(), "serve", "--oip-http", "127.0.0.1:0"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("serve --oip-http/--oip-grpc needs wasinn-oip beside wasinn"), std::string::npos)
      << r.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
