// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `wasinn run`'s flags that Wasmtime (and WasmEdge) users bring: modules from stdin and in
// text form, --invoke, --env NAME, -S inherit-env, --argv0, the -W/-S/-O/-C/-D keys wasinn has
// (and the ones it refuses by name), and --dir's spellings.
#include <cstdlib>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

TEST(ModuleForms, TextModuleRuns) {
  ScratchDir dir;
  write_text(dir / "hello.wat", kHelloWat);
  for (const bool implicit : {false, true}) {
    std::vector<std::string> args{(dir / "hello.wat").string()};
    if (!implicit) args.insert(args.begin(), "run");
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 7) << r.describe();
    EXPECT_EQ(r.out, "hello from wat\n");
  }
}

TEST(ModuleForms, DashReadsTheModuleFromStdin) {
  ChildOptions binary;
  binary.stdin_text = read_text(guest("wasi_probe"));
  const ChildResult r = wasinn({"run", "-", "args", "x"}, binary);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=3\nargv[0]=-\nargv[1]=args\nargv[2]=x\n");

  ChildOptions text;
  text.stdin_text = kHelloWat;
  const ChildResult t = wasinn({"run", "-"}, text);
  EXPECT_EQ(t.exit_code, 7) << t.describe();
  EXPECT_EQ(t.out, "hello from wat\n");

  ChildOptions garbage;
  garbage.stdin_text = "garbage";
  const ChildResult g = wasinn({"run", "-"}, garbage);
  EXPECT_EQ(g.exit_code, 1) << g.describe();
  EXPECT_NE(g.err.find("not a valid WebAssembly module"), std::string::npos) << g.describe();

  const ChildResult empty = wasinn({"run", "-"});  // stdin closed at once
  EXPECT_EQ(empty.exit_code, 1) << empty.describe();
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.describe();
}

TEST(Invoke, CallsAnExportAndPrintsItsResults) {
  ScratchDir dir;
  write_text(dir / "hello.wat", kHelloWat);
  const std::string wat = (dir / "hello.wat").string();
  const ChildResult answer = wasinn({"run", "--invoke", "answer", wat});
  EXPECT_EQ(answer.exit_code, 0) << answer.describe();
  EXPECT_EQ(answer.out, "42\n");  // not "hello from wat": _start does not run
  EXPECT_EQ(wasinn({"--invoke", "answer", wat}).out, "42\n");
  EXPECT_EQ(wasinn({"run", "--invoke=answer", wat}).out, "42\n");

  const ChildResult add = wasinn({"run", "--invoke", "add", wat, "2", "-5"});
  EXPECT_EQ(add.exit_code, 0) << add.describe();
  EXPECT_EQ(add.out, "-3\n");
  EXPECT_EQ(wasinn({"run", "--invoke", "pair", wat}).out, "-5\n1.5\n");
}

TEST(Invoke, ReactorsAreInitialisedFirst) {
  ScratchDir dir;
  write_text(dir / "reactor.wat", kReactorWat);
  const ChildResult r = wasinn({"run", "--invoke", "get", (dir / "reactor.wat").string()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "5\n");
}

TEST(Invoke, ErrorsAndTraps) {
  ScratchDir dir;
  write_text(dir / "hello.wat", kHelloWat);
  const std::string wat = (dir / "hello.wat").string();
  const ChildResult missing = wasinn({"run", "--invoke", "nosuch", wat});
  EXPECT_EQ(missing.exit_code, 1) << missing.describe();
  EXPECT_NE(missing.err.find("exports no function named nosuch"), std::string::npos) << missing.describe();
  const ChildResult count = wasinn({"run", "--invoke", "add", wat, "1"});
  EXPECT_EQ(count.exit_code, 1) << count.describe();
  EXPECT_NE(count.err.find("takes 2 argument(s) and 1 were given"), std::string::npos) << count.describe();
  const ChildResult type = wasinn({"run", "--invoke", "add", wat, "1", "two"});
  EXPECT_EQ(type.exit_code, 1) << type.describe();
  EXPECT_NE(type.err.find("'two' is not an i32"), std::string::npos) << type.describe();
  const ChildResult trap = wasinn({"run", "--invoke", "boom", wat});
  EXPECT_EQ(trap.exit_code, 134) << trap.describe();
  EXPECT_NE(trap.err.find("unreachable"), std::string::npos) << trap.describe();
}

TEST(Environment, EnvNameAloneInheritsTheHostValue) {
  ::setenv("WASINN_CLI_TEST_VAR", "from the host", 1);
  ::unsetenv("WASINN_CLI_TEST_UNSET");
  const ChildResult r = wasinn({"run", "--env", "WASINN_CLI_TEST_VAR", "--env", "WASINN_CLI_TEST_UNSET",
                                guest("wasi_probe"), "env", "WASINN_CLI_TEST_VAR", "WASINN_CLI_TEST_UNSET", "HOME"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "WASINN_CLI_TEST_VAR=from the host\nWASINN_CLI_TEST_UNSET is unset\nHOME is unset\n");
  const ChildResult empty = wasinn({"run", "--env", "=x", guest("wasi_probe"), "env"});
  EXPECT_EQ(empty.exit_code, 2) << empty.describe();
}

TEST(Environment, InheritEnvGivesEverythingAndEnvStillOverrides) {
  ::setenv("WASINN_CLI_TEST_VAR", "from the host", 1);
  for (const auto& form : std::vector<std::vector<std::string>>{
           {"-Sinherit-env"}, {"-S", "inherit-env"}, {"--wasi", "inherit-env=y"}, {"--wasi=inherit-env"}}) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), form.begin(), form.end());
    args.insert(args.end(),
                {"--env", "OVERRIDDEN=mine", guest("wasi_probe"), "env", "WASINN_CLI_TEST_VAR", "OVERRIDDEN"});
    ChildOptions options;
    ::setenv("OVERRIDDEN", "host", 1);
    const ChildResult r = wasinn(args, options);
    EXPECT_EQ(r.exit_code, 0) << form[0] << "\n" << r.describe();
    EXPECT_EQ(r.out, "WASINN_CLI_TEST_VAR=from the host\nOVERRIDDEN=mine\n") << form[0];
  }
  const ChildResult off = wasinn({"run", "-Sinherit-env=n", guest("wasi_probe"), "env", "WASINN_CLI_TEST_VAR"});
  EXPECT_EQ(off.out, "WASINN_CLI_TEST_VAR is unset\n") << off.describe();
}

TEST(Argv0, ReplacesTheModuleName) {
  const ChildResult r = wasinn({"run", "--argv0", "mytool", guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=2\nargv[0]=mytool\nargv[1]=args\n");
}

TEST(WasmtimeKeys, MaxMemorySizeLimitsGrowth) {
  ScratchDir dir;
  write_text(dir / "grow.wat", kGrowWat);
  EXPECT_EQ(wasinn({"run", (dir / "grow.wat").string()}).exit_code, 0);
  // One page (64 KiB) is all the module starts with: growing fails, as memory.grow does in Wasmtime.
  const ChildResult limited = wasinn({"run", "-W", "max-memory-size=65536", (dir / "grow.wat").string()});
  EXPECT_EQ(limited.exit_code, 3) << limited.describe();
  EXPECT_EQ(wasinn({"run", "-Wmax-memory-size=65536", (dir / "grow.wat").string()}).exit_code, 3);
  EXPECT_EQ(wasinn({"run", "--wasm", "max-memory-size=0x20000", (dir / "grow.wat").string()}).exit_code, 0);
}

TEST(WasmtimeKeys, AcceptedWhereWasinnHasTheFeature) {
  for (const auto& form : std::vector<std::vector<std::string>>{{"-S", "inherit-network=n"},
                                                                {"-Sinherit-network=n"},
                                                                {"-S", "tcp=n,udp=n"},
                                                                {"-S", "cli"},
                                                                {"-O", "opt-level=2"},
                                                                {"-Oopt-level=2"},
                                                                {"-C", "cache=n"},
                                                                {"-Ccache=n"},
                                                                {"--codegen", "cache=n"},
                                                                {"-C", "cache=y"},
                                                                {"--no-cache"},
                                                                {"-C", "compiler=cranelift"},
                                                                {"-S", "nn=yes"},
                                                                // WASI 0.3's (a core module needs none of it)
                                                                {"-Sp3", "-Wcomponent-model-async"},
                                                                {"-S", "p3=n"},
                                                                {"-W", "concurrency-support=n"},
                                                                {"-S", "max-resources=100"},
                                                                {"-W", "component-model-error-context=n"}}) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), form.begin(), form.end());
    args.insert(args.end(), {guest("wasi_probe"), "exit", "9"});
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 9) << form[0] << "\n" << r.describe();
  }
}

// Wasmtime 49 reads each group from the environment too, before the flags given (which win):
// WASMTIME_WASI="KEY[=VALUE],..." and one variable a key, WASMTIME_WASI_<KEY>.
TEST(WasmtimeKeys, TakenFromWasmtimesEnvironmentVariables) {
  const auto run = [](std::vector<std::string> set_env, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"run"};
    argv.insert(argv.end(), args.begin(), args.end());
    ChildOptions options;
    options.set_env = std::move(set_env);
    return wasinn(argv, options);
  };
  const std::vector<std::string> probe{guest("wasi_probe"), "exit", "9"};
  EXPECT_EQ(run({"WASMTIME_WASI=cli,tcp=n", "WASMTIME_WASI_INHERIT-NETWORK=n"}, probe).exit_code, 9);
  // Refused as the flag would be, naming the variable.
  for (const auto& [kv, message] : std::vector<std::pair<std::string, std::string>>{
           {"WASMTIME_WASI=tcp", "WASMTIME_WASI (environment): -S tcp: wasinn gives guests no WASI sockets"},
           {"WASMTIME_WASI_MAX-RESOURCES=many", "WASMTIME_WASI_MAX-RESOURCES (environment): -S max-resources=many"},
           {"WASMTIME_WASI_HTTP=y", "WASMTIME_WASI_HTTP (environment): -S http: wasinn does not support"},
           {"WASMTIME_WASM=frobnicate", "WASMTIME_WASM (environment): unknown -W / --wasm option: frobnicate"},
           {"WASMTIME_RECORD_PATH=trace", "WASMTIME_RECORD_PATH (environment): wasinn does not record executions"}}) {
    const ChildResult r = run({kv}, probe);
    EXPECT_EQ(r.exit_code, 2) << kv << "\n" << r.describe();
    EXPECT_NE(r.err.find(message), std::string::npos) << kv << "\n" << r.describe();
  }
  // 0.3 turned off there refuses a 0.3 component, naming the variable.
  const ChildResult off = run({"WASMTIME_WASI_P3=n"}, {guest("p3_classify")});
  EXPECT_EQ(off.exit_code, 2) << off.describe();
  EXPECT_NE(off.err.find("WASMTIME_WASI_P3 (environment: p3=n) turned WASI 0.3 off"), std::string::npos)
      << off.describe();
  // A flag that turned it off is named as the flag, whatever other keys the environment gave.
  const ChildResult flag_off = run({"WASMTIME_WASI=cli"}, {"-W", "component-model-async=n", guest("p3_classify")});
  EXPECT_EQ(flag_off.exit_code, 2) << flag_off.describe();
  EXPECT_NE(flag_off.err.find("-W component-model-async=n turned"), std::string::npos) << flag_off.describe();
  // One page is all grow.wat starts with: the variable's limit holds unless a flag lifts it.
  ScratchDir dir;
  write_text(dir / "grow.wat", kGrowWat);
  const std::string grow = (dir / "grow.wat").string();
  EXPECT_EQ(run({"WASMTIME_WASM=max-memory-size=65536"}, {grow}).exit_code, 3);
  EXPECT_EQ(run({"WASMTIME_WASM=max-memory-size=65536"}, {"-W", "max-memory-size=0x20000", grow}).exit_code, 0);
}

TEST(WasmtimeKeys, RefusedByNameWhereItHasNot) {
  struct Case {
    std::vector<std::string> flag;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"-S", "inherit-network"}, "-S inherit-network: wasinn gives guests no network access"},
      {{"-Sinherit-network=y"}, "-S inherit-network=y: wasinn gives guests no network access"},
      {{"-S", "threads=n"}, "-S threads=n: wasinn always serves wasi-threads"},
      {{"-S", "http"}, "-S http: wasinn does not support this Wasmtime option"},
      {{"-S", "nn=n"}, "-S nn=n: wasi-nn is always on"},
      {{"-W", "fuel=1000"}, "-W fuel: wasinn does not support this Wasmtime option"},
      {{"-Wsimd=n"}, "-W simd: wasinn does not support"},
      {{"-W", "frobnicate"}, "unknown -W / --wasm option: frobnicate"},
      {{"-W", "max-memory-size=lots"}, "-W max-memory-size=lots"},
      {{"-O", "opt-level=0"}, "-O opt-level=0"},
      {{"-C", "cache-config=/etc/wasmtime.toml"}, "-C cache-config: wasinn does not support"},
      {{"-C", "cranelift-has-avx=true"}, "-C cranelift-has-avx"},
      {{"-D", "debug-info"}, "-D debug-info: wasinn does not support"},
      {{"-S", "inherit-env=maybe"}, "unknown boolean 'maybe'"},
      {{"-S", "max-resources=0"}, "-S max-resources=0: 0 entries would fail"},
      {{"-S", "max-resources=many"}, "-S max-resources=many: 'many' is not a whole number"},
      {{"-W", "component-model-threading=y"}, "-W component-model-threading=y: wasinn validates components"},
      {{"-S", "hostcall-fuel=1"}, "-S hostcall-fuel: wasinn does not support this Wasmtime option"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), c.flag.begin(), c.flag.end());
    args.insert(args.end(), {guest("wasi_probe"), "exit", "9"});
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.describe();
  }
}

TEST(WasmtimeKeys, HelpListsTheKeysWasinnTakes) {
  const ChildResult w = wasinn({"run", "-W", "help"});
  EXPECT_EQ(w.exit_code, 0) << w.describe();
  EXPECT_NE(w.out.find("-W timeout="), std::string::npos) << w.describe();
  EXPECT_NE(w.out.find("-W max-memory-size="), std::string::npos) << w.describe();
  const ChildResult s = wasinn({"run", "-Shelp"});
  EXPECT_EQ(s.exit_code, 0) << s.describe();
  EXPECT_NE(s.out.find("-S nn-graph="), std::string::npos) << s.describe();
  EXPECT_NE(s.out.find("-S inherit-env"), std::string::npos) << s.describe();
}

// Every value a group's help offers as a choice (-O opt-level=1|2, -C compiler=cranelift) is
// taken: the help once offered opt-level=0|1|2|s, of which 0 and s were refused.
TEST(WasmtimeKeys, EveryValueTheHelpOffersIsTaken) {
  const std::regex choice(R"((-[OCWSD]) ([a-z-]+)=([a-z0-9]+(?:\|[a-z0-9]+)*)\s)");
  int offered = 0;
  for (const char* group : {"-O", "-C", "-W", "-S", "-D"}) {
    const ChildResult help = wasinn({"run", group, "help"});
    ASSERT_EQ(help.exit_code, 0) << help.describe();
    for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), choice); it != std::sregex_iterator(); ++it) {
      const std::string flag = (*it)[1], key = (*it)[2], values = (*it)[3];
      for (size_t start = 0; start <= values.size();) {
        const size_t bar = values.find('|', start);
        const std::string value = values.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        const ChildResult r = wasinn({"run", flag, key + "=" + value, guest("wasi_probe"), "args"});
        EXPECT_EQ(r.exit_code, 0) << flag << " " << key << "=" << value << " is offered by the help\n" << r.describe();
        ++offered;
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    }
  }
  EXPECT_GE(offered, 3);  // opt-level's two and compiler's one at least
}

// A guest whose file does not open because --dir was forgotten says so, with the flag to give.
TEST(Dirs, AForgottenDirIsHintedByTheExampleGuests) {
  const std::string digits = "/d/test_x.f32";
  const ChildResult c = wasinn({"run", guest("classify_digits"), "/d/model.onnx", digits, "/d/test_y.u8"});
  EXPECT_EQ(c.exit_code, 2) << c.describe();
  EXPECT_NE(c.err.find("cannot open " + digits + " (missing, or its directory not preopened"), std::string::npos)
      << c.describe();
  EXPECT_NE(c.err.find("wasinn run --dir HOST_DIR::GUEST_DIR"), std::string::npos) << c.describe();
  const ChildResult r = wasinn({"run", guest("run_model"), "--model", "/d/model.onnx"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("wasinn run --dir HOST_DIR::GUEST_DIR"), std::string::npos) << r.describe();
}

TEST(Dirs, WasmEdgeSpellingGetsAHint) {
  ScratchDir dir;
  const ChildResult r = wasinn({"run", "--dir", "/data:" + dir.path().string(), guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("--dir " + dir.path().string() + "::/data"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out, "");
}

// WasmEdge's examples write --dir .:. (GUEST:HOST, both the same): that is --dir . and runs.
TEST(Dirs, WasmEdgeSpellingWithBothSidesAlikeIsTheDirItself) {
  ScratchDir dir;
  write_text(dir / "f.txt", "same");
  ChildOptions in_dir;
  in_dir.cwd = dir.path().string();
  const ChildResult dot = wasinn({"run", "--dir", ".:.", guest("wasi_probe"), "cat", "f.txt"}, in_dir);
  EXPECT_EQ(dot.exit_code, 0) << dot.describe();
  EXPECT_EQ(dot.out, "same");
  const std::string d = dir.path().string();
  const ChildResult abs = wasinn({"run", "--dir", d + ":" + d, guest("wasi_probe"), "cat", d + "/f.txt"});
  EXPECT_EQ(abs.exit_code, 0) << abs.describe();
  EXPECT_EQ(abs.out, "same");
  // Different sides are still WasmEdge's GUEST:HOST, refused with the Wasmtime spelling to use.
  const ChildResult other = wasinn({"run", "--dir", ".:" + d, guest("wasi_probe"), "cat", "./f.txt"}, in_dir);
  EXPECT_EQ(other.exit_code, 2) << other.describe();
  EXPECT_NE(other.err.find("for WasmEdge's GUEST:HOST spelling write --dir " + d + "::."), std::string::npos)
      << other.describe();
}

TEST(Dirs, EmptyGuestPathIsAnError) {
  ScratchDir dir;
  const ChildResult r = wasinn({"run", "--dir", dir.path().string() + "::", guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("guest path after '::' is empty"), std::string::npos) << r.describe();
}

TEST(Dirs, AHostDirectoryWithAColonInItsNameStillWorks) {
  ScratchDir dir;
  fs::create_directory(dir / "a:b");
  write_text(dir / "a:b" / "f.txt", "colon");
  const std::string host = (dir / "a:b").string();
  const ChildResult r = wasinn({"run", "--dir", host, guest("wasi_probe"), "cat", host + "/f.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "colon");
}

TEST(Dirs, MissingHostDirectoryIsAnErrorBeforeTheGuestRuns) {
  ScratchDir dir;
  const ChildResult r = wasinn({"run", "--dir", (dir / "absent").string() + "::/x", guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("cannot open directory"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace wasinn_cli_test
