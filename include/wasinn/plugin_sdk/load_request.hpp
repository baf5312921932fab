// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: a read-only view of a wasinn_load_request that knows which fields the
// host's (possibly older, shorter) struct carries. Valid only during graph_load, like the
// request itself.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "wasinn/backend_plugin.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::sdk {

// "cpu", "gpu", "tpu", "auto" (the host's words for a target), or "unknown", for details.
inline const char* target_name(int32_t target) {
  static const char* const names[] = {"cpu", "gpu", "tpu", "auto"};
  return target >= WASINN_TARGET_CPU && target <= WASINN_TARGET_AUTO ? names[target] : "unknown";
}

// A builder's bytes as text (a "preload:" reference, a JSON config builder); "" when it has none.
inline std::string_view builder_text(const wasinn_bytes& b) {
  return b.data ? std::string_view(reinterpret_cast<const char*>(b.data), b.length) : std::string_view();
}

class LoadRequest {
 public:
  explicit LoadRequest(const wasinn_load_request& raw) : raw_(raw) {}

  std::string_view encoding() const {
    return has(offsetof(wasinn_load_request, encoding), sizeof raw_.encoding) && raw_.encoding
               ? std::string_view(raw_.encoding)
               : std::string_view();
  }
  int32_t target() const {
    return has(offsetof(wasinn_load_request, target), sizeof raw_.target) ? raw_.target : WASINN_TARGET_CPU;
  }
  std::span<const wasinn_bytes> builders() const {
    if (!has(offsetof(wasinn_load_request, builder_count), sizeof raw_.builder_count) || !raw_.builders) return {};
    return {raw_.builders, raw_.builder_count};
  }
  // The file builder i was mapped from (models the host registered), or nullptr.
  const char* path(size_t i) const {
    if (!has(offsetof(wasinn_load_request, paths), sizeof raw_.paths) || !raw_.paths || i >= builders().size())
      return nullptr;
    return raw_.paths[i];
  }
  // The JSON config text, or "" when none was given.
  std::string_view config() const {
    if (!has(offsetof(wasinn_load_request, config_length), sizeof raw_.config_length) || !raw_.config) return {};
    return {raw_.config, raw_.config_length};
  }
  // Whether the host may cancel computes of this graph's contexts; a host too old to say may.
  bool may_cancel() const {
    return has(offsetof(wasinn_load_request, flags), sizeof raw_.flags) ? (raw_.flags & WASINN_LOAD_MAY_CANCEL) != 0
                                                                        : true;
  }
  const wasinn_load_request& raw() const { return raw_; }

  // INVALID_ENCODING unless the request names `expected` or no encoding: the host picks the
  // plugin by its manifest, so another one is a caller's mistake, said the same by each backend.
  Error expect_encoding(std::string_view backend, std::string_view expected) const {
    if (encoding().empty() || encoding() == expected) return {};
    return {WASINN_INVALID_ENCODING, "the " + std::string(backend) + " backend loads only \"" + std::string(expected) +
                                         "\", not \"" + std::string(encoding()) + "\""};
  }
  // INVALID_ARGUMENT unless the model is exactly one builder; the detail is "<rule>, got N".
  Error expect_one_builder(std::string_view rule) const {
    if (builders().size() == 1) return {};
    return invalid(std::string(rule) + ", got " + std::to_string(builders().size()));
  }

 private:
  // A field exists only if it lies wholly inside the host's struct_size.
  bool has(size_t offset, size_t size) const { return raw_.struct_size >= offset + size; }
  const wasinn_load_request& raw_;
};

}  // namespace wasinn::sdk
