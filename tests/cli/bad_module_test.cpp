// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Issue 16's first bug: a module path that is a directory, missing, unreadable, not
// WebAssembly, truncated, empty or huge is one line of error and exit code 1 from `wasinn`,
// and an error in RunOutcome from Host::run: never an abort (it used to be
// std::__ios_failure and exit 134 for a directory).
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "cli_test_env.h"
#include "wasinn/host.h"

namespace wasinn_cli_test {
namespace {

struct BadModule {
  std::string label;
  std::string path;
  std::string message;  // expected in the CLI's stderr and in RunOutcome::message
};

class BadModules : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string probe = read_text(guest("wasi_probe"));
    write_text(dir_ / "text.wasm", "not wasm at all\n");
    std::string garbage(64, '\0');
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 37 + 1);
    write_text(dir_ / "garbage.wasm", garbage);
    write_text(dir_ / "truncated.wasm", probe.substr(0, probe.size() / 2));
    write_text(dir_ / "header_only.wasm", probe.substr(0, 8) + "\x01\x7f\x01");  // a section cut short
    write_text(dir_ / "empty.wasm", "");
    // A component preamble followed by a section cut short: components run, broken ones do not.
    write_text(dir_ / "component.wasm", std::string("\0asm\x0d\0\x01\0\x01\x7f", 10));
    write_text(dir_ / "broken.wat", "(module (func (export \"_start\") (i32.add)))");  // parses, invalid
    write_text(dir_ / "syntax.wat", "(module (func (export \"_start\")");              // does not parse
    fs::create_directory(dir_ / "a_directory.wasm");
    // A sparse file one byte over the limit: refused from its size, before any read.
    const int fd = ::open((dir_ / "huge.wasm").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "\0asm\x01\0\0\0", 8), 8);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(wasinn::kMaxModuleBytes + 1)), 0);
    ::close(fd);
    cases_ = {
        {"directory", (dir_ / "a_directory.wasm").string(), "is a directory"},
        {"missing", (dir_ / "missing.wasm").string(), "cannot read"},
        {"text", (dir_ / "text.wasm").string(), "not a valid WebAssembly module"},
        {"garbage", (dir_ / "garbage.wasm").string(), "not a valid WebAssembly module"},
        {"truncated", (dir_ / "truncated.wasm").string(), "not a valid WebAssembly module"},
        {"cut section", (dir_ / "header_only.wasm").string(), "not a valid WebAssembly module"},
        {"empty", (dir_ / "empty.wasm").string(), "it is empty"},
        {"broken component", (dir_ / "component.wasm").string(), "not a valid WebAssembly component"},
        {"invalid text", (dir_ / "broken.wat").string(), "not a valid WebAssembly module"},
        {"text syntax", (dir_ / "syntax.wat").string(), "not a valid WebAssembly text module"},
        {"huge", (dir_ / "huge.wasm").string(), "larger than 1024 MiB"},
    };
  }

  ScratchDir dir_;
  std::vector<BadModule> cases_;
};

TEST_F(BadModules, TheCommandSaysWhyInOneLineAndExitsOne) {
  for (const auto& c : cases_) {
    for (const bool implicit : {false, true}) {  // `wasinn run X` and Wasmtime's implicit `wasinn X`
      std::vector<std::string> args{c.path};
      if (!implicit) args.insert(args.begin(), "run");
      const ChildResult r = wasinn(args);
      EXPECT_EQ(r.exit_code, 1) << c.label << "\n" << r.describe();
      EXPECT_NE(r.err.find(c.message), std::string::npos) << c.label << "\n" << r.describe();
      EXPECT_EQ(count_lines(r.err), 1u) << c.label << ": not one line\n" << r.describe();
      EXPECT_EQ(r.err.find("terminate"), std::string::npos) << c.label << "\n" << r.describe();
      EXPECT_EQ(r.out, "") << c.label;
    }
  }
}

TEST_F(BadModules, HostRunReturnsTheErrorInRunOutcome) {
  std::string error;
  auto host = wasinn::Host::create({}, &error);
  ASSERT_TRUE(host) << error;
  for (const auto& c : cases_) {
    wasinn::Program program;
    program.wasm_path = c.path;
    const wasinn::RunOutcome outcome = host->run(program);
    EXPECT_EQ(outcome.exit_code, 1) << c.label << ": " << outcome.message;
    EXPECT_FALSE(outcome.trapped) << c.label;
    EXPECT_NE(outcome.message.find(c.message), std::string::npos) << c.label << ": " << outcome.message;
    EXPECT_EQ(host->instantiate(program, &error), nullptr) << c.label;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.label << ": " << error;
  }
}

TEST_F(BadModules, AFileWithoutReadPermissionIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  write_text(dir_ / "private.wasm", read_text(guest("wasi_probe")));
  fs::permissions(dir_ / "private.wasm", fs::perms::none);
  const ChildResult r = wasinn({"run", (dir_ / "private.wasm").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.describe();
}

TEST_F(BadModules, ModuleBytesGivenInProgramAreUsedInsteadOfThePath) {
  std::string error;
  auto host = wasinn::Host::create({}, &error);
  ASSERT_TRUE(host) << error;
  wasinn::Program program;
  program.wasm_path = (dir_ / "a_directory.wasm").string();  // names the module only
  const std::string wat = kReactorWat;
  program.wasm_bytes = std::vector<uint8_t>(wat.begin(), wat.end());
  program.invoke = "get";
  const auto outcome = host->run(program);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.message;
  EXPECT_EQ(outcome.results, std::vector<std::string>{"5"});
}

TEST(ModuleErrors, UnknownImportCannotBeInstantiatedExitOne) {
  ScratchDir dir;
  write_text(dir / "imports.wat", kUnknownImportWat);
  const ChildResult r = wasinn({"run", (dir / "imports.wat").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("cannot instantiate"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("no_such_function"), std::string::npos) << r.describe();
}

TEST(ModuleErrors, AModuleWithoutStartPointsToInvoke) {
  ScratchDir dir;
  write_text(dir / "reactor.wat", kReactorWat);
  const ChildResult r = wasinn({"run", (dir / "reactor.wat").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("no _start export"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("--invoke"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_cli_test
