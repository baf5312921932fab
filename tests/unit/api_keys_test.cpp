// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ApiKeys (serve/api_keys): the keys of --api-key and --api-key-file, checked against an
// Authorization header's value; a bad file is an error naming it; SIGHUP's reload.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "serve/api_keys.h"

namespace wasinn::unit {
namespace {

struct KeyFile {
  std::filesystem::path path;
  explicit KeyFile(const std::string& text)
      : path(std::filesystem::temp_directory_path() /
             ("wasinn-keys-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))) {
    write(text);
  }
  ~KeyFile() { std::filesystem::remove(path); }
  void write(const std::string& text) const { std::ofstream(path, std::ios::binary) << text; }
  static inline int counter = 0;
};

TEST(ApiKeys, TakesTheBearerSchemeWithAKeyOfAFlagOrAFile) {
  KeyFile file("# the team's keys\n\n  sk-file-one  \nsk-file-two\r\n");
  auto keys = ApiKeys::make({"sk-flag"}, {file.path.string()});
  ASSERT_TRUE(keys) << keys.error().detail;
  EXPECT_EQ((*keys)->size(), 3u);
  EXPECT_TRUE((*keys)->check("Bearer sk-flag"));
  EXPECT_TRUE((*keys)->check("bearer sk-file-one"));  // the scheme's case does not matter
  EXPECT_TRUE((*keys)->check("BEARER sk-file-two"));
  EXPECT_FALSE((*keys)->check(""));
  EXPECT_FALSE((*keys)->check("sk-flag"));          // no scheme
  EXPECT_FALSE((*keys)->check("Basic sk-flag"));    // another scheme
  EXPECT_FALSE((*keys)->check("Bearer sk-fla"));    // a prefix
  EXPECT_FALSE((*keys)->check("Bearer sk-flagg"));  // longer
  EXPECT_FALSE((*keys)->check("Bearer # the team's keys"));
  EXPECT_FALSE((*keys)->check("Bearer "));
}

TEST(ApiKeys, ABadFileOrKeyIsAnErrorNamingIt) {
  const std::string missing = "/nonexistent/wasinn-keys";
  auto none = ApiKeys::make({}, {missing});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().detail, "--api-key-file " + missing + ": cannot read it: No such file or directory");
  KeyFile empty("# nothing but a comment\n\n");
  auto no_key = ApiKeys::make({}, {empty.path.string()});
  ASSERT_FALSE(no_key);
  EXPECT_EQ(no_key.error().detail,
            "--api-key-file " + empty.path.string() + ": holds no key (one key a line; '#' starts a comment)");
  KeyFile spaced("good\nbad key\n");
  auto spaces = ApiKeys::make({}, {spaced.path.string()});
  ASSERT_FALSE(spaces);
  EXPECT_EQ(spaces.error().detail, "--api-key-file " + spaced.path.string() +
                                       " line 2: an API key may not contain spaces or control characters");
  EXPECT_EQ(spaces.error().detail.find("bad key"), std::string::npos);  // the key is never repeated
  auto flag = ApiKeys::make({""}, {});
  ASSERT_FALSE(flag);
  EXPECT_EQ(flag.error().detail, "--api-key: an API key may not be empty");
}

TEST(ApiKeys, ReloadTakesTheFileAgainAndKeepsTheKeysWhenItHasBecomeBad) {
  KeyFile file("first\n");
  auto made = ApiKeys::make({"flag"}, {file.path.string()});
  ASSERT_TRUE(made) << made.error().detail;
  auto& keys = **made;
  file.write("second\nthird\n");
  auto reloaded = keys.reload();
  ASSERT_TRUE(reloaded) << reloaded.error().detail;
  EXPECT_EQ(*reloaded, 3u);
  EXPECT_FALSE(keys.check("Bearer first"));
  EXPECT_TRUE(keys.check("Bearer third"));
  EXPECT_TRUE(keys.check("Bearer flag"));  // the flag's keys stay
  file.write("");
  EXPECT_FALSE(keys.reload());
  EXPECT_TRUE(keys.check("Bearer second"));  // a bad file keeps the keys in use
}

TEST(RedactQuerySecrets, HidesTheValuesOfKeyParametersOnly) {
  EXPECT_EQ(redact_query_secrets("/v1/models"), "/v1/models");
  EXPECT_EQ(redact_query_secrets("/v1/models?api_key=sk-secret"), "/v1/models?api_key=REDACTED");
  EXPECT_EQ(redact_query_secrets("/x?a=1&KEY=sk-secret&b=&Token=t&c"), "/x?a=1&KEY=REDACTED&b=&Token=REDACTED&c");
  EXPECT_EQ(redact_query_secrets("/x?access_token=t&password=p&keys=visible"),
            "/x?access_token=REDACTED&password=REDACTED&keys=visible");
  EXPECT_EQ(redact_query_secrets("/x?"), "/x?");
  EXPECT_EQ(redact_query_secrets("/x?&&api-key=k&"), "/x?&&api-key=REDACTED&");
}

}  // namespace
}  // namespace wasinn::unit
