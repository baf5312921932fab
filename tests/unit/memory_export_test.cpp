// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// with_memory_export (src/engine/memory_export.h): a module that imports its memory gains a
// "memory" export and nothing else changes; other modules are left alone; bad bytes are an error.
// imports_shared_memory tells a wasi-threads module from its import section.
#include <gtest/gtest.h>

#include <string>

#include "engine/memory_export.h"

namespace wasinn {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

const Bytes kHeader{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
// (import "env" "memory" (memory 1 2 shared))
const Bytes kImportSharedMemory = cat({{0x02, 16, 1, 3}, text("env"), {6}, text("memory"), {0x02, 0x03, 1, 2}});
const Bytes kDataCount{0x0c, 0x01, 0x00};  // a section that must stay after the exports
const Bytes kMemoryEntry = cat({{6}, text("memory"), {0x02, 0x00}});
const Bytes kStartEntry = cat({{6}, text("_start"), {0x00, 0x00}});

TEST(MemoryExport, AModuleImportingItsMemoryGainsAnExportSectionBeforeLaterSections) {
  auto out = with_memory_export(cat({kHeader, kImportSharedMemory, kDataCount}));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->has_value());
  EXPECT_EQ(**out, cat({kHeader, kImportSharedMemory, {0x07, 10, 1}, kMemoryEntry, kDataCount}));
}

TEST(MemoryExport, AnExistingExportSectionGainsOneEntry) {
  auto out = with_memory_export(cat({kHeader, kImportSharedMemory, {0x07, 10, 1}, kStartEntry, kDataCount}));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->has_value());
  EXPECT_EQ(**out, cat({kHeader, kImportSharedMemory, {0x07, 19, 2}, kStartEntry, kMemoryEntry, kDataCount}));
}

TEST(MemoryExport, ModulesThatNeedNoExportAreLeftAlone) {
  auto exported = with_memory_export(cat({kHeader, kImportSharedMemory, {0x07, 10, 1}, kMemoryEntry}));
  ASSERT_TRUE(exported.ok());
  EXPECT_FALSE(exported->has_value()) << "it already exports a memory named memory";
  auto no_import = with_memory_export(cat({kHeader, {0x07, 10, 1}, kStartEntry}));
  ASSERT_TRUE(no_import.ok());
  EXPECT_FALSE(no_import->has_value()) << "it imports no memory";
}

TEST(MemoryExport, ASharedMemoryImportMakesAThreadsModule) {
  EXPECT_TRUE(imports_shared_memory(cat({kHeader, kImportSharedMemory, kDataCount})));
  // (import "env" "memory" (memory 1 2)): imported, not shared
  const Bytes plain = cat({{0x02, 16, 1, 3}, text("env"), {6}, text("memory"), {0x02, 0x01, 1, 2}});
  EXPECT_FALSE(imports_shared_memory(cat({kHeader, plain})));
  EXPECT_FALSE(imports_shared_memory(cat({kHeader, {0x07, 10, 1}, kStartEntry})));
  EXPECT_FALSE(imports_shared_memory(cat({kHeader, {0x02, 0x7f}}))) << "bytes that do not parse";
}

TEST(MemoryExport, BytesThatDoNotParseAreAnError) {
  for (const Bytes& bad : {Bytes{0x00, 0x61}, cat({kHeader, {0x02, 0x7f}}), cat({kHeader, {0x02, 3, 1, 3}}),
                           cat({kHeader, {0x02, 0xff, 0xff, 0xff, 0xff, 0x7f}})}) {
    auto out = with_memory_export(bad);
    EXPECT_FALSE(out.ok());
  }
}

}  // namespace
}  // namespace wasinn
