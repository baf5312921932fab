// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// check_model_name: a guest's model name must be non-empty UTF-8 without NUL bytes.
#include "abi/name_check.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

TEST(ModelName, AcceptsUtf8) {
  for (std::string_view name : {"default", "mobilenet_v2", "a", "model/with/slashes.onnx", "mod\xC3\xA8le",
                                "\xE6\xA8\xA1\xE5\x9E\x8B", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(has_errno(check_model_name(name), 0)) << name;
  }
}

TEST(ModelName, Empty) { EXPECT_TRUE(has_errno(check_model_name(""), 1, "model name is empty")); }

TEST(ModelName, NulBytes) {
  EXPECT_TRUE(has_errno(check_model_name(std::string_view("abc\0def", 7)), 1, "NUL byte at offset 3"));
  EXPECT_TRUE(has_errno(check_model_name(std::string_view("\0", 1)), 1, "NUL byte at offset 0"));
  EXPECT_TRUE(has_errno(check_model_name(std::string_view("default\0", 8)), 1, "NUL byte at offset 7"))
      << "a name_len that counts the C string's NUL is refused, as WAMR does";
}

TEST(ModelName, InvalidUtf8) {
  struct Case {
    std::string_view name;
    const char* detail;
  } cases[] = {
      {"ab\xFF", "not valid UTF-8 (byte 2)"},                // never valid in UTF-8
      {"\x80x", "not valid UTF-8 (byte 0)"},                 // lone continuation byte
      {"x\xC3", "not valid UTF-8 (byte 1)"},                 // truncated 2-byte sequence
      {"\xE2\x82", "not valid UTF-8 (byte 0)"},              // truncated 3-byte sequence
      {"\xC3\x28", "not valid UTF-8 (byte 0)"},              // bad continuation
      {"\xC0\x80", "not valid UTF-8 (byte 0)"},              // overlong NUL
      {"\xE0\x80\xAF", "not valid UTF-8 (byte 0)"},          // overlong '/'
      {"\xF0\x82\x82\xAC", "not valid UTF-8 (byte 0)"},      // overlong 4-byte
      {"ok\xED\xA0\x80", "not valid UTF-8 (byte 2)"},        // UTF-16 surrogate
      {"\xF4\x90\x80\x80", "not valid UTF-8 (byte 0)"},      // past U+10FFFF
      {"\xF8\x88\x80\x80\x80", "not valid UTF-8 (byte 0)"},  // 5-byte form
  };
  for (const auto& c : cases) EXPECT_TRUE(has_errno(check_model_name(c.name), 1, c.detail)) << c.detail;
}

}  // namespace
}  // namespace wasinn::unit
