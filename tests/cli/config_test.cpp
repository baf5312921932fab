// Configuration checked at start: --backend-config (malformed JSON, a non-object, a backend
// no manifest declares) and numeric limits (negative, not a number, absurd) are usage errors
// naming the backend or flag, before any guest runs.
#include <cstdlib>

#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

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
  const ChildResult none = run_probe_with({"--backend-dir", empty.path().string(), "--backend-config", "onnxruntime={}"});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_NE(none.err.find("no backend is installed"), std::string::npos) << none.describe();
}

TEST(BackendConfig, AValidConfigForAnInstalledBackendRuns) {
  const ChildResult r = run_probe_with({"--backend-config", "onnxruntime={\"intra_op_threads\":1}",
                                        "--backend-config", "onnxruntime={\"inter_op_threads\":1}"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=2\nargv[0]=wasi_probe.wasm\nargv[1]=args\n");
}

TEST(Limits, NegativeNonNumericAndAbsurdValuesAreRefusedByName) {
  struct Case {
    std::string flag;
    std::string value;
  };
  const std::vector<Case> cases = {
      {"--max-graphs", "-1"},          {"--max-graphs", "0"},
      {"--max-graphs", "1.5"},         {"--max-graphs", "99999999999"},
      {"--max-contexts", "-3"},        {"--max-model-bytes", "-1"},
      {"--max-model-bytes", "18446744073709551615"},
      {"--max-tensor-bytes", "1e9"},   {"--max-compute-ms", "-5"},
      {"--max-compute-ms", "99999999999999"},
      {"--timeout", "-1"},             {"--timeout", "ten"},
      {"--isolated-load-max-mb", "-1"},
  };
  for (const auto& c : cases) {
    const ChildResult r = run_probe_with({c.flag, c.value});
    EXPECT_EQ(r.exit_code, 2) << c.flag << " " << c.value << "\n" << r.describe();
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << c.flag << " " << c.value << "\n" << r.describe();
    EXPECT_EQ(r.out, "") << r.describe();
  }
  // Sensible values run; = and separate forms alike.
  for (const auto& ok : std::vector<std::vector<std::string>>{{"--max-graphs", "2"}, {"--max-graphs=2"},
                                                              {"--max-compute-ms", "0"}, {"--timeout=0"},
                                                              {"--max-model-bytes", "1048576"}}) {
    const ChildResult r = run_probe_with(ok);
    EXPECT_EQ(r.exit_code, 0) << ok[0] << "\n" << r.describe();
  }
}

// --config FILE: the long option names as JSON keys; the command line wins.
class ConfigFile : public ::testing::Test {
 protected:
  std::string write(const std::string& json) {
    write_text(dir_ / "wasinn.json", json);
    return (dir_ / "wasinn.json").string();
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
  const ChildResult over = wasinn({"run", "--config", file, "--env", "BOTH=flag", guest("wasi_probe"), "env", "FROM", "BOTH"});
  EXPECT_EQ(over.out, "FROM=file\nBOTH=flag\n") << over.describe();
  EXPECT_EQ(wasinn({"run", "--config", file, guest("wasi_probe"), "args"}).out, "argc=2\nargv[0]=from-file\nargv[1]=args\n");
  EXPECT_EQ(wasinn({"run", "--config", file, "--argv0", "flag", guest("wasi_probe"), "args"}).out,
            "argc=2\nargv[0]=flag\nargv[1]=args\n");
}

TEST_F(ConfigFile, WasmtimeGroupsAndLogLevelFromTheFile) {
  const std::string file = write(R"({"wasm": ["timeout=300ms"], "log-level": "off"})");
  const ChildResult r = wasinn({"run", "--config", file, guest("wasi_probe"), "spin"});
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  // -v on the command line beats the file's log level.
  const std::string warn = write(R"({"log-level": "off", "nn-preload": ["ghost:onnx:cpu:/nonexistent.onnx"]})");
  EXPECT_EQ(wasinn({"run", "--config", warn, guest("wasi_probe"), "exit", "0"}).err, "");
  const ChildResult loud = wasinn({"run", "--config", warn, "-v", guest("wasi_probe"), "exit", "0"});
  EXPECT_NE(loud.err.find("does not exist"), std::string::npos) << loud.describe();
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

TEST_F(ConfigFile, TheDefaultLocationIsReadWhenItExists) {
  fs::create_directories(dir_ / "xdg" / "wasinn");
  write_text(dir_ / "xdg" / "wasinn" / "config.json", R"({"argv0": "default-config"})");
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CONFIG_HOME", (dir_ / "xdg").string().c_str(), 1);
  const ChildResult r = wasinn({"run", guest("wasi_probe"), "args"});
  if (old) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CONFIG_HOME");
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "argc=2\nargv[0]=default-config\nargv[1]=args\n");
}

}  // namespace
}  // namespace wasinn_cli_test
