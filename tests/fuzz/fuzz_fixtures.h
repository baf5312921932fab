// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fixture files for fuzz targets: $WASINN_FIXTURES, else the default scripts/make_fixtures.py
// writes. A missing fixture stops the fuzzer at start with a hint (libFuzzer has no skip).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "support/stream_bytes.h"

namespace wasinn::fuzz {

inline std::string fixture_path(const std::string& relative) {
  const char* env = std::getenv("WASINN_FIXTURES");
  return std::string(env && *env ? env : WASINN_FIXTURES_DEFAULT) + "/" + relative;
}

inline std::vector<uint8_t> read_fixture(const std::string& relative) {
  const std::string path = fixture_path(relative);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz: fixture %s is missing; run scripts/make_fixtures.py\n", path.c_str());
    std::exit(2);
  }
  return wasinn_test::stream_bytes(in);
}

}  // namespace wasinn::fuzz
