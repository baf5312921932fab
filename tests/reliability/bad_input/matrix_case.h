// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One named bad-input case: the guest ABI it speaks, the backend it reaches, the witx errno the
// host must answer, and the body that sends the bad call. The bodies live in cases_*.cpp and
// add themselves to all_cases() at static-initialisation time; matrix_main.cpp registers each
// as a gtest test and runs a valid request after it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "case_run.h"
#include "host_under_test.h"

namespace wasinn::bad_input {

// witx nn_errno values (shared wasi-nn-abi.md section 3.4).
inline constexpr int32_t kSuccess = 0;
inline constexpr int32_t kInvalidArgument = 1;
inline constexpr int32_t kInvalidEncoding = 2;
inline constexpr int32_t kMissingMemory = 3;
inline constexpr int32_t kRuntimeError = 5;
inline constexpr int32_t kUnsupportedOperation = 6;
inline constexpr int32_t kTooLarge = 7;
inline constexpr int32_t kNotFound = 8;
inline constexpr int32_t kPromptTooLong = 102;
inline constexpr int32_t kModelNotFound = 103;

std::string errno_name(int32_t value);

// The short names every cases_*.cpp table uses.
inline constexpr auto E = Abi::ephemeral;
inline constexpr auto kNone = Backend::none;
inline constexpr auto kOrt = Backend::onnxruntime;
inline constexpr auto kLlama = Backend::llamacpp;

struct MatrixCase {
  std::string group;  // gtest suite: "ephemeral_load", "legacy", "model_onnxruntime", ...
  std::string name;   // gtest name, unique within the group
  Abi abi;
  Backend backend;    // whose plugin sees the input (none: the host rejects it first)
  int32_t expected;   // the witx errno the call under test must return
  std::string input;  // the bad input, in a few words, for the table
  // Sends the bad call and returns its status; checks side effects (out-pointers) itself.
  std::function<Status(CaseRun&)> body;
  // Non-empty: the named framework kills the process on this input (docs/reliability.md). Such
  // a case is registered DISABLED_ unless the matrix runs with --isolate-loads and isolated
  // model loads (isolation/isolated_load.h) turn it into an error.
  std::string crashes_in = {};
  bool fixed_by_load_isolation = true;
  // Non-empty: the host answers something else today; the case keeps the correct contract
  // and fails on purpose. Says which host bug it shows.
  std::string host_bug = {};
  // A fixture the case needs beyond the backend's digits model; skipped when it is missing.
  std::string needs_fixture = {};
};

// Whether the case is registered DISABLED_ in this build.
bool disabled(const MatrixCase& c);

std::vector<MatrixCase>& all_cases();

// `static const CaseList x{{...}, {...}};` in a cases_*.cpp file adds its cases.
struct CaseList {
  CaseList(std::initializer_list<MatrixCase> cases) {
    for (const auto& c : cases) all_cases().push_back(c);
  }
};

}  // namespace wasinn::bad_input
