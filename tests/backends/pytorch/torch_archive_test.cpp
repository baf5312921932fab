// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Archives that declare more than they hold (backends/pytorch/archive_check.h): each is
// invalid_argument naming the entry and what is wrong, before libtorch allocates what it
// declares; every input fuzz_load_pytorch found (tests/fuzz/regressions/pytorch/) is refused
// too; and the plugin loads the digits model next.
#include <zlib.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "native_torch.h"

namespace wasinn_test {
namespace {

using ::testing::HasSubstr;
using Bytes = std::vector<uint8_t>;

void put(Bytes& b, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void append(Bytes& b, const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }

struct ZipEntry {
  std::string name;
  Bytes data;
  bool deflate = false;
  uint64_t declared = 0;  // the uncompressed size the directory states; 0: the true one
};

// A zip as PyTorch's writer lays it out (local headers, data, central directory, end record),
// with zlib's CRC-32 (libtorch's reader checks it) and raw deflate where asked.
Bytes zip(const std::vector<ZipEntry>& entries) {
  Bytes out, dir;
  for (const ZipEntry& e : entries) {
    Bytes body = e.data;
    if (e.deflate) {
      z_stream z{};
      EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
      body.resize(deflateBound(&z, e.data.size()));
      z.next_in = const_cast<Bytef*>(e.data.data());
      z.avail_in = static_cast<uInt>(e.data.size());
      z.next_out = body.data();
      z.avail_out = static_cast<uInt>(body.size());
      EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
      body.resize(z.total_out);
      deflateEnd(&z);
    }
    const uint32_t crc = static_cast<uint32_t>(crc32(0, e.data.data(), static_cast<uInt>(e.data.size())));
    const uint64_t size = e.declared ? e.declared : e.data.size();
    const uint64_t local = out.size();
    const uint16_t method = e.deflate ? 8 : 0;
    put(out, 0x04034b50, 4), put(out, 20, 2), put(out, 0, 2), put(out, method, 2), put(out, 0, 4);
    put(out, crc, 4), put(out, body.size(), 4), put(out, size, 4), put(out, e.name.size(), 2), put(out, 0, 2);
    append(out, e.name);
    out.insert(out.end(), body.begin(), body.end());
    put(dir, 0x02014b50, 4), put(dir, 20, 2), put(dir, 20, 2), put(dir, 0, 2), put(dir, method, 2), put(dir, 0, 4);
    put(dir, crc, 4), put(dir, body.size(), 4), put(dir, size, 4), put(dir, e.name.size(), 2), put(dir, 0, 2);
    put(dir, 0, 2), put(dir, 0, 2), put(dir, 0, 2), put(dir, 0, 4), put(dir, local, 4);
    append(dir, e.name);
  }
  const uint64_t dir_at = out.size();
  out.insert(out.end(), dir.begin(), dir.end());
  put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2), put(out, entries.size(), 2), put(out, entries.size(), 2);
  put(out, dir.size(), 4), put(out, dir_at, 4), put(out, 0, 2);
  return out;
}

// Pickle pieces (protocol 2), as torch.jit.save writes them.
Bytes pickle(std::initializer_list<Bytes> parts) {
  Bytes b = {0x80, 2};
  for (const Bytes& p : parts) b.insert(b.end(), p.begin(), p.end());
  b.push_back('.');  // STOP
  return b;
}
Bytes unicode(const std::string& s) {
  Bytes b = {'X'};
  put(b, s.size(), 4);
  append(b, s);
  return b;
}
// ('storage', torch.FloatStorage, KEY, 'cpu', NUMEL) then BINPERSID: the tensor of record data/KEY.
Bytes storage(const std::string& key, uint32_t numel) {
  Bytes b = {'('};
  for (const Bytes& p : {unicode("storage"), Bytes{'c'}}) b.insert(b.end(), p.begin(), p.end());
  append(b, "torch\nFloatStorage\n");
  for (const Bytes& p : {unicode(key), unicode("cpu")}) b.insert(b.end(), p.begin(), p.end());
  b.push_back('J');
  put(b, numel, 4);
  b.push_back('t');
  b.push_back('Q');
  return b;
}

int load_archive(const Bytes& archive, Diag& d) {
  Backend b(api());
  Graph g;
  const int st = load_bytes(b, {archive}, g, d);
  EXPECT_EQ(g.ptr == nullptr, st != WASINN_OK);
  return st;
}

void expect_digits_load() {
  Backend b(api());
  Graph g;
  Diag d;
  EXPECT_EQ(load_bytes(b, {read_fixture("digits/model.pt")}, g, d), WASINN_OK) << d.detail;
}

TEST(TorchArchive, APickleLengthPastItsBytesIsRefusedBeforeLibtorchReservesIt) {
  // fuzz_load_pytorch's shape: a BINUNICODE claiming 4,294,966,281 bytes in a 2 KB archive.
  Bytes data = pickle({Bytes{'X', 0x09, 0xfc, 0xff, 0xff}, Bytes(40, 'a')});
  Diag d;
  EXPECT_EQ(load_archive(zip({{"archive/version", {'3', '\n'}},
                              {"archive/constants.pkl", pickle({Bytes{')'}})},
                              {"archive/data.pkl", data}}),
                         d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("a malformed TorchScript archive: entry 'archive/data.pkl': BINUNICODE at byte 2 "
                                  "claims 4294966281 bytes, 41 remain"));
  expect_digits_load();
}

TEST(TorchArchive, EveryLengthCarryingOpcodeAndTheMemoAreBounded) {
  const std::vector<std::pair<Bytes, std::string>> cases = {
      {{'B', 0, 0, 0, 0x40}, "BINBYTES at byte 2 claims 1073741824 bytes"},
      {{'T', 0xff, 0xff, 0xff, 0xff}, "BINSTRING at byte 2 has a negative length"},
      {{0x8e, 0, 0, 0, 0, 0, 0, 0, 1}, "BINBYTES8 at byte 2 claims 72057594037927936 bytes"},
      {{0x8d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "BINUNICODE8 at byte 2 claims 18446744073709551615"},
      {{0x96, 0, 0, 0, 1, 0, 0, 0, 0}, "BYTEARRAY8 at byte 2 claims 16777216 bytes"},
      {{0x95, 0, 0, 0, 0, 1, 0, 0, 0}, "FRAME at byte 2 claims 4294967296 bytes"},
      {{0x8b, 0, 0, 0, 0x10}, "LONG4 at byte 2 claims 268435456 bytes"},
      {{'U', 200}, "SHORT_BINSTRING at byte 2 claims 200 bytes"},
      {{']', 'r', 0, 0, 0, 0x10}, "LONG_BINPUT at byte 3 stores memo index 268435456"},
      {{'c', 't', 'o', 'r', 'c', 'h'}, "GLOBAL at byte 2 has no newline"},
      {{0xff}, "byte 2 (0xff) is not a pickle opcode"},
  };
  for (const auto& [ops, why] : cases) {
    Bytes data = {0x80, 2};
    data.insert(data.end(), ops.begin(), ops.end());  // no STOP: each stops the scan first
    Diag d;
    EXPECT_EQ(load_archive(zip({{"archive/version", {'3', '\n'}}, {"archive/data.pkl", data}}), d),
              WASINN_INVALID_ARGUMENT)
        << why;
    EXPECT_THAT(d.detail, HasSubstr(why));
  }
}

TEST(TorchArchive, DeclaredSizesMustFitTheArchive) {
  Diag d;
  // A stored record that declares 2 GiB: libtorch's getRecord would allocate it before reading.
  EXPECT_EQ(load_archive(zip({{"archive/version", {'3', '\n'}}, {"archive/data/0", Bytes(64, 0), false, 1u << 31}}), d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("entry 'archive/data/0': it is stored in 64 bytes but declares 2147483648"));
  // A deflated record declaring more than deflate can expand its bytes to.
  EXPECT_EQ(
      load_archive(zip({{"archive/version", {'3', '\n'}}, {"archive/code/x.py", Bytes(64, ' '), true, 1u << 30}}), d),
      WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("entry 'archive/code/x.py': it declares 1073741824 bytes, more than its"));
  // A deflated pickle is inflated and scanned as well (torch.jit.save deflates *.debug_pkl).
  EXPECT_EQ(load_archive(zip({{"archive/version", {'3', '\n'}},
                              {"archive/code/x.py.debug_pkl", pickle({Bytes{'X', 0, 0, 0, 0x40}}), true}}),
                         d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("entry 'archive/code/x.py.debug_pkl': BINUNICODE at byte 2 claims 1073741824"));
  expect_digits_load();
}

TEST(TorchArchive, ARecordMarkedAsAFolderIsRefused) {
  // miniz extracts nothing for a folder, so libtorch loaded digits' first weights from memory it
  // never wrote (the load succeeded, the weights were whatever the buffer held).
  Bytes model = read_fixture("digits/model.pt");
  size_t marked = 0;
  for (size_t at = 0; at + 46 <= model.size(); ++at) {
    if (model[at] != 'P' || model[at + 1] != 'K' || model[at + 2] != 1 || model[at + 3] != 2) continue;
    const size_t name_len = model[at + 28] | model[at + 29] << 8;
    const std::string name(model.begin() + at + 46, model.begin() + at + 46 + name_len);
    if (name.size() >= 7 && name.compare(name.size() - 7, 7, "/data/0") == 0) {
      model[at + 38] |= 0x10;  // DOS attributes: a folder
      ++marked;
    }
  }
  ASSERT_EQ(marked, 1u);
  Diag d;
  EXPECT_EQ(load_archive(model, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("/data/0': it is marked as a folder"));
}

TEST(TorchArchive, WhatLibtorchNeedsToOpenAnArchiveIsCheckedFirst) {
  // libtorch's reader throws from its constructor on each of these and leaks its zip state (F11).
  const Bytes data = pickle({Bytes{')'}});
  const std::vector<std::pair<std::vector<ZipEntry>, std::string>> cases = {
      {{}, "it holds no entries"},
      {{{"data.pkl", data}, {"version", {'3'}}}, "its first entry 'data.pkl' is not in a folder"},
      {{{"a/data.pkl", data}}, "it holds no version record ('a/version')"},
      {{{"a/data.pkl", data}, {"a/version", {'x', '3'}}}, "'a/version': it holds no version number"},
      {{{"a/data.pkl", data}, {"a/version", {'0'}}}, "'a/version': its version 0 is not one this libtorch reads"},
      {{{"a/data.pkl", data}, {"a/version", {'9', '9'}}}, "its version 99 is not one"},
      {{{"a/data.pkl", data}, {"a/version", {'3'}}, {"A/.DATA/VERSION", {'-', '1'}}}, "'A/.DATA/VERSION': it holds no"},
  };
  for (const auto& [entries, why] : cases) {
    Diag d;
    EXPECT_EQ(load_archive(zip(entries), d), WASINN_INVALID_ARGUMENT) << why;
    EXPECT_THAT(d.detail, HasSubstr(why));
  }
  // The version record's CRC-32 as miniz checks it.
  Bytes archive = zip({{"a/data.pkl", data}, {"a/version", {'3', '\n'}}});
  archive[archive.size() - 22 - 46 - 9 + 16] ^= 1;  // the last central entry's CRC ("a/version", 9 bytes)
  Diag d;
  EXPECT_EQ(load_archive(archive, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("'a/version': its bytes do not match their CRC-32"));
  expect_digits_load();
}

TEST(TorchArchive, APickleLoadingOneStorageAgainAndAgainIsStopped) {
  // torch.jit.save loads each storage once (memoized); this one loads a 1 MiB record 64 times.
  Bytes loads = {']', '('};
  for (int i = 0; i < 64; ++i) {
    const Bytes one = storage("0", 1 << 18);
    loads.insert(loads.end(), one.begin(), one.end());
  }
  loads.push_back('e');  // APPENDS
  const Bytes archive = zip({{"archive/version", {'3', '\n'}},
                             {"archive/constants.pkl", pickle({Bytes{')'}})},
                             {"archive/data.pkl", pickle({loads})},
                             {"archive/data/0", Bytes(1 << 20, 0)}});
  Diag d;
  EXPECT_EQ(load_archive(archive, d), WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, HasSubstr("a malformed TorchScript archive: libtorch read"));
  EXPECT_THAT(d.detail, HasSubstr("the same storage again and again"));
  expect_digits_load();
}

TEST(TorchArchive, EveryFuzzRegressionIsRefused) {
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(WASINN_PYTORCH_REGRESSIONS)) {
    if (entry.path().extension() != ".fuzz_load_pytorch") continue;
    ++seen;
    Diag d;
    EXPECT_EQ(load_archive(read_file(entry.path()), d), WASINN_INVALID_ARGUMENT) << entry.path();
    EXPECT_FALSE(d.detail.empty()) << entry.path();
  }
  EXPECT_GE(seen, 1u) << "no regression inputs in " << WASINN_PYTORCH_REGRESSIONS;
  expect_digits_load();
}

TEST(TorchArchive, ExtraFilesAreNotTakenForPickles) {
  // torch.jit.save's _extra_files may be named anything, *.pkl too; a load never parses them.
  Diag d;
  EXPECT_EQ(load_archive(zip({{"archive/version", {'3', '\n'}}, {"archive/extra/notes.pkl", {'h', 'i'}}}), d),
            WASINN_INVALID_ARGUMENT);
  EXPECT_THAT(d.detail, ::testing::Not(HasSubstr("malformed TorchScript archive")));
  EXPECT_THAT(d.detail, HasSubstr("constants.pkl"));  // libtorch's own reason: no constants
}

TEST(TorchArchive, EveryFixtureArchivePassesTheCheck) {
  // Real archives (torch.jit.save's, deflated code and debug pickles included) load as before.
  for (const char* rel : {"digits/model.pt", "types/two_in_three_out.pt", "types/dict_out.pt", "types/counter.pt"}) {
    Backend b(api());
    Graph g;
    Diag d;
    EXPECT_EQ(load_bytes(b, {read_fixture(rel)}, g, d), WASINN_OK) << rel << ": " << d.detail;
  }
}

}  // namespace
}  // namespace wasinn_test
