// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "pickle_scan.h"

#include <cstring>

namespace wasinn::pytorch {
namespace {

// What follows an opcode in the stream (Python's pickletools names the same layouts).
enum class Arg {
  none,
  fixed1,     // 1 byte: BININT1, BINGET, EXT1, PROTO
  fixed2,     // BININT2, EXT2
  fixed4,     // BININT, LONG_BINGET, EXT4
  fixed8,     // BINFLOAT
  bytes_u8,   // a u8 length, then that many bytes
  bytes_u32,  // a u32 length, then that many bytes
  bytes_i32,  // a signed 32-bit length (negative is malformed), then that many bytes
  bytes_u64,  // a u64 length, then that many bytes
  frame,      // FRAME's u64 length of the frame that follows
  line,       // text up to a newline
  two_lines,  // GLOBAL and INST: module and name, each up to a newline
  memo_u8,    // BINPUT
  memo_u32,   // LONG_BINPUT
  memo_line,  // PUT: a decimal index up to a newline
  stop,
  unknown,
};

struct Op {
  const char* name;
  Arg arg;
};

Op op_of(uint8_t code) {
  switch (code) {
    case '(': return {"MARK", Arg::none};
    case '.': return {"STOP", Arg::stop};
    case '0': return {"POP", Arg::none};
    case '1': return {"POP_MARK", Arg::none};
    case '2': return {"DUP", Arg::none};
    case 'F': return {"FLOAT", Arg::line};
    case 'I': return {"INT", Arg::line};
    case 'J': return {"BININT", Arg::fixed4};
    case 'K': return {"BININT1", Arg::fixed1};
    case 'L': return {"LONG", Arg::line};
    case 'M': return {"BININT2", Arg::fixed2};
    case 'N': return {"NONE", Arg::none};
    case 'P': return {"PERSID", Arg::line};
    case 'Q': return {"BINPERSID", Arg::none};
    case 'R': return {"REDUCE", Arg::none};
    case 'S': return {"STRING", Arg::line};
    case 'T': return {"BINSTRING", Arg::bytes_i32};
    case 'U': return {"SHORT_BINSTRING", Arg::bytes_u8};
    case 'V': return {"UNICODE", Arg::line};
    case 'X': return {"BINUNICODE", Arg::bytes_u32};
    case 'a': return {"APPEND", Arg::none};
    case 'b': return {"BUILD", Arg::none};
    case 'c': return {"GLOBAL", Arg::two_lines};
    case 'd': return {"DICT", Arg::none};
    case '}': return {"EMPTY_DICT", Arg::none};
    case 'e': return {"APPENDS", Arg::none};
    case 'g': return {"GET", Arg::line};
    case 'h': return {"BINGET", Arg::fixed1};
    case 'i': return {"INST", Arg::two_lines};
    case 'j': return {"LONG_BINGET", Arg::fixed4};
    case 'l': return {"LIST", Arg::none};
    case ']': return {"EMPTY_LIST", Arg::none};
    case 'o': return {"OBJ", Arg::none};
    case 'p': return {"PUT", Arg::memo_line};
    case 'q': return {"BINPUT", Arg::memo_u8};
    case 'r': return {"LONG_BINPUT", Arg::memo_u32};
    case 's': return {"SETITEM", Arg::none};
    case 't': return {"TUPLE", Arg::none};
    case ')': return {"EMPTY_TUPLE", Arg::none};
    case 'u': return {"SETITEMS", Arg::none};
    case 'G': return {"BINFLOAT", Arg::fixed8};
    case 0x80: return {"PROTO", Arg::fixed1};
    case 0x81: return {"NEWOBJ", Arg::none};
    case 0x82: return {"EXT1", Arg::fixed1};
    case 0x83: return {"EXT2", Arg::fixed2};
    case 0x84: return {"EXT4", Arg::fixed4};
    case 0x85: return {"TUPLE1", Arg::none};
    case 0x86: return {"TUPLE2", Arg::none};
    case 0x87: return {"TUPLE3", Arg::none};
    case 0x88: return {"NEWTRUE", Arg::none};
    case 0x89: return {"NEWFALSE", Arg::none};
    case 0x8a: return {"LONG1", Arg::bytes_u8};
    case 0x8b: return {"LONG4", Arg::bytes_i32};
    case 'B': return {"BINBYTES", Arg::bytes_u32};
    case 'C': return {"SHORT_BINBYTES", Arg::bytes_u8};
    case 0x8c: return {"SHORT_BINUNICODE", Arg::bytes_u8};
    case 0x8d: return {"BINUNICODE8", Arg::bytes_u64};
    case 0x8e: return {"BINBYTES8", Arg::bytes_u64};
    case 0x8f: return {"EMPTY_SET", Arg::none};
    case 0x90: return {"ADDITEMS", Arg::none};
    case 0x91: return {"FROZENSET", Arg::none};
    case 0x92: return {"NEWOBJ_EX", Arg::none};
    case 0x93: return {"STACK_GLOBAL", Arg::none};
    case 0x94: return {"MEMOIZE", Arg::none};
    case 0x95: return {"FRAME", Arg::frame};
    case 0x96: return {"BYTEARRAY8", Arg::bytes_u64};
    case 0x97: return {"NEXT_BUFFER", Arg::none};
    case 0x98: return {"READONLY_BUFFER", Arg::none};
    default: return {nullptr, Arg::unknown};
  }
}

uint64_t le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = v << 8 | p[i];
  return v;
}

std::string at_byte(const Op& op, size_t at) { return std::string(op.name) + " at byte " + std::to_string(at); }

}  // namespace

std::string scan_pickle(std::span<const uint8_t> pickle) {
  const size_t n = pickle.size();
  size_t pos = 0;
  while (pos < n) {
    const size_t at = pos;
    const Op op = op_of(pickle[pos++]);
    const size_t left = n - pos;  // bytes after the opcode
    auto fixed = [&](size_t k) -> bool {
      if (left < k) return false;
      pos += k;
      return true;
    };
    auto ran_out = [&] { return at_byte(op, at) + " is cut off by the end of the pickle"; };
    // A length read from the stream, then that many bytes: never more than what follows it.
    auto counted = [&](size_t width, bool is_signed) -> std::string {
      if (left < width) return ran_out();
      const uint64_t length = le(pickle.data() + pos, width);
      pos += width;
      if (is_signed && (length >> 31) != 0) return at_byte(op, at) + " has a negative length";
      if (length > n - pos)
        return at_byte(op, at) + " claims " + std::to_string(length) + " bytes, " + std::to_string(n - pos) + " remain";
      pos += static_cast<size_t>(length);
      return "";
    };
    auto line = [&]() -> bool {
      const void* nl = std::memchr(pickle.data() + pos, '\n', n - pos);
      if (!nl) return false;
      pos = static_cast<size_t>(static_cast<const uint8_t*>(nl) - pickle.data()) + 1;
      return true;
    };
    auto memo_bound = [&](uint64_t index) -> std::string {
      if (index <= at) return "";
      return at_byte(op, at) + " stores memo index " + std::to_string(index) + ", more than a pickle of " +
             std::to_string(n) + " bytes can have made";
    };
    std::string wrong;
    switch (op.arg) {
      case Arg::none: break;
      case Arg::stop: return "";  // the Unpickler reads nothing after STOP
      case Arg::unknown:
        return "byte " + std::to_string(at) + " (0x" + "0123456789abcdef"[pickle[at] >> 4] +
               "0123456789abcdef"[pickle[at] & 15] + ") is not a pickle opcode";
      case Arg::fixed1:
        if (!fixed(1)) return ran_out();
        break;
      case Arg::fixed2:
        if (!fixed(2)) return ran_out();
        break;
      case Arg::fixed4:
        if (!fixed(4)) return ran_out();
        break;
      case Arg::fixed8:
        if (!fixed(8)) return ran_out();
        break;
      case Arg::bytes_u8: wrong = counted(1, false); break;
      case Arg::bytes_u32: wrong = counted(4, false); break;
      case Arg::bytes_i32: wrong = counted(4, true); break;
      case Arg::bytes_u64: wrong = counted(8, false); break;
      case Arg::frame: {
        // The frame's bytes are the opcodes that follow: its length is checked, not skipped.
        if (left < 8) return ran_out();
        const uint64_t length = le(pickle.data() + pos, 8);
        pos += 8;
        if (length > n - pos)
          return at_byte(op, at) + " claims " + std::to_string(length) + " bytes, " + std::to_string(n - pos) +
                 " remain";
        break;
      }
      case Arg::line:
        if (!line()) return at_byte(op, at) + " has no newline before the end of the pickle";
        break;
      case Arg::two_lines:
        if (!line() || !line()) return at_byte(op, at) + " has no newline before the end of the pickle";
        break;
      case Arg::memo_u8:
        if (!fixed(1)) return ran_out();
        wrong = memo_bound(pickle[pos - 1]);
        break;
      case Arg::memo_u32:
        if (!fixed(4)) return ran_out();
        wrong = memo_bound(le(pickle.data() + pos - 4, 4));
        break;
      case Arg::memo_line: {
        uint64_t index = 0;
        for (; pos < n && pickle[pos] >= '0' && pickle[pos] <= '9'; ++pos)
          index = index > n ? index : index * 10 + (pickle[pos] - '0');  // saturates: compared with n below
        if (pos == n || pickle[pos] != '\n') return at_byte(op, at) + " has no decimal index ended by a newline";
        ++pos;
        wrong = memo_bound(index);
        break;
      }
    }
    if (!wrong.empty()) return wrong;
  }
  return "the pickle ends without STOP";
}

}  // namespace wasinn::pytorch
