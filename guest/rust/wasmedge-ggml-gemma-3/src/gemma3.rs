// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Both binaries of the gemma-3 example: they differ only in where the picture comes from.
use super::vision::{self, Example};

/// `image`: the first turn's picture, the marker or an inline tag, asked for only when the
/// guest chats (as the base64 binary builds its tag after the one-shot mode's return).
pub fn main(image: impl FnOnce() -> String, image_path: bool) {
    let example = Example {
        image: image_path,
        ctx_size: 4096,
        debug_log: true,
    };
    vision::run(
        &example,
        |ctx, prompt| vision::one_shot(ctx, prompt, true),
        |ctx| {
            let image = image();
            vision::compute_chat(
                ctx,
                |input: &str| {
                    format!(
                        "<start_of_turn>user\n<start_of_image>{}<end_of_image>{}<end_of_turn>\n<start_of_turn>model\n",
                        image, input
                    )
                },
                |input: &str| format!("<start_of_turn>user\n{}<end_of_turn>\n<start_of_turn>model\n", input),
                |answer: &str| format!("{}<end_of_turn>\n", answer),
            )
        },
    );
}
