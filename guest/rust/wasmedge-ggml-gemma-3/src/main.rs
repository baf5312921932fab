// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! WasmEdge-WASINN-examples' `wasmedge-ggml/gemma-3` (its prebuilt wasmedge-ggml-gemma-3.wasm),
//! rebuilt on the crates it names (../../wasmedge_ggml_vision.rs has what the vision examples
//! share): `mmproj` and `image` required, `enable_debug_log` passed, `ctx_size` 4096 by default;
//! with a prompt argv[2] it runs once and prints the metadata before and after, else it chats in
//! Gemma 3's turn format, the picture between <start_of_image> and <end_of_image> in the first
//! turn. gemma3_base64.rs is the example's other binary, with the picture inline.
#[path = "gemma3.rs"]
mod gemma3;
#[path = "../../wasmedge_ggml_vision.rs"]
mod vision;

fn main() {
    gemma3::main(|| "<image>".to_string(), true);
}
