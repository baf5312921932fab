// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "guest_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace wasinn_compat {

std::map<std::string, std::string> parse_report(const std::string& out) {
  std::map<std::string, std::string> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto sep = line.find(": ");
    if (sep != std::string::npos) lines[line.substr(0, sep)] = line.substr(sep + 2);
  }
  return lines;
}

void expect_answer(const std::string& out, const DigitsAnswer& answer, const std::string& prefix) {
  auto lines = parse_report(out);
  ASSERT_EQ(answer.predictions.size(), 450u) << "the digits fixture should hold 450 held-out rows";
  EXPECT_EQ(lines[prefix + "predictions"], answer.predictions) << "guest output:\n" << out;
  EXPECT_EQ(lines[prefix + "accuracy"], std::to_string(answer.correct) + "/" + std::to_string(answer.total));
  std::istringstream logits(lines[prefix + "logits0"]);
  for (size_t k = 0; k < answer.logits0.size(); ++k) {
    float v = 0;
    ASSERT_TRUE(logits >> v) << "logits0 line has fewer than " << answer.logits0.size() << " values:\n" << out;
    EXPECT_NEAR(v, answer.logits0[k], 5e-6f + 1e-6f * std::abs(answer.logits0[k])) << "logit " << k;
  }
}

}  // namespace wasinn_compat
