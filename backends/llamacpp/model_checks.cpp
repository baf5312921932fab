// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "model_checks.h"

#include <gguf.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include "plugin_common/c_handles.hpp"

namespace wasinn::llamacpp {
namespace {

constexpr uint64_t kMaxLayers = 512;  // LLAMA_MAX_LAYERS, internal to llama.cpp

// An integer metadata value, if the key holds one.
bool integer_value(const gguf_context* ctx, int64_t key, int64_t& out) {
  switch (gguf_get_kv_type(ctx, key)) {
    case GGUF_TYPE_UINT8: out = gguf_get_val_u8(ctx, key); return true;
    case GGUF_TYPE_INT8: out = gguf_get_val_i8(ctx, key); return true;
    case GGUF_TYPE_UINT16: out = gguf_get_val_u16(ctx, key); return true;
    case GGUF_TYPE_INT16: out = gguf_get_val_i16(ctx, key); return true;
    case GGUF_TYPE_UINT32: out = gguf_get_val_u32(ctx, key); return true;
    case GGUF_TYPE_INT32: out = gguf_get_val_i32(ctx, key); return true;
    case GGUF_TYPE_INT64: out = gguf_get_val_i64(ctx, key); return true;
    case GGUF_TYPE_UINT64: {
      const uint64_t v = gguf_get_val_u64(ctx, key);
      out = v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
      return true;
    }
    default: return false;
  }
}

// llama.cpp maps each vocabulary entry to its id and asserts that none repeats
// (GGML_ASSERT(id_to_token.size() == token_to_id.size()) in llama-vocab.cpp); it names an empty
// entry "[EMPTY_<i>]" first, so the same is done here.
Error check_vocabulary(const gguf_context* ctx) {
  const int64_t id = gguf_find_key(ctx, "tokenizer.ggml.tokens");
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != GGUF_TYPE_STRING) {
    return {};
  }
  const size_t n = gguf_get_arr_n(ctx, id);
  std::unordered_set<std::string> seen;
  seen.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string token = gguf_get_arr_str(ctx, id, i);
    if (token.empty()) token = "[EMPTY_" + std::to_string(i) + "]";
    if (!seen.insert(std::move(token)).second) {
      return sdk::invalid("load: the model's vocabulary (tokenizer.ggml.tokens) lists token " + std::to_string(i) +
                          " twice; llama.cpp needs every token once");
    }
  }
  return {};
}

}  // namespace

Error check_gguf_header(const char* path) {
  gguf_init_params params{};
  params.no_alloc = true;
  params.ctx = nullptr;
  plugin_common::FunctionHandle<gguf_context, gguf_free> ctx(gguf_init_from_file(path, params));
  if (!ctx) return {};
  if (Error e = check_vocabulary(ctx.get())) return e;
  const int64_t arch_key = gguf_find_key(ctx.get(), "general.architecture");
  if (arch_key < 0 || gguf_get_kv_type(ctx.get(), arch_key) != GGUF_TYPE_STRING) return {};
  const std::string key = std::string(gguf_get_val_str(ctx.get(), arch_key)) + ".block_count";
  const int64_t id = gguf_find_key(ctx.get(), key.c_str());
  int64_t blocks = 0;
  if (id < 0 || !integer_value(ctx.get(), id, blocks)) return {};
  if (blocks < 1 || static_cast<uint64_t>(blocks) > kMaxLayers) {
    return sdk::invalid("load: the model's " + key + " is " + std::to_string(blocks) + "; llama.cpp supports 1 to " +
                        std::to_string(kMaxLayers) + " blocks");
  }
  return {};
}

std::string gguf_architecture(const char* path) {
  gguf_init_params params{};
  params.no_alloc = true;
  params.ctx = nullptr;
  plugin_common::FunctionHandle<gguf_context, gguf_free> ctx(gguf_init_from_file(path, params));
  if (!ctx) return {};
  const int64_t arch_key = gguf_find_key(ctx.get(), "general.architecture");
  if (arch_key < 0 || gguf_get_kv_type(ctx.get(), arch_key) != GGUF_TYPE_STRING) return {};
  return gguf_get_val_str(ctx.get(), arch_key);
}

bool is_projector_gguf(const char* path) { return gguf_architecture(path) == "clip"; }

bool is_vocoder_gguf(const char* path) { return gguf_architecture(path) == "wavtokenizer-dec"; }

Error check_loaded_model(const llama_model* model) {
  char key[256], value[64];
  const int32_t n = llama_model_meta_count(model);
  for (int32_t i = 0; i < n; ++i) {
    if (llama_model_meta_key_by_index(model, i, key, sizeof key) < 0) continue;
    if (!std::string_view(key).ends_with("epsilon")) continue;
    if (llama_model_meta_val_str_by_index(model, i, value, sizeof value) < 0) continue;
    char* end = nullptr;
    const double eps = std::strtod(value, &end);
    if (end == value || !std::isfinite(eps) || eps < 0) {
      return sdk::invalid(std::string("load: the model's ") + key + " is " + value +
                          "; a normalisation epsilon must be a finite number >= 0");
    }
  }
  return {};
}

}  // namespace wasinn::llamacpp
