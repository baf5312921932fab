// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A llama_context's RoPE and YaRN options (LlamaOptions' rope-* and yarn-* keys, WasmEdge's), at
// llama_context_params' defaults, "the model's own", unless set. Part of a context's shape: the
// graph's shared context serves only the contexts whose options equal its own.
#pragma once

#include <llama.h>

#include <cstdint>

#include "config.h"

namespace wasinn::llamacpp {

struct RopeOptions {
  int32_t scaling_type = LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED;
  float freq_base = 0, freq_scale = 0, ext_factor = -1, attn_factor = -1, beta_fast = -1, beta_slow = -1;
  uint32_t orig_ctx = 0;
  bool operator==(const RopeOptions&) const = default;

  static RopeOptions of(const LlamaOptions& o) {
    RopeOptions r;
    r.scaling_type = static_cast<int32_t>(o.rope_scaling_type);
    r.freq_base = static_cast<float>(o.rope_freq_base);
    r.freq_scale = static_cast<float>(o.rope_freq_scale);
    r.ext_factor = static_cast<float>(o.yarn_ext_factor);
    r.attn_factor = static_cast<float>(o.yarn_attn_factor);
    r.beta_fast = static_cast<float>(o.yarn_beta_fast);
    r.beta_slow = static_cast<float>(o.yarn_beta_slow);
    r.orig_ctx = static_cast<uint32_t>(o.yarn_orig_ctx);
    return r;
  }

  void apply(llama_context_params& p) const {
    p.rope_scaling_type = static_cast<llama_rope_scaling_type>(scaling_type);
    p.rope_freq_base = freq_base;
    p.rope_freq_scale = freq_scale;
    p.yarn_ext_factor = ext_factor;
    p.yarn_attn_factor = attn_factor;
    p.yarn_beta_fast = beta_fast;
    p.yarn_beta_slow = beta_slow;
    p.yarn_orig_ctx = orig_ctx;
  }
};

}  // namespace wasinn::llamacpp
