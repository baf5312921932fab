// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The WASI preview1 surface of `wasinn run`: arguments, environment, stdio, preopened
// directories, exit codes and traps, seen from a guest (guest/tests/wasi_probe.c, trap_guest.c).
#include <gtest/gtest.h>

#include <chrono>

#include "test_env.h"

namespace wasinn_it {
namespace {

TEST(Wasi, ArgumentsArriveVerbatim) {
  const ChildResult r = run_wasinn({"run", guest("wasi_probe"), "args", "two words", "", "--dir", "ünïcode"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // argv[0] is the module's file name; options after the module belong to the guest.
  EXPECT_EQ(r.out,
            "argc=6\nargv[0]=wasi_probe.wasm\nargv[1]=args\nargv[2]=two words\nargv[3]=\nargv[4]=--dir\n"
            "argv[5]=ünïcode\n");
}

TEST(Wasi, EnvironmentHoldsOnlyWhatEnvGives) {
  const ChildResult r = run_wasinn({"run", "--env", "GREETING=hello world", "--env", "EMPTY=", "--env", "EQ=a=b",
                                    guest("wasi_probe"), "env", "GREETING", "EMPTY", "EQ", "HOME", "PATH"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // The host's own environment (HOME, PATH) is not passed through.
  EXPECT_EQ(r.out, "GREETING=hello world\nEMPTY=\nEQ=a=b\nHOME is unset\nPATH is unset\n");
}

TEST(Wasi, StdioIsInherited) {
  ChildOptions options;
  options.stdin_text = "line one\nline two\n";
  const ChildResult r = run_wasinn({"run", guest("wasi_probe"), "stdio"}, options);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "line one\nline two\n");
  EXPECT_NE(r.err.find("wasi_probe: this line goes to stderr"), std::string::npos) << r.describe();
}

TEST(Wasi, PreopenedDirectoryIsReadableAndWritableAtItsGuestPath) {
  ScratchDir dir;
  write_text(dir / "in.txt", "from the host\n");
  const ChildResult read =
      run_wasinn({"run", "--dir", dir.path().string() + "::/data", guest("wasi_probe"), "cat", "/data/in.txt"});
  ASSERT_EQ(read.exit_code, 0) << read.describe();
  EXPECT_EQ(read.out, "from the host\n");

  const ChildResult write = run_wasinn({"run", "--dir", dir.path().string() + "::/data", guest("wasi_probe"), "write",
                                        "/data/out.txt", "from the guest"});
  ASSERT_EQ(write.exit_code, 0) << write.describe();
  EXPECT_EQ(read_bytes(dir / "out.txt"),
            (std::vector<uint8_t>{'f', 'r', 'o', 'm', ' ', 't', 'h', 'e', ' ', 'g', 'u', 'e', 's', 't'}));
}

TEST(Wasi, DirWithoutGuestPathKeepsTheHostPath) {
  ScratchDir dir;
  write_text(dir / "same.txt", "same path");
  const ChildResult r =
      run_wasinn({"run", "--dir", dir.path().string(), guest("wasi_probe"), "cat", (dir / "same.txt").string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "same path");
}

TEST(Wasi, NothingOutsideThePreopensIsReachable) {
  ScratchDir dir;
  fs::create_directory(dir / "shared");
  write_text(dir / "secret.txt", "host secret");
  const std::string shared = (dir / "shared").string() + "::/shared";
  for (const std::string& path :
       std::vector<std::string>{"/shared/../secret.txt", (dir / "secret.txt").string(), "/etc/passwd"}) {
    const ChildResult r = run_wasinn({"run", "--dir", shared, guest("wasi_probe"), "cat", path});
    EXPECT_EQ(r.exit_code, 3) << path << "\n" << r.describe();
    EXPECT_EQ(r.out.find("host secret"), std::string::npos) << r.describe();
  }
  const ChildResult w =
      run_wasinn({"run", "--dir", shared, guest("wasi_probe"), "write", "/shared/../planted.txt", "x"});
  EXPECT_EQ(w.exit_code, 3) << w.describe();
  EXPECT_FALSE(fs::exists(dir / "planted.txt"));
}

TEST(Wasi, GuestExitCodeBecomesTheProcessExitCode) {
  for (int code : {0, 1, 42, 125}) {
    const ChildResult r = run_wasinn({"run", guest("wasi_probe"), "exit", std::to_string(code)});
    EXPECT_EQ(r.exit_code, code) << r.describe();
  }
}

TEST(Wasi, ExitCodesWasiCannotCarryGiveOneLine) {
  const ChildResult r = run_wasinn({"run", guest("wasi_probe"), "exit", "200"});
  EXPECT_EQ(r.exit_code, 128) << r.describe();
  EXPECT_NE(r.err.find("invalid exit status"), std::string::npos) << r.describe();
  EXPECT_EQ(r.err.find("backtrace"), std::string::npos) << r.describe();
}

// --timeout bounds guest CPU time through Wasmtime's epoch interruption: a spinning guest is
// stopped with one clear line and the trap exit status, well before the test's own limit.
TEST(Wasi, SpinningGuestIsStoppedByTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const ChildResult r = run_wasinn({"run", "--timeout", "300ms", guest("wasi_probe"), "spin"});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  EXPECT_EQ(r.out, "spinning\n");
  EXPECT_NE(r.err.find("the guest ran longer than --timeout 300ms and was stopped"), std::string::npos) << r.describe();
  EXPECT_LT(took, std::chrono::seconds(20)) << "stopped long after its deadline";
}

TEST(Wasi, TrapPrintsTheWasmBacktraceAndFails) {
  const ChildResult r = run_wasinn({"run", guest("trap_guest")});
  // 134, as Wasmtime's CLI exits on a trap, so scripts written for it keep working.
  EXPECT_EQ(r.exit_code, 134) << r.describe();
  EXPECT_EQ(r.out, "about to trap\n");
  EXPECT_NE(r.err.find("wasm backtrace"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("unreachable"), std::string::npos) << r.describe();
  // Innermost frame first: the trapping function, then its caller.
  const auto trap_at = r.err.find("wasinn_test_deliberate_trap");
  const auto caller_at = r.err.find("wasinn_test_trap_caller");
  ASSERT_NE(trap_at, std::string::npos) << r.describe();
  ASSERT_NE(caller_at, std::string::npos) << r.describe();
  EXPECT_LT(trap_at, caller_at);
}

}  // namespace
}  // namespace wasinn_it
