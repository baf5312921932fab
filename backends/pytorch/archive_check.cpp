// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "archive_check.h"

#include <caffe2/serialize/versions.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "pickle_scan.h"

namespace wasinn::pytorch {
namespace {

constexpr uint32_t kEocdSig = 0x06054b50, kLocatorSig = 0x07064b50, kEocd64Sig = 0x06064b50;
constexpr uint32_t kCentralSig = 0x02014b50, kLocalSig = 0x04034b50;
constexpr size_t kEocdSize = 22, kLocatorSize = 20, kEocd64Size = 56, kCentralSize = 46, kLocalSize = 30;
constexpr uint32_t kMax32 = 0xFFFFFFFF;
constexpr uint16_t kStored = 0, kDeflated = 8, kZip64Extra = 1;

uint64_t le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = v << 8 | p[i];
  return v;
}

sdk::Error bad(const std::string& what) { return sdk::invalid("a malformed TorchScript archive: " + what); }

// The end-of-central-directory record where miniz (libtorch's zip reader) finds it: scanning
// back from the end in 4 KiB windows for the last signature with a whole record after it,
// giving up 64 KiB + 22 bytes back. Replicated step for step so both read the same directory.
std::optional<size_t> find_eocd(std::span<const uint8_t> a) {
  constexpr size_t kWindow = 4096;
  if (a.size() < kEocdSize) return std::nullopt;
  size_t ofs = a.size() > kWindow ? a.size() - kWindow : 0;
  for (;;) {
    const size_t n = std::min(kWindow, a.size() - ofs);
    for (size_t i = n - 4 + 1; i-- > 0;)
      if (le(a.data() + ofs + i, 4) == kEocdSig && a.size() - (ofs + i) >= kEocdSize) return ofs + i;
    if (ofs == 0 || a.size() - ofs >= 0xFFFF + kEocdSize) return std::nullopt;
    ofs = ofs > kWindow - 3 ? ofs - (kWindow - 3) : 0;
  }
}

struct Directory {
  uint64_t offset = 0, size = 0, entries = 0;
};

// The central directory's extent and count from the end record, or from the zip64 end record
// when a locator precedes it (as miniz prefers them).
std::optional<std::string> read_directory(std::span<const uint8_t> a, size_t eocd, Directory& dir) {
  const uint8_t* e = a.data() + eocd;
  dir = {le(e + 16, 4), le(e + 12, 4), le(e + 10, 2)};
  if (eocd >= kLocatorSize + kEocd64Size && le(e - kLocatorSize, 4) == kLocatorSig) {
    const uint64_t at = le(e - kLocatorSize + 8, 8);
    if (at > a.size() - kEocd64Size) return "its zip64 end record lies past the end of the archive";
    const uint8_t* z = a.data() + at;
    if (le(z, 4) == kEocd64Sig) dir = {le(z + 48, 8), le(z + 40, 8), le(z + 32, 8)};
  }
  if (dir.offset > a.size() || dir.size > a.size() - dir.offset)
    return "its central directory (" + std::to_string(dir.size) + " bytes at " + std::to_string(dir.offset) +
           ") lies past the end of the archive";
  if (dir.entries > dir.size / kCentralSize)
    return "its central directory of " + std::to_string(dir.size) + " bytes claims " + std::to_string(dir.entries) +
           " entries";
  return std::nullopt;
}

struct Entry {
  std::string name;
  uint16_t method = 0, flags = 0;
  uint32_t crc = 0, attributes = 0;          // attributes: the external ones, DOS's in the low bits
  uint64_t stored = 0, size = 0, local = 0;  // compressed size, uncompressed size, local header offset
  uint64_t data = 0;                         // where its bytes start: found by check_entry
};

// A field of 0xFFFFFFFF is in the entry's zip64 extra field, in this order (as miniz reads it).
std::optional<std::string> apply_zip64(std::span<const uint8_t> extra, Entry& e) {
  while (extra.size() >= 4) {
    const uint64_t id = le(extra.data(), 2), n = le(extra.data() + 2, 2);
    if (n > extra.size() - 4) return "its extra field is cut off";
    if (id == kZip64Extra) {
      std::span<const uint8_t> f = extra.subspan(4, n);
      for (uint64_t* v : {&e.size, &e.stored, &e.local}) {
        if (*v != kMax32) continue;
        if (f.size() < 8) return "its zip64 field is too short";
        *v = le(f.data(), 8);
        f = f.subspan(8);
      }
      return std::nullopt;
    }
    extra = extra.subspan(4 + n);
  }
  return std::nullopt;
}

std::string printable(std::string_view name) {
  std::string out(name.substr(0, 120));
  for (char& c : out) c = (c >= 32 && c < 127) ? c : '?';
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A record libtorch may unpickle: data.pkl, constants.pkl, *.debug_pkl (miniz finds names
// case-insensitively). Files under extra/ are the saver's own bytes, which a load never parses.
bool is_pickle(std::string_view name) {
  const std::string n = lower(name);
  const size_t slash = n.find('/');
  if (slash != std::string::npos && n.compare(slash + 1, 6, "extra/") == 0) return false;
  return n.size() >= 3 && n.compare(n.size() - 3, 3, "pkl") == 0;
}

// A deflated pickle's bytes, inflated into at most its declared size (already bounded).
std::optional<std::string> inflate_entry(std::span<const uint8_t> in, uint64_t size, std::vector<uint8_t>& out) {
  if (size > UINT32_MAX) return "it declares " + std::to_string(size) + " bytes, more than a pickle this check reads";
  out.assign(static_cast<size_t>(size), 0);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return "zlib could not start";
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(std::min<uint64_t>(in.size(), UINT32_MAX));
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int r = inflate(&z, Z_FINISH);
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (r != Z_STREAM_END)
    return r == Z_BUF_ERROR && z.avail_out == 0
               ? "it inflates to more than the " + std::to_string(size) + " bytes it declares"
               : std::string("its deflate stream is malformed");
  out.resize(static_cast<size_t>(produced));
  return std::nullopt;
}

// An entry's bytes as libtorch extracts them: in place when stored, else inflated into `buffer`.
std::optional<std::string> contents(std::span<const uint8_t> a, const Entry& e, std::vector<uint8_t>& buffer,
                                    std::span<const uint8_t>& out) {
  out = a.subspan(static_cast<size_t>(e.data), static_cast<size_t>(e.stored));
  if (e.method == kStored) return std::nullopt;
  if (auto why = inflate_entry(out, e.size, buffer)) return why;
  out = buffer;
  return std::nullopt;
}

// One entry: where its data lies, whether its declared size can be believed, and its pickle.
std::optional<std::string> check_entry(std::span<const uint8_t> a, Entry& e) {
  // miniz extracts nothing for a folder, and libtorch then reads the buffer it allocated for
  // the declared size as the record: heap bytes a model could hand back to the guest.
  constexpr uint32_t kDosFolder = 0x10;
  const bool folder = (!e.name.empty() && e.name.back() == '/') || (e.attributes & kDosFolder);
  if (folder && e.size != 0)
    return "it is marked as a folder (by its name or its DOS attributes) but declares " + std::to_string(e.size) +
           " bytes, which libtorch would take from uninitialised memory";
  if (e.method != kStored && e.method != kDeflated)
    return "it is compressed with method " + std::to_string(e.method) + "; libtorch reads stored and deflated entries";
  if (e.local > a.size() || a.size() - e.local < kLocalSize || le(a.data() + e.local, 4) != kLocalSig)
    return "it has no local header at " + std::to_string(e.local);
  const uint8_t* h = a.data() + e.local;
  e.data = e.local + kLocalSize + le(h + 26, 2) + le(h + 28, 2);
  if (e.data > a.size() || e.stored > a.size() - e.data)
    return "its " + std::to_string(e.stored) + " bytes at " + std::to_string(e.data) +
           " run past the end of the archive";
  if (e.method == kStored && e.size != e.stored)
    return "it is stored in " + std::to_string(e.stored) + " bytes but declares " + std::to_string(e.size);
  if (e.method == kDeflated && e.size / kDeflateMaxRatio > e.stored)
    return "it declares " + std::to_string(e.size) + " bytes, more than its " + std::to_string(e.stored) +
           " deflated bytes can hold";
  if (!is_pickle(e.name)) return std::nullopt;
  std::vector<uint8_t> buffer;
  std::span<const uint8_t> pickle;
  if (auto why = contents(a, e, buffer, pickle)) return why;
  if (std::string why = scan_pickle(pickle); !why.empty()) return why;
  return std::nullopt;
}

// A version record as libtorch reads it (caffe2::stoull, then its supported range), CRC included:
// miniz checks it when libtorch extracts the record.
std::optional<std::string> check_version(std::span<const uint8_t> a, const Entry& e) {
  constexpr uint16_t kEncrypted = 0x01, kPatched = 0x20, kStrongEncryption = 0x40;
  if (e.flags & (kEncrypted | kPatched | kStrongEncryption)) return "it is encrypted or patched";
  std::vector<uint8_t> buffer;
  std::span<const uint8_t> text;
  if (auto why = contents(a, e, buffer, text)) return why;
  if (text.size() != e.size || crc32(0, text.data(), static_cast<uInt>(text.size())) != e.crc)
    return "its bytes do not match their CRC-32";
  size_t at = 0;
  while (at < text.size() && std::isspace(text[at])) ++at;
  if (at < text.size() && text[at] == '+') ++at;
  uint64_t version = 0;
  const size_t digits = at;
  constexpr uint64_t kEnough = 100'000'000'000'000'000;  // past any version; no overflow below
  for (; at < text.size() && std::isdigit(text[at]) && version < kEnough; ++at)
    version = version * 10 + (text[at] - '0');
  if (at == digits) return "it holds no version number";
  if (version < caffe2::serialize::kMinSupportedFileFormatVersion ||
      version > caffe2::serialize::kMaxSupportedFileFormatVersion)
    return "its version " + std::to_string(version) + " is not one this libtorch reads (" +
           std::to_string(caffe2::serialize::kMinSupportedFileFormatVersion) + " to " +
           std::to_string(caffe2::serialize::kMaxSupportedFileFormatVersion) + ")";
  return std::nullopt;
}

// What libtorch's PyTorchStreamReader needs to open an archive: an entry, the first one in a
// folder (the archive's name), and a readable version record there (".data/version", else
// "version"; miniz finds names case-insensitively). When any of these fails it throws from its
// constructor and leaks miniz's reader state (F11 in docs/reliability.md), so it is checked here.
std::optional<std::string> check_open(std::span<const uint8_t> a, const std::vector<Entry>& entries) {
  if (entries.empty()) return "it holds no entries";
  const size_t slash = entries[0].name.find('/');
  if (slash == std::string::npos) return "its first entry '" + printable(entries[0].name) + "' is not in a folder";
  const std::string folder = lower(entries[0].name.substr(0, slash + 1));
  for (const char* record : {".data/version", "version"}) {
    bool found = false;
    for (const Entry& e : entries) {
      if (lower(e.name) != folder + record) continue;
      found = true;
      if (auto why = check_version(a, e)) return "its version record '" + printable(e.name) + "': " + *why;
    }
    if (found) return std::nullopt;
  }
  return "it holds no version record ('" + printable(folder) + "version')";
}

}  // namespace

sdk::Error check_archive(std::span<const uint8_t> archive) {
  const std::optional<size_t> eocd = find_eocd(archive);
  if (!eocd) return {};  // not a zip: libtorch says so itself
  Directory dir;
  if (auto why = read_directory(archive, *eocd, dir)) return bad(*why);
  std::span<const uint8_t> rest = archive.subspan(static_cast<size_t>(dir.offset), static_cast<size_t>(dir.size));
  std::vector<Entry> entries;  // at most one per 46 bytes of the directory
  for (uint64_t i = 0; i < dir.entries; ++i) {
    if (rest.size() < kCentralSize || le(rest.data(), 4) != kCentralSig)
      return bad("central directory entry " + std::to_string(i) + " is cut off or has no signature");
    const uint8_t* c = rest.data();
    const uint64_t name_len = le(c + 28, 2), extra_len = le(c + 30, 2), comment_len = le(c + 32, 2);
    if (kCentralSize + name_len + extra_len + comment_len > rest.size())
      return bad("central directory entry " + std::to_string(i) + " runs past the directory");
    Entry e;
    e.name.assign(reinterpret_cast<const char*>(c + kCentralSize), name_len);
    e.flags = static_cast<uint16_t>(le(c + 8, 2));
    e.method = static_cast<uint16_t>(le(c + 10, 2));
    e.crc = static_cast<uint32_t>(le(c + 16, 4));
    e.attributes = static_cast<uint32_t>(le(c + 38, 4));
    e.stored = le(c + 20, 4);
    e.size = le(c + 24, 4);
    e.local = le(c + 42, 4);
    std::optional<std::string> why;
    if (e.stored == kMax32 || e.size == kMax32 || e.local == kMax32)
      why = apply_zip64(rest.subspan(kCentralSize + name_len, extra_len), e);
    if (!why) why = check_entry(archive, e);
    if (why) return bad("entry '" + printable(e.name) + "': " + *why);
    rest = rest.subspan(kCentralSize + name_len + extra_len + comment_len);
    entries.push_back(std::move(e));
  }
  if (auto why = check_open(archive, entries)) return bad(*why);
  return {};
}

}  // namespace wasinn::pytorch
