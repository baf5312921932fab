// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/text_table.h"

#include <algorithm>

#include <fmt/format.h>

namespace wasinn_cli {

void print_table(const TableRows& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size())
        line += row[i];
      else
        line += fmt::format("{:<{}}  ", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print("{}\n", line);
  }
}

}  // namespace wasinn_cli
