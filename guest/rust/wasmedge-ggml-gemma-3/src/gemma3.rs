// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Both binaries of the gemma-3 example: they differ only in where the picture comes from.
use super::vision::{self, Chat, Example};
use std::env;

/// `image`: the first turn's picture, the marker or an inline tag, asked for only when the
/// guest chats (as the base64 binary builds its tag after the one-shot mode's return).
pub fn main(image: impl Fn() -> String, image_path: bool) {
    let example = Example {
        image: image_path,
        ctx_size: 4096,
        debug_log: true,
    };
    let args: Vec<String> = env::args().collect();
    let (_graph, mut ctx) = vision::init(&example, &args[1]);
    if args.len() >= 3 {
        return vision::one_shot(&mut ctx, &args[2], true);
    }
    let image = image();
    vision::chat(
        &mut ctx,
        Chat {
            stream: false,
            exit_on_error: true,
            first: |input: &str| {
                format!(
                    "<start_of_turn>user\n<start_of_image>{}<end_of_image>{}<end_of_turn>\n<start_of_turn>model\n",
                    image, input
                )
            },
            next: |input: &str| format!("<start_of_turn>user\n{}<end_of_turn>\n<start_of_turn>model\n", input),
            keep: |answer: &str| format!("{}<end_of_turn>\n", answer),
        },
    );
}
