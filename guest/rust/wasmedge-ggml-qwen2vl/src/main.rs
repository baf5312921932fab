// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! WasmEdge-WASINN-examples' `wasmedge-ggml/qwen2vl` (its prebuilt wasmedge-ggml-qwen2vl.wasm),
//! rebuilt on the crates it names (../../wasmedge_ggml_vision.rs has what the vision examples
//! share): `mmproj` and `image` required, `ctx_size` 4096 by default; with a prompt argv[2] it
//! runs once and prints the metadata before and after, else it chats in Qwen2-VL's ChatML format,
//! the picture between <|vision_start|> and <|vision_end|> in the first turn.
#[path = "../../wasmedge_ggml_vision.rs"]
mod vision;

use std::env;
use vision::{Chat, Example};

const EXAMPLE: Example = Example {
    image: true,
    ctx_size: 4096,
    debug_log: false,
};

fn main() {
    let args: Vec<String> = env::args().collect();
    let (_graph, mut ctx) = vision::init(&EXAMPLE, &args[1]);
    if args.len() >= 3 {
        return vision::one_shot(&mut ctx, &args[2], true);
    }
    vision::chat(
        &mut ctx,
        Chat {
            stream: false,
            exit_on_error: true,
            first: |input: &str| {
                format!(
                    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n\
                     <|vision_start|><image><|vision_end|>{}<|im_end|>\n<|im_start|>assistant\n",
                    input
                )
            },
            next: |input: &str| format!("<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n", input),
            keep: |answer: &str| format!("{}<|im_end|>\n", answer),
        },
    );
}
