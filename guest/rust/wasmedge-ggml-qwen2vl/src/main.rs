// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! WasmEdge-WASINN-examples' `wasmedge-ggml/qwen2vl` (its prebuilt wasmedge-ggml-qwen2vl.wasm),
//! rebuilt on the crates it names (../../wasmedge_ggml_vision.rs has what the vision examples
//! share): `mmproj` and `image` required, `ctx_size` 4096 by default; with a prompt argv[2] it
//! runs once and prints the metadata before and after, else it chats in Qwen2-VL's ChatML format,
//! the picture between <|vision_start|> and <|vision_end|> in the first turn.
#[path = "../../wasmedge_ggml_vision.rs"]
mod vision;

const EXAMPLE: vision::Example = vision::Example {
    image: true,
    ctx_size: 4096,
    debug_log: false,
};

fn main() {
    vision::run(
        &EXAMPLE,
        |ctx, prompt| vision::one_shot(ctx, prompt, true),
        |ctx| {
            vision::compute_chat(
                ctx,
                |input: &str| {
                    format!(
                        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n\
                         <|vision_start|><image><|vision_end|>{}<|im_end|>\n<|im_start|>assistant\n",
                        input
                    )
                },
                |input: &str| format!("<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n", input),
                |answer: &str| format!("{}<|im_end|>\n", answer),
            )
        },
    );
}
