// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The gemma-3 example's other binary (wasmedge-ggml-gemma-3-base64.wasm): no `image`, the
//! picture inline as <img src="data:image/jpeg;base64,..."> in the first turn, from
//! `image_base64` (the example embeds one in its source); else as main.rs.
#[path = "gemma3.rs"]
mod gemma3;
#[path = "../../wasmedge_ggml_vision.rs"]
mod vision;

fn main() {
    gemma3::main(vision::image_tag_from_env, false);
}
