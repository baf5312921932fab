// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bad-input matrix: registers every MatrixCase as a gtest test that sends the bad call,
// asserts its witx errno and that no handle leaked, then serves a valid request in the same
// session. `--matrix-out=FILE` also writes the results as a Markdown table (docs/reliability.md);
// `--isolate-loads` runs it as `wasinn` ships (isolation auto), crash cases included.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "matrix_case.h"
#include "valid_request.h"

namespace wasinn::bad_input {

std::vector<MatrixCase>& all_cases() {
  static std::vector<MatrixCase> cases;
  return cases;
}

bool disabled(const MatrixCase& c) {
  return !c.crashes_in.empty() && !(HostUnderTest::load_isolation() && c.fixed_by_load_isolation);
}

std::string errno_name(int32_t value) {
  static const std::map<int32_t, const char*> names = {{0, "success"},
                                                       {1, "invalid_argument"},
                                                       {2, "invalid_encoding"},
                                                       {3, "missing_memory"},
                                                       {4, "busy"},
                                                       {5, "runtime_error"},
                                                       {6, "unsupported_operation"},
                                                       {7, "too_large"},
                                                       {8, "not_found"},
                                                       {100, "end_of_sequence"},
                                                       {101, "context_full"},
                                                       {102, "prompt_too_long"},
                                                       {103, "model_not_found"}};
  auto it = names.find(value);
  return std::to_string(value) + " " + (it == names.end() ? "?" : it->second);
}

namespace {

struct Row {
  std::string observed;
  std::string result;
};
std::map<std::string, Row>& rows() {
  static std::map<std::string, Row> r;
  return r;
}

std::string full_name(const MatrixCase& c) { return c.group + "." + c.name; }

class MatrixTest : public ::testing::Test {
 public:
  MatrixTest(const MatrixCase& c, uint32_t ordinal) : case_(c), ordinal_(ordinal) {}

  void TestBody() override {
    const MatrixCase& c = case_;
    Row& row = rows()[full_name(c)];
    HostUnderTest& host = HostUnderTest::get();
    for (Backend b : {c.backend, Backend::onnxruntime}) {
      if (const std::string why = host.unavailable(b); !why.empty()) {
        row = {"-", "skipped: " + why};
        GTEST_SKIP() << backend_name(b) << ": " << why;
      }
    }
    static bool llama_reference = false;  // the first llama text, made before any llama case, is the reference
    if (!c.needs_fixture.empty() && !std::filesystem::exists(host.fixture_path(c.needs_fixture))) {
      row = {"-", "skipped: fixture " + c.needs_fixture + " missing"};
      GTEST_SKIP() << "fixture " << host.fixture_path(c.needs_fixture) << " is missing (scripts/make_fixtures.py)";
    }
    if (c.backend == Backend::llamacpp && !llama_reference) {
      llama_reference = true;
      expect_serves_llama(host);
    }

    const size_t graphs_before = host.session().live_graphs();
    const size_t contexts_before = host.session().live_contexts();
    Status status;
    {
      CaseRun run(host, ordinal_);
      status = c.body(run);
      run.release_all();
    }
    const int32_t observed = nn::errno_of(status);
    std::cout << "[ errno    ] " << errno_name(observed) << (status.ok() ? "" : ": " + status.error().detail) << "\n";
    EXPECT_EQ(observed, c.expected) << c.input << "\n  expected " << errno_name(c.expected) << ", got "
                                    << errno_name(observed) << ": " << (status.ok() ? "" : status.error().detail)
                                    << (c.host_bug.empty() ? "" : "\n  known host bug: " + c.host_bug);
    EXPECT_EQ(host.session().live_graphs(), graphs_before) << "the case left a graph handle behind";
    EXPECT_EQ(host.session().live_contexts(), contexts_before) << "the case left a context handle behind";
    const bool case_ok = !HasFailure();

    expect_serves_digit(host, c.backend, c.abi, ordinal_);
    if (c.backend == Backend::llamacpp) expect_serves_llama(host);
    if (c.backend == Backend::piper) expect_serves_piper(host);
    row.observed = errno_name(observed);
    row.result = !case_ok ? "**FAIL**" : HasFailure() ? "**FAIL** (host unusable after it)" : "pass";
  }

 private:
  const MatrixCase& case_;
  const uint32_t ordinal_;
};

void register_cases() {
  uint32_t ordinal = 0;
  for (const MatrixCase& c : all_cases()) {
    const std::string name = (disabled(c) ? "DISABLED_" : "") + c.name;
    const uint32_t n = ordinal++;
    ::testing::RegisterTest(c.group.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [&c, n]() -> ::testing::Test* { return new MatrixTest(c, n); });
  }
}

std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

void write_table(const std::string& path) {
  std::ofstream out(path);
  out << "| # | case | ABI | backend | bad input | expected errno | observed errno | result |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  int n = 0, passed = 0, failed = 0, not_run = 0;
  for (const MatrixCase& c : all_cases()) {
    auto it = rows().find(full_name(c));
    Row row = it != rows().end() ? it->second : Row{"-", "not run"};
    if (it == rows().end() && disabled(c)) {
      row.result = "not run: crashes in " + c.crashes_in +
                   (c.fixed_by_load_isolation ? " (runs with load isolation)" : " (load isolation does not cover it)");
    }
    if (row.result == "pass")
      ++passed;
    else if (row.result.rfind("**FAIL", 0) == 0)
      ++failed;
    else
      ++not_run;
    if (!c.host_bug.empty()) row.result += " (host bug: " + c.host_bug + ")";
    out << "| " << ++n << " | `" << full_name(c) << "` | " << abi_name(c.abi) << " | " << backend_name(c.backend)
        << " | " << cell(c.input) << " | " << errno_name(c.expected) << " | " << row.observed << " | "
        << cell(row.result) << " |\n";
  }
  out << "\n" << n << " cases: " << passed << " pass, " << failed << " fail, " << not_run << " not run.\n";
  std::cout << "bad-input matrix written to " << path << " (" << passed << " pass, " << failed << " fail, " << not_run
            << " not run)\n";
}

}  // namespace
}  // namespace wasinn::bad_input

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string table;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--matrix-out=", 0) == 0) table = arg.substr(13);
    if (arg == "--isolate-loads") wasinn::bad_input::HostUnderTest::set_load_isolation(true);
  }
  wasinn::bad_input::register_cases();
  const int rc = RUN_ALL_TESTS();
  if (!table.empty()) wasinn::bad_input::write_table(table);
  return rc;
}
