// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Configuration checked at start: --backend-config (malformed JSON, a non-object, a backend
// no manifest declares, a key its manifest does not list) and numeric limits (negative, not a
// number, absurd) are usage errors naming the backend or flag, before any guest runs; and the
// config file, TOML or JSON, whose errors name the file and line.
#include <cstdlib>

#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

ChildResult run_probe_with(const std::vector<std::string>& options) {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {guest("wasi_probe"), "args"});
  return wasinn(args);
}

TEST(BackendConfig, ErrorsNameTheBackendAtStart) {
  struct Case {
    std::string config;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"onnxruntime={\"intra_op_threads\": 1", "--backend-config onnxruntime: malformed JSON"},
      {"onnxruntime=intra_op_threads=1", "--backend-config onnxruntime: malformed JSON"},
      {"onnxruntime=[1, 2]", "--backend-config onnxruntime: expected a JSON object"},
      {"onnxruntime=", "--backend-config onnxruntime: malformed JSON"},
      {"nosuchbackend={}", "--backend-config nosuchbackend: no backend named nosuchbackend"},
      {"noequals", "--backend-config 'noequals': expected NAME=JSON"},
      {"={}", "expected NAME=JSON"},
  };
  for (const auto& c : cases) {
    for (const std::string command : {"run", "backends"}) {
      std::vector<std::string> args{command, "--backend-config", c.config};
      if (command == "run") args.insert(args.end(), {guest("wasi_probe"), "args"});
      const ChildResult r = wasinn(args);
      EXPECT_EQ(r.exit_code, 2) << command << " " << c.config << "\n" << r.describe();
      EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.describe();
      EXPECT_EQ(r.out, "") << r.describe();
    }
  }
}

TEST(BackendConfig, UnknownNameListsTheInstalledBackends) {
  const ChildResult r = run_probe_with({"--backend-config", "onnx={}"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("the installed ones are"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("onnxruntime"), std::string::npos) << r.describe();

  ScratchDir empty;
  const ChildResult none =
      run_probe_with({"--backend-dir", empty.path().string(), "--backend-config", "onnxruntime={}"});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_NE(none.err.find("no backend is installed"), std::string::npos) << none.describe();
}

TEST(BackendConfig, AValidConfigForAnInstalledBackendRuns) {
  const ChildResult r = run_probe_with({"--backend-config", "onnxruntime={\"intra_op_threads\":1}", "--backend-config",
                                        "onnxruntime={\"inter_op_threads\":1}"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=2\nargv[0]=wasi_probe.wasm\nargv[1]=args\n");
}

TEST(BackendConfig, AnUnknownKeyIsRefusedNamingTheKnownOnes) {
  if (!ort_plugin_built()) GTEST_SKIP() << "the ONNX Runtime plugin is not built";
  const std::string message =
      "--backend-config onnxruntime: unknown key \"intra_op_thread\"; the onnxruntime "
      "backend's keys are intra_op_threads, inter_op_threads, graph_optimization_level";
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"run"}, {"backends"}, {"backends", "--check"}, {"models", "inspect"}}) {
    std::vector<std::string> args = command;
    args.insert(args.end(), {"--backend-config", R"(onnxruntime={"intra_op_threads":1,"intra_op_thread":1})"});
    if (command[0] == "run") args.insert(args.end(), {guest("wasi_probe"), "args"});
    if (command[0] == "models") args.push_back("/nonexistent.onnx");
    const ChildResult r = wasinn(args);
    EXPECT_EQ(r.exit_code, 2) << command[0] << "\n" << r.describe();
    EXPECT_NE(r.err.find(message), std::string::npos) << r.describe();
    EXPECT_EQ(r.out, "") << r.describe();
  }
}

TEST(BackendConfig, KeysAreCheckedOnlyWhereTheManifestListsThem) {
  ScratchDir dir;
  const auto manifest = [&](const std::string& name, const std::string& keys) {
    write_text(dir / (name + ".json"), "{\"name\": \"" + name + "\", \"abi_version\": 1, \"library\": \"lib" + name +
                                           ".so\", \"encodings\": [\"onnx\"]" + keys + "}");
  };
  manifest("keyless", R"(, "config_keys": [])");
  manifest("listed", R"(, "config_keys": ["threads"])");
  manifest("silent", "");
  const std::string backend_dir = dir.path().string();
  const ChildResult none = run_probe_with({"--backend-dir", backend_dir, "--backend-config", R"(keyless={"x":1})"});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_NE(none.err.find("--backend-config keyless: unknown key \"x\": the keyless backend takes no keys"),
            std::string::npos)
      << none.describe();
  EXPECT_EQ(run_probe_with({"--backend-dir", backend_dir, "--backend-config", "keyless={}"}).exit_code, 0);
  EXPECT_EQ(run_probe_with({"--backend-dir", backend_dir, "--backend-config", R"(listed={"threads":2})"}).exit_code, 0);
  // A manifest that does not list its keys leaves them to the backend.
  const ChildResult silent = run_probe_with({"--backend-dir", backend_dir, "--backend-config", R"(silent={"any":1})"});
  EXPECT_EQ(silent.exit_code, 0) << silent.describe();
  // Keys given twice are merged before the check, and the file's are checked the same way.
  const ChildResult merged = run_probe_with({"--backend-dir", backend_dir, "--backend-config",
                                             R"(listed={"threads":2})", "--backend-config", R"(listed={"thread":2})"});
  EXPECT_EQ(merged.exit_code, 2) << merged.describe();
  EXPECT_NE(merged.err.find("unknown key \"thread\"; the listed backend's keys are threads"), std::string::npos)
      << merged.describe();
  write_text(dir / "wasinn.toml", "[backend-config.listed]\nthreds = 1\n");
  const ChildResult file = run_probe_with({"--backend-dir", backend_dir, "--config", (dir / "wasinn.toml").string()});
  EXPECT_EQ(file.exit_code, 2) << file.describe();
  EXPECT_NE(file.err.find("--backend-config listed: unknown key \"threds\""), std::string::npos) << file.describe();
}

TEST(Limits, NegativeNonNumericAndAbsurdValuesAreRefusedByName) {
  struct Case {
    std::string flag;
    std::string value;
  };
  const std::vector<Case> cases = {
      {"--max-graphs", "-1"},
      {"--max-graphs", "0"},
      {"--max-graphs", "1.5"},
      {"--max-graphs", "99999999999"},
      {"--max-contexts", "-3"},
      {"--max-model-bytes", "-1"},
      {"--max-model-bytes", "18446744073709551615"},
      {"--max-tensor-bytes", "1e9"},
      {"--max-compute-ms", "-5"},
      {"--max-compute-ms", "99999999999999"},
      {"--timeout", "-1"},
      {"--timeout", "ten"},
      {"--timeout", "10x"},
      {"--isolated-load-max-mb", "-1"},
      {"--isolated-load-timeout", "forever"},
      {"--isolated-load-timeout", "-1s"},
  };
  for (const auto& c : cases) {
    const ChildResult r = run_probe_with({c.flag, c.value});
    EXPECT_EQ(r.exit_code, 2) << c.flag << " " << c.value << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << c.flag << " " << c.value << "\n" << r.describe();
    EXPECT_EQ(r.out, "") << r.describe();
  }
  // Sensible values run; = and separate forms alike.
  for (const auto& ok : std::vector<std::vector<std::string>>{{"--max-graphs", "2"},
                                                              {"--max-graphs=2"},
                                                              {"--max-compute-ms", "0"},
                                                              {"--timeout=0"},
                                                              {"--timeout", "10"},
                                                              {"--max-compute-ms", "2s"},
                                                              {"--max-model-bytes", "1048576"}}) {
    const ChildResult r = run_probe_with(ok);
    EXPECT_EQ(r.exit_code, 0) << ok[0] << "\n" << r.describe();
  }
}

// --config FILE: the long option names as TOML or JSON keys; the command line wins.
class ConfigFile : public ::testing::Test {
 protected:
  std::string write(const std::string& json, const std::string& name = "wasinn.json") {
    write_text(dir_ / name, json);
    return (dir_ / name).string();
  }
  std::string write_toml(const std::string& toml) { return write(toml, "wasinn.toml"); }
  // `wasinn ARGS` with XDG_CONFIG_HOME at dir_/xdg, where the default config files are looked for.
  ChildResult with_default_config(const std::vector<std::string>& args) {
    const char* old = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old ? old : "";
    ::setenv("XDG_CONFIG_HOME", (dir_ / "xdg").string().c_str(), 1);
    const ChildResult r = wasinn(args);
    if (old)
      ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else
      ::unsetenv("XDG_CONFIG_HOME");
    return r;
  }
  ScratchDir dir_;
};

TEST_F(ConfigFile, OptionsComeFromTheFileAndFlagsOverrideThem) {
  const std::string file = write(R"({
  "env": ["FROM=file", "BOTH=file"],
  "argv0": "from-file",
  "max-graphs": 2,
  "backend-config": {"onnxruntime": {"intra_op_threads": 1}},
  "json": true
})");
  const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "env", "FROM", "BOTH"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "FROM=file\nBOTH=file\n");
  const ChildResult over =
      wasinn({"run", "--config", file, "--env", "BOTH=flag", guest("wasi_probe"), "env", "FROM", "BOTH"});
  EXPECT_EQ(over.out, "FROM=file\nBOTH=flag\n") << over.describe();
  EXPECT_EQ(wasinn({"run", "--config", file, guest("wasi_probe"), "args"}).out,
            "argc=2\nargv[0]=from-file\nargv[1]=args\n");
  EXPECT_EQ(wasinn({"run", "--config", file, "--argv0", "flag", guest("wasi_probe"), "args"}).out,
            "argc=2\nargv[0]=flag\nargv[1]=args\n");
}

TEST_F(ConfigFile, WasmtimeGroupsAndLogLevelFromTheFile) {
  const std::string file = write(R"({"wasm": ["timeout=300ms"], "log-level": "off"})");
  const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "spin"});
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  // -v on the command line beats the file's log level.
  const std::string warn = write(R"({"log-level": "off"})");
  EXPECT_EQ(wasinn({"run", "--config", warn, guest("run_model"), "--name", "ghost"}).err, "");
  const ChildResult loud = wasinn({"run", "--config", warn, "-v", guest("run_model"), "--name", "ghost"});
  EXPECT_NE(loud.err.find("no model named 'ghost'"), std::string::npos) << loud.describe();
}

TEST_F(ConfigFile, ErrorsNameTheFileAndLine) {
  struct Case {
    std::string json;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\n  \"dir\": [\"a\",\n}", "line 3"},
      {"{\n  \"max-graphs\": -1\n}", "wasinn.json:2: \"max-graphs\""},
      {"{\n  \"env\": [\"A=1\"],\n  \"frobnicate\": 1\n}", "wasinn.json:3: unknown key \"frobnicate\""},
      {"{\"backend-config\": {\"nosuch\": {}}}", "no backend named nosuch"},
      {"{\"argv0\": [\"a\", \"b\"]}", "\"argv0\": takes one value"},
      {"[1, 2]", "expected a JSON object"},
      {"{\"config\": \"other.json\"}", "cannot be set in a config file"},
  };
  for (const auto& c : cases) {
    const std::string file = write(c.json);
    const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "args"});
    EXPECT_EQ(r.exit_code, 2) << c.json << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.describe();
    // (A backend name is checked against the manifests after the file is read, so that message
    // names the flag and the backend, not the file.)
    if (c.message.find("no backend") == std::string::npos) {
      EXPECT_NE(r.err.find("wasinn.json"), std::string::npos) << r.describe();
    }
    EXPECT_EQ(r.out, "") << r.describe();
  }
  const ChildResult missing = wasinn({"run", "--config", (dir_ / "absent.json").string(), guest("wasi_probe"), "args"});
  EXPECT_EQ(missing.exit_code, 2) << missing.describe();
  EXPECT_NE(missing.err.find("absent.json: cannot read it"), std::string::npos) << missing.describe();
}

// A preload from the file whose path is bad is blamed on the file's line and key, not on
// --nn-preload, which the user never typed; the flag's own entries keep the flag's name.
TEST_F(ConfigFile, ABadPreloadPathNamesTheFileNotTheFlag) {
  const std::string file = write_toml("env = [\"A=1\"]\nnn-preload = [\"ghost:onnx:cpu:/x/nope.onnx\"]\n");
  const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(first_line(r.err), "wasinn: error: " + file +
                                   ":2: \"nn-preload\" 'ghost:onnx:cpu:/x/nope.onnx': "
                                   "/x/nope.onnx does not exist")
      << r.describe();
  EXPECT_EQ(r.err.find("--nn-preload"), std::string::npos) << r.describe();
  const std::string json = write(R"({"nn-preload": ["bad-spec"]})");
  const ChildResult malformed = wasinn({"run", "--config", json, guest("wasi_probe"), "args"});
  EXPECT_EQ(first_line(malformed.err), "wasinn: error: " + json +
                                           ":1: \"nn-preload\" 'bad-spec': expected "
                                           "NAME:ENCODING:TARGET:PATH[:PATH...]")
      << malformed.describe();
  // The file's entries come first; one from the command line is still the flag's.
  const auto digits = fixture("digits/model.onnx");
  if (!digits) GTEST_SKIP() << "needs the digits fixture";
  const std::string good = write_toml("nn-preload = [\"digits:onnx:cpu:" + digits->string() + "\"]\n");
  const ChildResult flag =
      wasinn({"run", "--config", good, "--nn-preload", "ghost:onnx:cpu:/x/nope.onnx", guest("wasi_probe"), "args"});
  EXPECT_EQ(first_line(flag.err),
            "wasinn: error: --nn-preload 'ghost:onnx:cpu:/x/nope.onnx': /x/nope.onnx does not "
            "exist")
      << flag.describe();
}

TEST_F(ConfigFile, TheDefaultLocationIsReadWhenItExists) {
  fs::create_directories(dir_ / "xdg" / "wasinn");
  write_text(dir_ / "xdg" / "wasinn" / "config.json", R"({"argv0": "default-config"})");
  const ChildResult r = with_default_config({"run", guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=2\nargv[0]=default-config\nargv[1]=args\n");
}

TEST_F(ConfigFile, TheDefaultTomlIsReadAndTwoDefaultsAreRefused) {
  fs::create_directories(dir_ / "xdg" / "wasinn");
  write_text(dir_ / "xdg" / "wasinn" / "config.toml", "argv0 = \"default-toml\"\n");
  const ChildResult r = with_default_config({"run", guest("wasi_probe"), "args"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=2\nargv[0]=default-toml\nargv[1]=args\n");
  write_text(dir_ / "xdg" / "wasinn" / "config.json", R"({"argv0": "default-json"})");
  const ChildResult both = with_default_config({"run", guest("wasi_probe"), "args"});
  EXPECT_EQ(both.exit_code, 2) << both.describe();
  EXPECT_NE(both.err.find("config.toml and "), std::string::npos) << both.describe();
  EXPECT_NE(both.err.find("config.json exist: keep one"), std::string::npos) << both.describe();
  EXPECT_EQ(both.out, "");
}

TEST_F(ConfigFile, TomlGivesTheSameOptionsAndFlagsOverrideThem) {
  const std::string file = write_toml(R"(# every kind of value a flag takes
argv0 = "from-toml"
env = ["FROM=toml", "BOTH=toml"]
max-graphs = 2
json = true

[backend-config.onnxruntime]
intra_op_threads = 1
)");
  const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "env", "FROM", "BOTH"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "FROM=toml\nBOTH=toml\n");
  const ChildResult over =
      wasinn({"run", "--config", file, "--env", "BOTH=flag", guest("wasi_probe"), "env", "FROM", "BOTH"});
  EXPECT_EQ(over.out, "FROM=toml\nBOTH=flag\n") << over.describe();
  EXPECT_EQ(wasinn({"run", "--config", file, guest("wasi_probe"), "args"}).out,
            "argc=2\nargv[0]=from-toml\nargv[1]=args\n");
}

TEST_F(ConfigFile, TomlTablesAreWasmtimeStyleGroups) {
  // Wasmtime's own config file spells -W timeout=300ms and -S inherit-env as tables.
  const std::string file =
      write_toml("log-level = \"off\"\n\n[wasm]\ntimeout = \"300ms\"\n\n[wasi]\ninherit-env = true\n");
  const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "spin"});
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  ::setenv("WASINN_TOML_TEST", "inherited", 1);
  const ChildResult env = wasinn({"run", "--config", file, guest("wasi_probe"), "env", "WASINN_TOML_TEST"});
  ::unsetenv("WASINN_TOML_TEST");
  EXPECT_EQ(env.out, "WASINN_TOML_TEST=inherited\n") << env.describe();
  // {NAME = VALUE} for env, as KEY=VALUE words.
  const std::string envs = write_toml("[env]\nA = \"1\"\nB = \"two words\"\n");
  EXPECT_EQ(wasinn({"run", "--config", envs, guest("wasi_probe"), "env", "A", "B"}).out, "A=1\nB=two words\n");
}

TEST_F(ConfigFile, TomlErrorsNameTheFileAndLine) {
  struct Case {
    std::string toml;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"argv0 = \"a\"\ndir = [\"a\",\nenv = 3\n", "wasinn.toml:3: not valid TOML"},
      {"argv0 = \"a\"\nmax-graphs = -1\n", "wasinn.toml:2: \"max-graphs\": --max-graphs: '-1' is not a whole number"},
      {"env = [\"A=1\"]\n\nfrobnicate = 1\n", "wasinn.toml:3: unknown key \"frobnicate\""},
      {"argv0 = \"a\"\nargv0 = \"b\"\n", "wasinn.toml:2: not valid TOML"},
      {"argv0 = [\"a\", \"b\"]\n", "wasinn.toml:1: \"argv0\": takes one value"},
      {"max-graphs = 1979-05-27\n", "wasinn.toml:1: \"max-graphs\""},
      {"env = [\"A=1\"]\n[argv0]\nx = 1\n", "\"argv0\": takes one value, got a table"},
  };
  for (const auto& c : cases) {
    const std::string file = write_toml(c.toml);
    const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "args"});
    EXPECT_EQ(r.exit_code, 2) << c.toml << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.describe();
    EXPECT_EQ(count_lines(r.err), 1u) << "one line, not toml11's excerpt\n" << r.describe();
    EXPECT_EQ(r.out, "") << r.describe();
  }
  // Without a .toml or .json name the content decides: '{' is JSON, anything else TOML.
  EXPECT_EQ(wasinn({"run", "--config", write("argv0 = \"plain\"\n", "wasinn.conf"), guest("wasi_probe"), "args"}).out,
            "argc=2\nargv[0]=plain\nargv[1]=args\n");
  EXPECT_EQ(wasinn({"run", "--config", write(R"({"argv0": "brace"})", "wasinn.conf"), guest("wasi_probe"), "args"}).out,
            "argc=2\nargv[0]=brace\nargv[1]=args\n");
}

}  // namespace
}  // namespace wasinn_cli_test
