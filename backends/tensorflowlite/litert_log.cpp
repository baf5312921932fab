// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "litert_log.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "litert_c_api.h"
#include "wasinn/plugin_sdk/log.hpp"

namespace wasinn::tensorflowlite {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
constexpr uint32_t kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
constexpr uint32_t kGlobDat = R_AARCH64_GLOB_DAT;
#else
constexpr uint16_t kMachine = EM_NONE;  // no routing: LiteRT writes to stderr
constexpr uint32_t kGlobDat = 0;
#endif

// The innermost LiteRtErrorCapture of this thread. LiteRT writes a line on the thread whose call
// logged it, and the thread writing its end is the one that assembles it below.
thread_local LiteRtErrorCapture* error_capture = nullptr;

// ---- The stream LiteRT writes to: bytes in, one sdk::log call per line out.

struct LineSplitter {
  std::mutex mu;
  std::string carry;                          // the unfinished line
  wasinn_log_level level = WASINN_LOG_ERROR;  // of the last line with a severity prefix
};

// Abseil's prefix, as the GPU accelerator's own logging writes it:
// "I0000 00:00:1795534896.553663   18451 environment.cc:532] Selected adapter: ...". Strips it and
// returns the level, or WASINN_LOG_OFF when the line has none.
wasinn_log_level take_absl_severity(std::string_view& line) {
  if (line.size() < 6 || line.find_first_of("IWEF") != 0) return WASINN_LOG_OFF;
  for (size_t i = 1; i < 5; ++i)
    if (line[i] < '0' || line[i] > '9') return WASINN_LOG_OFF;
  if (line[5] != ' ') return WASINN_LOG_OFF;
  const size_t end = line.find("] ");
  if (end == std::string_view::npos) return WASINN_LOG_OFF;
  const char letter = line[0];
  line.remove_prefix(end + 2);
  return letter == 'I' ? WASINN_LOG_INFO : letter == 'W' ? WASINN_LOG_WARN : WASINN_LOG_ERROR;
}

// Strips MinimalLogger's "INFO: " prefix (or Abseil's, or Dawn's "Warning: ") and returns its
// level. A line without one continues a multi-line message and keeps the level of the line
// before.
wasinn_log_level take_severity(std::string_view& line, wasinn_log_level previous) {
  static constexpr struct {
    std::string_view prefix;
    wasinn_log_level level;
  } kPrefixes[] = {{"VERBOSE: ", WASINN_LOG_DEBUG},
                   {"INFO: ", WASINN_LOG_INFO},
                   {"WARNING: ", WASINN_LOG_WARN},
                   {"ERROR: ", WASINN_LOG_ERROR},
                   {"Warning: ", WASINN_LOG_WARN}};
  for (const auto& p : kPrefixes)
    if (line.substr(0, p.prefix.size()) == p.prefix) {
      line.remove_prefix(p.prefix.size());
      return p.level;
    }
  if (const wasinn_log_level absl = take_absl_severity(line); absl != WASINN_LOG_OFF) return absl;
  return previous;
}

ssize_t write_lines(void* cookie, const char* data, size_t size) {
  constexpr size_t kLongestLine = 64 * 1024;  // a line without end is cut here
  auto& s = *static_cast<LineSplitter*>(cookie);
  try {
    std::lock_guard lock(s.mu);
    s.carry.append(data, size);
    size_t start = 0;
    while (true) {
      size_t end = s.carry.find('\n', start);
      if (end == std::string::npos) {
        if (s.carry.size() - start <= kLongestLine) break;
        end = s.carry.size();
      }
      std::string_view line(s.carry.data() + start, end - start);
      s.level = take_severity(line, s.level);
      if (s.level == WASINN_LOG_ERROR && error_capture) error_capture->add(line);
      if (sdk::log_enabled(s.level)) sdk::log(s.level, line);
      start = std::min(end + 1, s.carry.size());
    }
    s.carry.erase(0, start);
  } catch (const std::exception&) {
    // Out of memory while logging: the line is lost, LiteRT carries on.
  }
  return static_cast<ssize_t>(size);
}

// The stream and the FILE * that libLiteRt.so's stderr slot points at. Never closed: LiteRT may
// log until the process ends.
FILE* routed_stderr = nullptr;

// The cookie behind routed_stderr, for the rest of the process. A global, not only the FILE's
// cookie: glibc keeps the cookie where LeakSanitizer does not look.
LineSplitter* routed_lines = nullptr;

FILE* open_stream() {
  cookie_io_functions_t io{};
  io.write = write_lines;
  routed_lines = new LineSplitter();
  FILE* f = fopencookie(routed_lines, "w", io);
  // Unbuffered: each of LiteRT's calls reaches write_lines at once, which assembles the lines.
  if (f) setvbuf(f, nullptr, _IONBF, 0);
  return f;
}

// ---- Finding libLiteRt.so's GOT slot for `stderr`, from the file's relocation table.

bool read_at(int fd, uint64_t offset, void* out, size_t size) {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = pread(fd, p, size, static_cast<off_t>(offset));
    if (n <= 0) return false;
    p += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return true;
}

template <typename T>
bool read_table(int fd, const Elf64_Shdr& section, std::vector<T>& out) {
  out.resize(section.sh_size / sizeof(T));
  return read_at(fd, section.sh_offset, out.data(), out.size() * sizeof(T));
}

// The link-time address of the GLOB_DAT slot for symbol `name` in the ELF file `path`, or why not.
std::optional<uint64_t> glob_dat_slot(const char* path, std::string_view name, std::string& why) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = std::string("cannot open ") + path;
    return std::nullopt;
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  Elf64_Ehdr eh{};
  if (!read_at(fd, 0, &eh, sizeof eh) ||
      std::string_view(reinterpret_cast<char*>(eh.e_ident), 4) != std::string_view(ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != kMachine || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    why = "not a 64-bit ELF file of this machine";
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(fd, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) {
    why = "unreadable section headers";
    return std::nullopt;
  }
  for (const Elf64_Shdr& rela : sections) {
    if (rela.sh_type != SHT_RELA || rela.sh_link >= sections.size()) continue;
    const Elf64_Shdr& symtab = sections[rela.sh_link];
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= sections.size()) continue;
    std::vector<Elf64_Rela> relocations;
    std::vector<Elf64_Sym> symbols;
    std::vector<char> names;
    if (!read_table(fd, rela, relocations) || !read_table(fd, symtab, symbols) ||
        !read_table(fd, sections[symtab.sh_link], names)) {
      why = "unreadable relocation tables";
      return std::nullopt;
    }
    for (const Elf64_Rela& r : relocations) {
      if (ELF64_R_TYPE(r.r_info) != kGlobDat) continue;
      const size_t sym = ELF64_R_SYM(r.r_info);
      if (sym >= symbols.size() || symbols[sym].st_name >= names.size()) continue;
      const char* symbol = names.data() + symbols[sym].st_name;
      if (std::string_view(symbol, strnlen(symbol, names.size() - symbols[sym].st_name)) == name) return r.r_offset;
    }
  }
  why = "no GLOB_DAT relocation for stderr";
  return std::nullopt;
}

// The protection of the page holding `address`, from /proc/self/maps.
std::optional<int> page_protection(uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    uintptr_t from = 0, to = 0;
    char dash = 0;
    std::string perms;
    if (!(in >> std::hex >> from >> dash >> to >> perms) || address < from || address >= to) continue;
    int prot = PROT_NONE;
    if (perms.size() >= 3) {
      if (perms[0] == 'r') prot |= PROT_READ;
      if (perms[1] == 'w') prot |= PROT_WRITE;
      if (perms[2] == 'x') prot |= PROT_EXEC;
    }
    return prot;
  }
  return std::nullopt;
}

// Points the stderr slot of the loaded library `path` at routed_stderr; returns why not, or ""
// when done. Called under the once-flags below, one library at a time.
std::string redirect(const char* path) {
  if (kMachine == EM_NONE) return "not an x86-64 or AArch64 build";
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  link_map* map = nullptr;
  if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return std::string("no link map for ") + path;
  std::string why;
  const std::optional<uint64_t> offset = glob_dat_slot(path, "stderr", why);
  if (!offset) return std::string(path) + ": " + why;
  const auto address = static_cast<uintptr_t>(map->l_addr + *offset);
  auto** slot = reinterpret_cast<FILE***>(address);
  // The slot must hold the stderr this process uses; anything else is not ours to change.
  if (*slot != &stderr) return "its stderr slot does not point at the process's stderr";

  if (!routed_stderr) routed_stderr = open_stream();
  if (!routed_stderr) return "fopencookie failed";
  const std::optional<int> prot = page_protection(address);
  if (!prot) return "the slot's page is not in /proc/self/maps";
  const auto page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  void* page = reinterpret_cast<void*>(address & ~(page_size - 1));
  const bool read_only = !(*prot & PROT_WRITE);  // RELRO, after the loader's relocation
  if (read_only && mprotect(page, page_size, *prot | PROT_WRITE) != 0) return "mprotect of its RELRO page failed";
  // One aligned pointer store: a thread reading the slot sees the old or the new stream.
  __atomic_store_n(slot, &routed_stderr, __ATOMIC_RELEASE);
  if (read_only) mprotect(page, page_size, *prot);
  return {};
}

// Both routings share routed_stderr, so they run one at a time.
std::mutex redirect_mu;

}  // namespace

void route_litert_logs() {
  static const bool done = [] {  // once per process, thread-safe
    std::lock_guard lock(redirect_mu);
    Dl_info info{};
    const std::string failure = !dladdr(reinterpret_cast<void*>(&LiteRtCreateEnvironment), &info) || !info.dli_fname
                                    ? "libLiteRt.so not found among the loaded objects"
                                    : redirect(info.dli_fname);
    if (!failure.empty()) sdk::log(WASINN_LOG_INFO, "LiteRT's log lines go to stderr: " + failure);
    return true;
  }();
  (void)done;
}

void route_accelerator_logs(const std::string& path) {
  static const bool done = [&] {  // once per process: LiteRT loads the accelerator once
    std::lock_guard lock(redirect_mu);
    const std::string failure = redirect(path.c_str());
    if (!failure.empty()) sdk::log(WASINN_LOG_INFO, "LiteRT's GPU accelerator's log lines go to stderr: " + failure);
    return true;
  }();
  (void)done;
}

LiteRtErrorCapture::LiteRtErrorCapture() : previous_(error_capture) { error_capture = this; }

LiteRtErrorCapture::~LiteRtErrorCapture() { error_capture = previous_; }

void LiteRtErrorCapture::add(std::string_view line) {
  constexpr size_t kMost = 400;  // a detail is one line, not a log
  if (text_.size() >= kMost || line.empty()) return;
  try {
    if (!text_.empty()) text_ += "; ";
    text_.append(line.substr(0, kMost - std::min(kMost, text_.size())));
  } catch (const std::exception&) {
  }
}

}  // namespace wasinn::tensorflowlite
