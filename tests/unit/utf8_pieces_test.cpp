// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Utf8Pieces (base/utf8_pieces.h): token bytes joined into pieces that end on whole characters.
#include "base/utf8_pieces.h"

#include <gtest/gtest.h>

namespace wasinn {
namespace {

TEST(Utf8Pieces, WholeCharactersPassAtOnce) {
  Utf8Pieces p;
  EXPECT_EQ(p.take("abc"), "abc");
  EXPECT_EQ(p.take("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");  // "été"
  EXPECT_TRUE(p.empty());
}

TEST(Utf8Pieces, ACharacterSplitAcrossTokensWaitsForItsEnd) {
  Utf8Pieces p;
  // "€" is E2 82 AC, arriving as three byte tokens (llama's <0xE2><0x82><0xAC>).
  EXPECT_EQ(p.take("a\xe2"), "a");
  EXPECT_EQ(p.take("\x82"), "");
  EXPECT_EQ(p.take("\xac!"), "\xe2\x82\xac!");
  // A four-byte character split 1 + 3.
  EXPECT_EQ(p.take("\xf0"), "");
  EXPECT_EQ(p.take("\x9f\x98\x80"), "\xf0\x9f\x98\x80");
  EXPECT_TRUE(p.empty());
}

TEST(Utf8Pieces, BytesThatCanNeverBeACharacterPassOn) {
  Utf8Pieces p;
  EXPECT_EQ(p.take("\x80x"), "\x80x");  // a lone continuation byte
  EXPECT_EQ(p.take("\xff"), "\xff");    // never a lead byte
  EXPECT_EQ(p.take("\xe2"
                   "a"),
            "\xe2"
            "a");  // a lead byte followed by no continuation
  EXPECT_TRUE(p.empty());
}

TEST(Utf8Pieces, FinishGivesWhatIsHeldAtTheEnd) {
  Utf8Pieces p;
  EXPECT_EQ(p.take("ok\xe2\x82"), "ok");
  EXPECT_FALSE(p.empty());
  EXPECT_EQ(p.finish(), "\xe2\x82");
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.finish(), "");
}

}  // namespace
}  // namespace wasinn
