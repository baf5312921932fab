// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where the benchmarks find the test fixtures (scripts/make_fixtures.py): $WASINN_FIXTURES, else
// ~/.cache/wasinn/fixtures, as the tests do.
#pragma once

#include <cstdlib>
#include <string>

namespace wasinn::bench {

inline std::string default_fixtures() {
  if (const char* env = std::getenv("WASINN_FIXTURES"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.cache/wasinn/fixtures";
}

}  // namespace wasinn::bench
