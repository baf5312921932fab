// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin SDK's name rule (include/wasinn/plugin_sdk/tensor.hpp): a tensor id by name is the
// model's own name, or "output<i>" for an output the framework left unnamed, the name the host
// returns such an output under to a WIT guest (src/core/named_io.h, output_name).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wasinn/plugin_sdk/tensor.hpp"

namespace {

using wasinn::sdk::IoDesc;
using wasinn::sdk::Side;

std::vector<IoDesc> named(std::vector<std::string> names) {
  std::vector<IoDesc> io(names.size());
  for (size_t i = 0; i < names.size(); ++i) io[i].name = names[i];
  return io;
}

wasinn::sdk::Error resolve(const std::vector<IoDesc>& io, Side side, const std::string& name, size_t& index) {
  const wasinn_tensor_id id{0, name.data(), name.size()};
  return wasinn::sdk::resolve_id(io, side, id, index);
}

TEST(SdkNames, UnnamedOutputsGoByOutputI) {
  EXPECT_EQ(wasinn::sdk::default_output_name(0), "output0");
  EXPECT_EQ(wasinn::sdk::default_output_name(12), "output12");
  const auto io = named({"", "scores", ""});
  size_t index = 99;
  EXPECT_FALSE(resolve(io, Side::output, "output0", index));
  EXPECT_EQ(index, 0u);
  EXPECT_FALSE(resolve(io, Side::output, "output2", index));
  EXPECT_EQ(index, 2u);
  EXPECT_FALSE(resolve(io, Side::output, "scores", index));
  EXPECT_EQ(index, 1u);
  // output1 has a name of its own; output3 does not exist; no leading zeros or other spellings.
  for (const char* bad : {"output1", "output3", "output00", "output", "Output0", "output0 ", "output-1"}) {
    const auto e = resolve(io, Side::output, bad, index);
    EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT) << bad;
    EXPECT_EQ(e.detail, std::string("no output named \"") + bad +
                            "\": the model's outputs are \"output0\", \"scores\", \"output2\"")
        << bad;
  }
}

TEST(SdkNames, AModelsOwnOutputNameWinsAndInputsHaveNoFallback) {
  // A framework that names an output "output1" itself: that name is output 0's.
  size_t index = 99;
  EXPECT_FALSE(resolve(named({"output1", ""}), Side::output, "output1", index));
  EXPECT_EQ(index, 0u);
  const auto e = resolve(named({"", ""}), Side::input, "output0", index);
  EXPECT_EQ(e.status, WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(e.detail, "no input named \"output0\": the model's inputs have no names; address them by index");
}

TEST(SdkNames, ParseAcceptsOnlyTheCanonicalSpelling) {
  size_t i = 0;
  EXPECT_TRUE(wasinn::sdk::parse_default_output_name("output7", i));
  EXPECT_EQ(i, 7u);
  EXPECT_TRUE(wasinn::sdk::parse_default_output_name("output10", i));
  EXPECT_EQ(i, 10u);
  for (const char* bad : {"output", "output07", "outputx", "output1x", "output9999999999", "input0"})
    EXPECT_FALSE(wasinn::sdk::parse_default_output_name(bad, i)) << bad;
}

}  // namespace
