// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! WasmEdge-WASINN-examples' `wasmedge-ggml/llava-base64-stream` (its prebuilt
//! wasmedge-ggml-llava-base64-stream.wasm), rebuilt on the crates it names
//! (../../wasmedge_ggml_vision.rs has what the vision examples share): `mmproj` required, no
//! `image` (the picture is inline), `ctx_size` 2048 by default; with a prompt argv[2] it computes
//! once and prints the answer only, else it chats in LLaVA's format, the picture inline as
//! <img src="data:image/jpeg;base64,..."> in the first turn, each answer streamed by
//! compute_single. The picture is `image_base64`'s (the example embeds one in its source).
#[path = "../../wasmedge_ggml_vision.rs"]
mod vision;

use std::env;
use vision::{Chat, Example};

const EXAMPLE: Example = Example {
    image: false,
    ctx_size: 2048,
    debug_log: false,
};
const SYSTEM: &str =
    "You are a helpful, respectful and honest assistant. Always answer as short as possible, while being safe.";

fn main() {
    let args: Vec<String> = env::args().collect();
    let (_graph, mut ctx) = vision::init(&EXAMPLE, &args[1]);
    if args.len() >= 3 {
        return vision::one_shot(&mut ctx, &args[2], false);
    }
    let image = vision::image_tag_from_env();
    vision::chat(
        &mut ctx,
        Chat {
            stream: true,
            exit_on_error: false,
            first: |input: &str| format!("{}\nUSER:{}\n{}\nASSISTANT:", SYSTEM, image, input),
            next: |input: &str| format!("\nUSER: {}\nASSISTANT:", input),
            keep: |answer: &str| format!(" {}", answer),
        },
    );
}
