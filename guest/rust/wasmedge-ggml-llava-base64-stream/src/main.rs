#[path = "../../wasmedge_ggml_vision.rs"]
mod vision;

const EXAMPLE: vision::Example = vision::Example {
    image: false,
    ctx_size: 2048,
    debug_log: false,
};

fn main() {
    vision::run(
        &EXAMPLE,
        |ctx, prompt| vision::one_shot(ctx, prompt, false),
        |ctx| vision::llava_chat(ctx, &vision::image_tag_from_env(), true),
    );
}
