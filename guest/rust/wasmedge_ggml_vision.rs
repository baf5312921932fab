// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! What WasmEdge-WASINN-examples' vision examples (wasmedge-ggml/llava, llava-base64-stream,
//! qwen2vl, gemma-3) do alike, rebuilt on the crates.io crates they name (wasmedge-wasi-nn 0.7.1,
//! serde_json) since no GitHub download reaches this machine; each example's binary includes it
//! (`#[path]`) and keeps what is its own: its defaults, prompt format and stream or not.
//!
//! Their calls: the options from the environment as a JSON load config (`mmproj` required, and
//! `image` where the example takes the picture from a file; `enable_log`, `ctx_size`,
//! `n_gpu_layers`, and gemma-3's `enable_debug_log`), `build_from_cache(argv[1])`, one context.
//! With a prompt argv[2] they run once (`one_shot`); without, they chat on stdin (`chat`).
//! wasinn's additions, read only when set, so a test can compare a greedy answer with native
//! llama.cpp's: `temp`, `n_predict`, `threads` (the examples sample at llama.cpp's default
//! temperature until the end of generation or a full context); and `image_base64`, the picture
//! the base64 examples embed in their source (theirs is not carried over). At the end of stdin
//! `chat` returns, where the examples read on forever.
#![allow(dead_code)] // each example uses its part

use serde_json::Value;
use std::collections::HashMap;
use std::env;
use std::io::{self, Write};
use wasmedge_wasi_nn::{
    BackendError, Error, ExecutionTarget, Graph, GraphBuilder, GraphEncoding, GraphExecutionContext, TensorType,
};

/// How an example reads its environment.
pub struct Example {
    /// Requires `image`, a host path the plugin reads (llava, qwen2vl, gemma-3).
    pub image: bool,
    /// The default of `ctx_size`.
    pub ctx_size: u64,
    /// Passes `enable_debug_log` (gemma-3).
    pub debug_log: bool,
}

// A JSON value from an environment variable, as the examples parse their optional ones.
fn env_json(name: &str) -> Option<Value> {
    env::var(name)
        .ok()
        .map(|v| serde_json::from_str(&v).expect("an option that is not JSON"))
}

fn required(name: &'static str, what: &str, options: &mut HashMap<&'static str, Value>) {
    match env::var(name) {
        Ok(v) => {
            options.insert(name, Value::from(v));
        }
        Err(_) => {
            eprintln!("Failed to get {}.", what);
            std::process::exit(1);
        }
    }
}

pub fn options_from_env(example: &Example) -> HashMap<&'static str, Value> {
    let mut options = HashMap::new();
    required("mmproj", "mmproj model", &mut options);
    if example.image {
        required("image", "the target image", &mut options);
    }
    options.insert("enable-log", env_json("enable_log").unwrap_or(Value::from(false)));
    if example.debug_log {
        options.insert(
            "enable-debug-log",
            env_json("enable_debug_log").unwrap_or(Value::from(false)),
        );
    }
    options.insert(
        "ctx-size",
        env_json("ctx_size").unwrap_or(Value::from(example.ctx_size)),
    );
    options.insert("n-gpu-layers", env_json("n_gpu_layers").unwrap_or(Value::from(0)));
    for (var, key) in [("temp", "temp"), ("n_predict", "n-predict"), ("threads", "threads")] {
        if let Some(v) = env_json(var) {
            options.insert(key, v);
        }
    }
    options
}

/// An example's main: the graph preloaded as argv[1] and a context on it, then with a prompt
/// argv[2] the non-interactive mode, without one the chat.
pub fn run<O, C>(example: &Example, one_shot: O, chat: C)
where
    O: FnOnce(&mut GraphExecutionContext, &str),
    C: FnOnce(&mut GraphExecutionContext),
{
    let args: Vec<String> = env::args().collect();
    let (_graph, mut ctx) = init(example, &args[1]);
    match args.get(2) {
        Some(prompt) => one_shot(&mut ctx, prompt),
        None => chat(&mut ctx),
    }
}

/// The graph preloaded as `name`, with the example's options, and a context on it.
pub fn init(example: &Example, name: &str) -> (Graph, GraphExecutionContext) {
    let options = options_from_env(example);
    let graph = GraphBuilder::new(GraphEncoding::Ggml, ExecutionTarget::AUTO)
        .config(serde_json::to_string(&options).expect("Failed to serialize options"))
        .build_from_cache(name)
        .expect("Failed to build graph");
    let ctx = graph.init_execution_context().expect("Failed to init context");
    (graph, ctx)
}

/// The base64 examples' inline image: the tag they put in the prompt, the payload from
/// `image_base64` in place of the picture in their source.
pub fn image_tag_from_env() -> String {
    match env::var("image_base64") {
        Ok(payload) => format!("<img src=\"data:image/jpeg;base64,{}\">", payload),
        Err(_) => {
            eprintln!(
                "Failed to get image_base64: the base64 of the picture (this rebuild does not embed the example's)."
            );
            std::process::exit(1);
        }
    }
}

pub fn set_prompt(ctx: &mut GraphExecutionContext, prompt: &str) -> Result<(), Error> {
    ctx.set_input(0, TensorType::U8, &[prompt.len()], prompt.as_bytes())
}

// Output `index`, whole or the last token's, as text, in a buffer of 4096 tokens of 6 bytes,
// as the examples size it.
fn output(ctx: &GraphExecutionContext, index: usize, single: bool) -> String {
    let mut buffer = vec![0u8; 4096 * 6];
    let n = if single {
        ctx.get_output_single(index, &mut buffer)
            .expect("Failed to get single output")
    } else {
        ctx.get_output(index, &mut buffer).expect("Failed to get output")
    };
    String::from_utf8_lossy(&buffer[..n.min(buffer.len())]).to_string()
}

pub fn output_text(ctx: &GraphExecutionContext) -> String {
    output(ctx, 0, false)
}

pub fn metadata(ctx: &GraphExecutionContext) -> Value {
    serde_json::from_str(&output(ctx, 1, false)).expect("Failed to get metadata")
}

/// The non-interactive mode's start: the prompt set, then (with `metadata`) the llama.cpp
/// version and input token count read before compute.
pub fn begin(ctx: &mut GraphExecutionContext, prompt: &str, metadata_lines: bool) {
    println!("Prompt:\n{}", prompt);
    set_prompt(ctx, prompt).expect("Failed to set input");
    println!("Response:");
    if metadata_lines {
        let before = metadata(ctx);
        println!("[INFO] llama_commit: {}", before["llama_commit"]);
        println!("[INFO] llama_build_number: {}", before["llama_build_number"]);
        println!("[INFO] Number of input tokens: {}", before["input_tokens"]);
    }
}

pub fn end(ctx: &GraphExecutionContext) {
    let after = metadata(ctx);
    println!("[INFO] Number of input tokens: {}", after["input_tokens"]);
    println!("[INFO] Number of output tokens: {}", after["output_tokens"]);
}

/// The non-interactive mode: one compute on argv[2], the answer trimmed.
pub fn one_shot(ctx: &mut GraphExecutionContext, prompt: &str, metadata_lines: bool) {
    begin(ctx, prompt, metadata_lines);
    ctx.compute().expect("Failed to compute");
    println!("{}", output_text(ctx).trim());
    if metadata_lines {
        end(ctx);
    }
}

/// compute_single until the end of the sequence, each piece printed and flushed as it comes;
/// then fini_single. The text, and whether the context was full or the prompt too long.
pub fn stream(ctx: &mut GraphExecutionContext) -> (String, bool) {
    let mut text = String::new();
    let mut reset = false;
    loop {
        match ctx.compute_single() {
            Ok(()) => {}
            Err(Error::BackendError(BackendError::EndOfSequence)) => break,
            Err(Error::BackendError(BackendError::ContextFull)) => {
                println!("\n[INFO] Context full, we'll reset the context and continue.");
                reset = true;
                break;
            }
            Err(Error::BackendError(BackendError::PromptTooLong)) => {
                println!("\n[INFO] Prompt too long, we'll reset the context and continue.");
                reset = true;
                break;
            }
            Err(e) => {
                println!("\n[ERROR] {}", e);
                break;
            }
        }
        let piece = output(ctx, 0, true);
        print!("{}", piece);
        io::stdout().flush().expect("stdout");
        text += &piece;
    }
    println!();
    ctx.fini_single().expect("Failed to fini_single");
    (text, reset)
}

// A non-empty line of stdin, trimmed; None at its end.
fn read_input() -> Option<String> {
    loop {
        let mut line = String::new();
        if io::stdin().read_line(&mut line).expect("Failed to read line") == 0 {
            return None;
        }
        if line != "\n" && line != "\r\n" {
            return Some(line.trim().to_string());
        }
    }
}

/// What an example's chat does with a turn's answer.
pub struct Chat<F, N, K> {
    /// Streams it by compute_single (llava-base64-stream), else computes it at once.
    pub stream: bool,
    /// Ends the guest on an error other than a full context or a long prompt (qwen2vl, gemma-3).
    pub exit_on_error: bool,
    /// The first turn's prompt from the user's line.
    pub first: F,
    /// What a later line appends to the conversation.
    pub next: N,
    /// What the trimmed answer appends to it.
    pub keep: K,
}

/// The interactive mode: "USER:", a line of stdin, the whole conversation as the prompt, the
/// answer after "ASSISTANT:"; a full context or a long prompt starts the conversation again.
pub fn chat<F, N, K>(ctx: &mut GraphExecutionContext, chat: Chat<F, N, K>)
where
    F: Fn(&str) -> String,
    N: Fn(&str) -> String,
    K: Fn(&str) -> String,
{
    let mut saved = String::new();
    loop {
        println!("USER:");
        let input = match read_input() {
            Some(input) => input,
            None => return,
        };
        if saved.is_empty() {
            saved = (chat.first)(&input);
        } else {
            saved += &(chat.next)(&input);
        }
        set_prompt(ctx, &saved).expect("Failed to set input");
        let (answer, reset) = if chat.stream {
            println!("ASSISTANT:");
            stream(ctx)
        } else {
            let reset = match ctx.compute() {
                Ok(()) => false,
                Err(Error::BackendError(BackendError::ContextFull)) => {
                    println!("\n[INFO] Context full, we'll reset the context and continue.");
                    true
                }
                Err(Error::BackendError(BackendError::PromptTooLong)) => {
                    println!("\n[INFO] Prompt too long, we'll reset the context and continue.");
                    true
                }
                Err(e) => {
                    println!("\n[ERROR] {}", e);
                    if chat.exit_on_error {
                        std::process::exit(1);
                    }
                    false
                }
            };
            let answer = output_text(ctx);
            println!("ASSISTANT:\n{}", answer.trim());
            (answer, reset)
        };
        if reset {
            saved.clear();
        } else {
            saved += &(chat.keep)(answer.trim());
        }
    }
}

/// The chat of qwen2vl and gemma-3: each answer computed at once, an error the end of the guest.
pub fn compute_chat<F, N, K>(ctx: &mut GraphExecutionContext, first: F, next: N, keep: K)
where
    F: Fn(&str) -> String,
    N: Fn(&str) -> String,
    K: Fn(&str) -> String,
{
    chat(
        ctx,
        Chat {
            stream: false,
            exit_on_error: true,
            first,
            next,
            keep,
        },
    );
}

/// LLaVA's chat (llava, llava-base64-stream): the system prompt, then "USER:" with the picture
/// (`image`: the marker or an inline tag) before the first line; an answer kept after a space.
pub fn llava_chat(ctx: &mut GraphExecutionContext, image: &str, stream: bool) {
    const SYSTEM: &str =
        "You are a helpful, respectful and honest assistant. Always answer as short as possible, while being safe.";
    chat(
        ctx,
        Chat {
            stream,
            exit_on_error: false,
            first: |input: &str| format!("{}\nUSER:{}\n{}\nASSISTANT:", SYSTEM, image, input),
            next: |input: &str| format!("\nUSER: {}\nASSISTANT:", input),
            keep: |answer: &str| format!(" {}", answer),
        },
    );
}
