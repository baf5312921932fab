// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// --max-compute-ms through a real guest on real ONNX Runtime: a mobilenet compute past the
// budget is cancelled with errno 5 and a detail on stderr, and the same guest then releases
// what it loaded and classifies a digit (guest/tests/deadline_guest.c).
#include <gtest/gtest.h>

#include "test_env.h"

namespace wasinn_it {
namespace {

TEST(Deadline, ComputePastTheBudgetIsStoppedAndTheHostStaysUsable) {
  // mobilenet stays past 5 ms (slow_ort); the digits MLP takes µs.
  std::vector<std::string> args{"run", "--max-compute-ms", "5"};
  const auto slow = slow_ort();
  args.insert(args.end(), slow.begin(), slow.end());
  args.insert(args.end(), {"--dir", fixture("mobilenet_v2").string() + "::/m", "--dir",
                           fixture("digits").string() + "::/d", guest("deadline_guest"), "/m/model.onnx",
                           "/m/input.f32", "/d/model.onnx", "/d/test_x.f32", "/d/test_y.u8"});
  const ChildResult r = run_wasinn(args);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("compute slow: errno 5\n"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("compute slow again: errno 5\n"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("compute digits: errno 0\n"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("exceeded its budget of 5 ms"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace wasinn_it
