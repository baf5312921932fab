// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// core/errc.def, the one error table: every Errc walked through every mapping expanded from it
// (its name, the plugin status, the witx errno, the WIT error-code, the OIP server's HTTP and gRPC
// answers), each giving its own row and coming back where a mapping has a way back; a code added
// by a row alone is walked too, and no code lands on a mapping's fallback.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "abi/ephemeral_nn.h"
#include "abi/wit_nn.h"
#include "core/plugin_call.h"
#include "serve/oip/error_status.h"

namespace wasinn::unit {
namespace {

struct Row {
  Errc code;
  std::string_view name;
  int plugin_status;
  int32_t witx_errno;
  std::string_view wit_case;
  int http;
};

constexpr Row kRows[] = {
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http, grpc) \
  {Errc::name, #name, plugin_status, witx_errno, wit_case, http},
#include "core/errc.def"
#undef WASINN_ERRC
};

TEST(ErrcTable, OneRowPerCodeInErrcsOrder) {
  ASSERT_EQ(std::size(kRows), kErrcCount);
  for (size_t i = 0; i < kErrcCount; ++i) EXPECT_EQ(static_cast<size_t>(kRows[i].code), i) << kRows[i].name;
}

TEST(ErrcTable, NamesAreDistinctAndComeBack) {
  std::set<std::string_view> seen;
  for (const Row& row : kRows) {
    EXPECT_EQ(errc_name(row.code), row.name);
    EXPECT_TRUE(seen.insert(row.name).second) << row.name;
    EXPECT_EQ(errc_from_name(row.name), row.code) << row.name;
  }
  EXPECT_EQ(errc_from_name("no_such_code"), std::nullopt);
}

TEST(ErrcTable, PluginStatusesAreDistinctAndComeBack) {
  std::set<int> seen;
  for (const Row& row : kRows) {
    EXPECT_NE(row.plugin_status, WASINN_OK) << row.name;
    EXPECT_TRUE(seen.insert(row.plugin_status).second) << row.name << " shares its plugin status";
    EXPECT_EQ(errc_from_plugin_status(row.plugin_status), row.code) << row.name;
  }
}

TEST(ErrcTable, WitxErrnosAreTheRows) {
  for (const Row& row : kRows) {
    EXPECT_EQ(ephemeral_nn::errno_of(row.code), row.witx_errno) << row.name;
    EXPECT_NE(row.witx_errno, 0) << row.name << " would read as success";
  }
}

TEST(ErrcTable, WitCasesAreWitsAndComeBack) {
  for (const Row& row : kRows) {
    EXPECT_EQ(wit_nn::error_code_case(row.code), row.wit_case) << row.name;
    // A case of WIT's error-code, decoded to a code that is that case again.
    auto back = wit_nn::decode_error_code(row.wit_case);
    ASSERT_TRUE(back.ok()) << row.name << ": '" << row.wit_case << "' is not a WIT error-code case";
    EXPECT_EQ(wit_nn::error_code_case(*back), row.wit_case) << row.name;
  }
}

TEST(ErrcTable, OipAnswersAreTheRowsAndAgreeAcrossTransports) {
  std::map<int, int> grpc_of_http;  // both transports answer a failure alike: one gRPC code per HTTP status
  for (const Row& row : kRows) {
    EXPECT_EQ(oip_server::http_status(row.code), row.http) << row.name;
    const int grpc = oip_server::grpc_code(row.code);
    EXPECT_NE(grpc, 0) << row.name << " would read as OK";
    auto [at, fresh] = grpc_of_http.emplace(row.http, grpc);
    EXPECT_EQ(at->second, grpc) << row.name << ": HTTP " << row.http << " answers with two gRPC codes";
  }
}

TEST(ErrcTable, OnlyUnknownMapsLikeAStrayNumber) {
  // Each mapping's fallback (after its switch) is what a number outside Errc gets; a code reaching
  // it would map as unknown does. unknown is the one code that should.
  const auto stray = static_cast<Errc>(kErrcCount);
  EXPECT_EQ(errc_name(stray), "unknown");
  for (const Row& row : kRows) {
    if (row.code == Errc::unknown) continue;
    EXPECT_NE(errc_name(row.code), errc_name(stray)) << row.name;
  }
  EXPECT_EQ(ephemeral_nn::errno_of(stray), ephemeral_nn::errno_of(Errc::unknown));
  EXPECT_EQ(wit_nn::error_code_case(stray), wit_nn::error_code_case(Errc::unknown));
  EXPECT_EQ(oip_server::http_status(stray), oip_server::http_status(Errc::unknown));
  EXPECT_EQ(oip_server::grpc_code(stray), oip_server::grpc_code(Errc::unknown));
  EXPECT_EQ(errc_from_plugin_status(WASINN_OK), Errc::unknown);
  EXPECT_EQ(errc_from_plugin_status(-1), Errc::unknown);
}

}  // namespace
}  // namespace wasinn::unit
