// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The calls of WasmEdge-WASINN-examples' `wasmedge-ggml/llava` (its prebuilt
//! wasmedge-ggml-llava.wasm), rebuilt here on the crates.io crates it names (wasmedge-wasi-nn
//! 0.7.1, serde_json), since no GitHub download reaches this machine: the options from the
//! environment as a JSON load config (`mmproj` and `image` required; `enable_log`, `ctx_size`
//! 2048 and `n_gpu_layers` 0 by default), `build_from_cache(argv[1])`, one context, and its
//! non-interactive mode: the prompt argv[2] as input 0, the metadata output 1 read before
//! compute, compute, output 0, the metadata again. wasinn's additions, only read when set:
//! `temp`, `n_predict` and `threads`, so a test can compare a greedy answer with native
//! llama.cpp's (the example itself samples at llama.cpp's default temperature until the end of
//! generation or a full context), and `stream`, which generates with compute_single and prints
//! each piece as it comes, as the llava-base64-stream example does, `stream=2` twice on the same
//! context, the second after an "Again:" line (for scripts/bench_vision.py).
//! Its interactive chat loop is left out.
use serde_json::Value;
use std::collections::HashMap;
use std::env;
use wasmedge_wasi_nn::{ExecutionTarget, GraphBuilder, GraphEncoding, GraphExecutionContext, TensorType};

// A JSON value from an environment variable, as the example parses its optional ones.
fn env_json(name: &str) -> Option<Value> {
    env::var(name)
        .ok()
        .map(|v| serde_json::from_str(&v).expect("an option that is not JSON"))
}

fn options_from_env() -> HashMap<&'static str, Value> {
    let mut options = HashMap::new();
    for (var, what) in [("mmproj", "the mmproj model"), ("image", "the target image")] {
        match env::var(var) {
            Ok(v) => {
                options.insert(var, Value::from(v));
            }
            Err(_) => {
                eprintln!("Failed to get {}.", what);
                std::process::exit(1);
            }
        }
    }
    options.insert("enable-log", env_json("enable_log").unwrap_or(Value::from(false)));
    options.insert("ctx-size", env_json("ctx_size").unwrap_or(Value::from(2048)));
    options.insert("n-gpu-layers", env_json("n_gpu_layers").unwrap_or(Value::from(0)));
    for (var, key) in [("temp", "temp"), ("n_predict", "n-predict"), ("threads", "threads")] {
        if let Some(v) = env_json(var) {
            options.insert(key, v);
        }
    }
    options
}

// Output `index` as text, in a buffer of 4096 tokens of 6 bytes, as the example sizes it.
fn output_text(ctx: &GraphExecutionContext, index: usize) -> String {
    let mut buffer = vec![0u8; 4096 * 6];
    let n = ctx.get_output(index, &mut buffer).expect("Failed to get output");
    String::from_utf8_lossy(&buffer[..n.min(buffer.len())]).to_string()
}

fn metadata(ctx: &GraphExecutionContext) -> Value {
    serde_json::from_str(&output_text(ctx, 1)).expect("Failed to get metadata")
}

// compute_single until the end of the sequence, each piece printed and flushed as it comes.
fn stream(ctx: &mut GraphExecutionContext) {
    use std::io::Write;
    let mut buffer = vec![0u8; 4096];
    loop {
        match ctx.compute_single() {
            Ok(()) => {}
            Err(wasmedge_wasi_nn::Error::BackendError(wasmedge_wasi_nn::BackendError::EndOfSequence)) => break,
            Err(e) => panic!("Failed to compute_single: {:?}", e),
        }
        let n = ctx.get_output_single(0, &mut buffer).expect("Failed to get output");
        let mut out = std::io::stdout();
        out.write_all(&buffer[..n.min(buffer.len())]).expect("stdout");
        out.flush().expect("stdout");
    }
    println!();
    ctx.fini_single().expect("Failed to fini_single");
}

fn main() {
    let args: Vec<String> = env::args().collect();
    let options = options_from_env();
    let graph = GraphBuilder::new(GraphEncoding::Ggml, ExecutionTarget::AUTO)
        .config(serde_json::to_string(&options).expect("Failed to serialize options"))
        .build_from_cache(&args[1])
        .expect("Failed to build graph");
    let mut ctx = graph.init_execution_context().expect("Failed to init context");
    if args.len() < 3 {
        eprintln!("usage: llava MODEL_NAME PROMPT (the example's chat loop is not built here)");
        std::process::exit(2);
    }
    let prompt = &args[2];
    println!("Prompt:\n{}", prompt);
    ctx.set_input(0, TensorType::U8, &[prompt.len()], prompt.as_bytes())
        .expect("Failed to set input");
    println!("Response:");
    let before = metadata(&ctx);
    println!("[INFO] llama_commit: {}", before["llama_commit"]);
    println!("[INFO] llama_build_number: {}", before["llama_build_number"]);
    println!("[INFO] Number of input tokens: {}", before["input_tokens"]);
    if let Ok(rounds) = env::var("stream") {
        stream(&mut ctx);
        if rounds == "2" {
            println!("Again:");
            ctx.set_input(0, TensorType::U8, &[prompt.len()], prompt.as_bytes())
                .expect("Failed to set input");
            println!("[INFO] Number of input tokens: {}", metadata(&ctx)["input_tokens"]);
            stream(&mut ctx);
        }
    } else {
        ctx.compute().expect("Failed to compute");
        println!("{}", output_text(&ctx, 0).trim());
    }
    let after = metadata(&ctx);
    println!("[INFO] Number of input tokens: {}", after["input_tokens"]);
    println!("[INFO] Number of output tokens: {}", after["output_tokens"]);
}
