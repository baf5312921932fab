// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugin SDK's context_take_token_stats (include/wasinn/plugin_sdk.hpp): a context's counts
// reach a host of this ABI whole, and an older host's shorter struct only as far as it reaches.
#include <gtest/gtest.h>

#include <cstddef>

#include "wasinn/plugin_sdk.hpp"

namespace {

struct CountingContext {
  wasinn_token_stats next{0, 1, 7, 3, 40, 2, 20, 0, 0};
  int takes = 0;
  void take_token_stats(wasinn_token_stats& out) noexcept {
    out = next;
    ++takes;
  }
};
struct Backend {
  using Graph = int;
  using Context = CountingContext;
};
using Entries = wasinn::sdk::Entries<Backend>;

TEST(SdkTokenStats, AHostOfThisAbiGetsEveryField) {
  static_assert(wasinn::sdk::TokenCounting<CountingContext>);
  CountingContext c;
  wasinn_token_stats out{};
  out.struct_size = sizeof out;
  ASSERT_EQ(Entries::context_take_token_stats(reinterpret_cast<wasinn_context*>(&c), &out), WASINN_OK);
  EXPECT_EQ(out.struct_size, sizeof out);  // the host's, kept
  EXPECT_EQ(out.first_tokens, 1u);
  EXPECT_EQ(out.prompt_tokens, 7u);
  EXPECT_EQ(out.generated_tokens, 3u);
  EXPECT_EQ(out.first_token_nanos, 40u);
  EXPECT_EQ(out.decode_tokens, 2u);
  EXPECT_EQ(out.decode_nanos, 20u);
}

TEST(SdkTokenStats, AnOlderHostsShorterStructIsWrittenNoFurther) {
  CountingContext c;
  // A host that knew only struct_size, first_tokens and prompt_tokens: the rest is not its memory.
  wasinn_token_stats out{};
  out.struct_size = offsetof(wasinn_token_stats, generated_tokens);
  out.generated_tokens = 99;
  ASSERT_EQ(Entries::context_take_token_stats(reinterpret_cast<wasinn_context*>(&c), &out), WASINN_OK);
  EXPECT_EQ(out.prompt_tokens, 7u);
  EXPECT_EQ(out.generated_tokens, 99u);
  // No room even for struct_size, or no struct: refused without a take.
  out.struct_size = 2;
  EXPECT_EQ(Entries::context_take_token_stats(reinterpret_cast<wasinn_context*>(&c), &out), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(Entries::context_take_token_stats(reinterpret_cast<wasinn_context*>(&c), nullptr), WASINN_INVALID_ARGUMENT);
  EXPECT_EQ(c.takes, 1);
}

}  // namespace
