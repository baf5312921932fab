// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An aligned table for people: each column as wide as its widest cell, two spaces between
// columns, the last column unpadded so that a long cell (a reason, a list) never pushes the
// others out of line.
#pragma once

#include <string>
#include <vector>

namespace wasinn_cli {

using TableRows = std::vector<std::vector<std::string>>;

// Prints the rows to stdout, one line each.
void print_table(const TableRows& rows);

}  // namespace wasinn_cli
