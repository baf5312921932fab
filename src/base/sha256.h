// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Incremental SHA-256 (Nettle), the one content digest of wasinn's caches: keys of
// isolated-load verdicts and of compiled modules, and the checksum of a cached module. Not
// thread-safe: one object per digest.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace wasinn {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // Each field feeds its length before its bytes, so that fields cannot run into each other:
  // ("ab", "c") and ("a", "bc") give different digests.
  void field(std::span<const uint8_t> bytes);
  void field(std::string_view text);
  void field(uint64_t number);
  // A model's bytes: as field(), but over 4 MiB as the digests of its 1 MiB pieces, hashed on
  // up to 4 threads (SHA-256 runs at ~1.5 GB/s on one core with SHA-NI: 10 ms for a 16 MB model).
  void model_bytes(std::span<const uint8_t> bytes);

  // Each ends the hash: call one, once.
  std::array<uint8_t, 32> digest();
  std::string hex_digest();  // 64 lowercase hex digits

 private:
  void update(const void* data, size_t size);
  // Nettle's sha256_ctx, held in place: no allocation, so the helper threads of model_bytes
  // never malloc (each would get a malloc arena of its own that stays: RSS growth per load).
  alignas(8) unsigned char state_[112];
};

// The digest of a load's graph builders, in order (each as Sha256::model_bytes): what both the
// shared-graph key (core/loaded_graphs) and the load-check key (isolation) take of the bytes.
std::array<uint8_t, 32> builders_digest(std::span<const std::span<const uint8_t>> builders);

}  // namespace wasinn
