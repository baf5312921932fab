// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/sha256.h"

#include <algorithm>
#include <atomic>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include <nettle/sha2.h>

namespace wasinn {

namespace {
constexpr size_t kWholeHashBytes = 4 << 20;  // larger model bytes are hashed in pieces, in parallel
constexpr size_t kPieceBytes = 1 << 20;      // small enough to share out evenly, ~0.6 ms each
}  // namespace

namespace {
sha256_ctx* state_of(unsigned char* bytes) { return reinterpret_cast<sha256_ctx*>(bytes); }
}  // namespace

Sha256::Sha256() {
  static_assert(sizeof(sha256_ctx) <= sizeof(state_) && alignof(sha256_ctx) <= 8, "Sha256::state_ too small");
  sha256_init(new (state_) sha256_ctx);
}
Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t size) {
  if (size > 0) sha256_update(state_of(state_), size, static_cast<const uint8_t*>(data));
}

void Sha256::field(uint64_t number) {
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(number >> (8 * i));
  update(le, sizeof le);
}

void Sha256::field(std::span<const uint8_t> bytes) {
  field(static_cast<uint64_t>(bytes.size()));
  update(bytes.data(), bytes.size());
}

void Sha256::field(std::string_view text) {
  field(static_cast<uint64_t>(text.size()));
  update(text.data(), text.size());
}

void Sha256::model_bytes(std::span<const uint8_t> bytes) {
  if (bytes.size() <= kWholeHashBytes) return field(bytes);
  // The pieces are fixed by the size alone, so the digest does not depend on the thread count.
  const size_t pieces = (bytes.size() + kPieceBytes - 1) / kPieceBytes;
  std::vector<std::array<uint8_t, 32>> digests(pieces);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto hash_pieces = [&]() noexcept {
    try {
      for (size_t i; (i = next++) < pieces;) {
        Sha256 piece;
        piece.field(bytes.subspan(i * kPieceBytes, std::min(kPieceBytes, bytes.size() - i * kPieceBytes)));
        digests[i] = piece.digest();
      }
    } catch (...) {
      failed = true;  // out of memory in a helper thread: reported by the caller's thread
    }
  };
  std::vector<std::thread> helpers;
  const size_t wanted = std::min<size_t>({std::thread::hardware_concurrency(), 4, pieces});
  for (size_t t = 1; t < wanted; ++t) {
    try {
      helpers.emplace_back(hash_pieces);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: this thread hashes what is left
    }
  }
  hash_pieces();
  for (auto& t : helpers) t.join();
  if (failed) throw std::bad_alloc();
  field(static_cast<uint64_t>(bytes.size()));
  for (const auto& d : digests) update(d.data(), d.size());
}

std::array<uint8_t, 32> Sha256::digest() {
  std::array<uint8_t, 32> out{};
  sha256_digest(state_of(state_), out.size(), out.data());
  return out;
}

std::string Sha256::hex_digest() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t byte : digest()) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

std::array<uint8_t, 32> builders_digest(std::span<const std::span<const uint8_t>> builders) {
  Sha256 h;
  h.field(uint64_t{builders.size()});
  for (const auto& b : builders) h.model_bytes(b);
  return h.digest();
}

}  // namespace wasinn
