// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A bounded walk over one pickle's opcodes (protocols 0-5), before libtorch's Unpickler reads
// it. The Unpickler sizes what it allocates from lengths in the stream (a BINUNICODE's u32, a
// LONG_BINPUT's memo index) before it reads the bytes behind them, so a 2 KB archive made it
// reserve 4 GiB; every such length is checked here against the bytes the pickle holds. Pure.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace wasinn::pytorch {

// "" when every opcode up to STOP is known and its argument lies within `pickle`: each length
// (strings, bytes, longs, frames) at most the bytes after it, each line ended by a newline, each
// memo index at most the opcode's offset (libtorch reserves 2 slots of 16 bytes a memo index, so
// at most 32 bytes a pickle byte). Otherwise what is wrong and where, e.g. "BINUNICODE at byte
// 2 claims 4294966281 bytes, 41 remain". One pass, no allocation beyond the message.
std::string scan_pickle(std::span<const uint8_t> pickle);

}  // namespace wasinn::pytorch
