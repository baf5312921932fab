// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A TorchScript archive's zip layout and pickles, checked before libtorch reads them. libtorch
// 1.13 allocates what the archive declares before it reads it: a record's uncompressed size
// from the central directory (its zip reader, getRecord), a string's length or a memo index
// from a pickle (its Unpickler). A 1,794-byte archive from fuzz_load_pytorch made it reserve
// 4 GiB, a 1,863-byte one 30 GB. What this lets through allocates at most: for a stored record
// its own bytes, for a deflated one 1032 times them (deflate cannot expand further), for a
// pickle's strings the pickle's bytes, for its memo 32 bytes a pickle byte. And what libtorch's
// reader needs to open an archive is checked too: where that fails, libtorch leaks its zip
// reader's state (F11). Pure: no libtorch call (its supported version range from its header).
#pragma once

#include <cstdint>
#include <span>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::pytorch {

// At most this many output bytes per deflated byte: deflate codes a 258-byte match in 2 bits.
constexpr uint64_t kDeflateMaxRatio = 1032;

// OK when `archive` is not a zip at all (no end-of-central-directory record: libtorch refuses
// it with its own message) or when, in the directory miniz reads (zip64 included), every entry
// is stored or deflated, its local header and data lie within the archive, a stored entry's
// uncompressed size equals its stored size and a deflated one's is at most kDeflateMaxRatio
// times it; and every pickle (an entry named *pkl outside extra/: data.pkl, constants.pkl,
// *.debug_pkl; deflated ones inflated first, within their declared size) passes scan_pickle; and the archive has an
// entry, the first in a folder, and a version record there whose CRC-32 holds and whose number
// libtorch supports. Otherwise INVALID_ARGUMENT naming the entry and what is wrong.
sdk::Error check_archive(std::span<const uint8_t> archive);

}  // namespace wasinn::pytorch
