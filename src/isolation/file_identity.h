// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Identities of files, for remembered verdicts of isolated load checks (isolated_load.h): the
// checker's and the plugin's (a rebuild changes them, so old verdicts no longer match) and the
// model files' (so a file whose identity is unchanged need not be hashed again). Stateless.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace wasinn {

// A program or library file: device, inode, size, mtime. nullopt when it cannot be stat'ed.
std::optional<std::string> file_identity(const std::filesystem::path& path);

// The model files' identities (ctime included: a write or `touch -d` always moves the ctime),
// or nullopt when one is not a regular file of its builder's size (a directory, a file changed
// since it was mapped). *settled: none changed within the last 2 s; a younger file may change
// again within the same timestamp tick, so its identity does not vouch for its bytes yet (git
// calls such files "racily clean").
std::optional<std::string> model_files_identity(std::span<const std::filesystem::path> paths,
                                                std::span<const std::span<const uint8_t>> builders, bool* settled);

// The same identities, seen through open descriptors, when each file holds exactly its
// builder's bytes; nullopt otherwise. The host hashes the builders (its mapping) and the child
// reads the paths: a file replaced after the host mapped it makes them differ.
std::optional<std::string> identity_if_files_hold(std::span<const std::filesystem::path> paths,
                                                  std::span<const std::span<const uint8_t>> builders);

}  // namespace wasinn
