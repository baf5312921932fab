// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/memory_export.h"

#include <string_view>

namespace wasinn {

namespace {

constexpr uint8_t kImportSection = 2;
constexpr uint8_t kExportSection = 7;
constexpr uint8_t kMemoryKind = 2;
constexpr std::string_view kMemory = "memory";

// Reads the module's unsigned LEB128 values and names, never past its end.
struct Reader {
  std::span<const uint8_t> bytes;
  size_t at = 0;
  bool ok = true;

  uint32_t u32() {
    uint64_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (at >= bytes.size()) break;
      const uint8_t b = bytes[at++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v <= UINT32_MAX ? static_cast<uint32_t>(v) : (ok = false, 0);
    }
    ok = false;
    return 0;
  }
  uint8_t byte() { return at < bytes.size() ? bytes[at++] : (ok = false, 0); }
  std::string_view name() {
    const uint32_t n = u32();
    if (!ok || n > bytes.size() - at) return ok = false, std::string_view();
    std::string_view s(reinterpret_cast<const char*>(bytes.data() + at), n);
    at += n;
    return s;
  }
  void skip_limits() {
    const uint8_t flags = byte();
    u32();
    if (flags & 1) u32();
  }
};

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(b | (v ? 0x80 : 0));
  } while (v);
}

std::vector<uint8_t> memory_export_entry() {
  std::vector<uint8_t> e;
  put_u32(e, kMemory.size());
  e.insert(e.end(), kMemory.begin(), kMemory.end());
  e.push_back(kMemoryKind);
  put_u32(e, 0);  // memory index 0: an imported memory comes first in the index space
  return e;
}

// What with_memory_export and imports_shared_memory need to know of a module's sections.
struct Sections {
  bool imports_memory = false;
  bool memory_shared = false;            // the imported memory's limits have the shared flag
  bool exports_memory = false;           // an export is named "memory"
  size_t export_at = 0, export_end = 0;  // the export section's whole extent, id byte included
  size_t export_entries = 0;             // offset of its first entry
  uint32_t export_count = 0;
  size_t insert_at = 0;  // where a new export section goes: before the first later section
};

Result<Sections> scan(std::span<const uint8_t> wasm) {
  const auto bad = [] { return make_error(Errc::invalid_argument, "the module's sections cannot be parsed"); };
  if (wasm.size() < 8) return bad();
  Sections out;
  out.insert_at = wasm.size();
  Reader r{wasm, 8};
  while (r.at < wasm.size()) {
    const size_t start = r.at;
    const uint8_t id = r.byte();
    const uint32_t size = r.u32();
    if (!r.ok || size > wasm.size() - r.at) return bad();
    const size_t body = r.at, end = body + size;
    Reader s{wasm.subspan(0, end), body};
    if (id == kImportSection) {
      for (uint32_t n = s.u32(); s.ok && n > 0; --n) {
        s.name();
        s.name();
        const uint8_t kind = s.byte();
        if (kind == 0)
          s.u32();  // function: type index
        else if (kind == 1) {
          s.byte();
          s.skip_limits();
        }  // table: element type, limits
        else if (kind == kMemoryKind) {
          out.imports_memory = true;
          out.memory_shared = s.at < s.bytes.size() && (s.bytes[s.at] & 2);  // limits flag 0x02: shared
          s.skip_limits();
        } else if (kind == 3) {
          s.byte();
          s.byte();
        }  // global: type, mutability
        else if (kind == 4) {
          s.byte();
          s.u32();
        }  // tag
        else
          s.ok = false;
      }
    } else if (id == kExportSection) {
      out.export_at = start;
      out.export_end = end;
      out.export_count = s.u32();
      out.export_entries = s.at;
      for (uint32_t n = out.export_count; s.ok && n > 0; --n) {
        if (s.name() == kMemory) out.exports_memory = true;
        s.byte();
        s.u32();
      }
    } else if (id >= 8 && id <= 12 && out.insert_at == wasm.size()) {
      out.insert_at = start;  // start, element, data count, code and data follow the exports
    }
    if (!s.ok) return bad();
    r.at = end;
  }
  return out;
}

}  // namespace

bool imports_shared_memory(std::span<const uint8_t> wasm) {
  auto sections = scan(wasm);
  return sections && sections->memory_shared;
}

Result<std::optional<std::vector<uint8_t>>> with_memory_export(std::span<const uint8_t> wasm) {
  auto scanned = scan(wasm);
  if (!scanned) return scanned.take_error();
  const Sections& sec = *scanned;
  if (!sec.imports_memory || sec.exports_memory) return std::optional<std::vector<uint8_t>>();

  std::vector<uint8_t> payload;
  put_u32(payload, sec.export_count + 1);
  if (sec.export_at) payload.insert(payload.end(), wasm.begin() + sec.export_entries, wasm.begin() + sec.export_end);
  const auto entry = memory_export_entry();
  payload.insert(payload.end(), entry.begin(), entry.end());
  std::vector<uint8_t> section{kExportSection};
  put_u32(section, static_cast<uint32_t>(payload.size()));
  section.insert(section.end(), payload.begin(), payload.end());

  std::vector<uint8_t> out;
  out.reserve(wasm.size() + section.size());
  const size_t cut = sec.export_at ? sec.export_at : sec.insert_at;
  const size_t resume = sec.export_at ? sec.export_end : sec.insert_at;
  out.insert(out.end(), wasm.begin(), wasm.begin() + cut);
  out.insert(out.end(), section.begin(), section.end());
  out.insert(out.end(), wasm.begin() + resume, wasm.end());
  return std::optional<std::vector<uint8_t>>(std::move(out));
}

}  // namespace wasinn
