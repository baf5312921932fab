// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The calls of WasmEdge-WASINN-examples' `wasmedge-ggml/tts` (its prebuilt
//! wasmedge-ggml-tts.wasm), rebuilt here on the crates.io crates it names (wasmedge-wasi-nn 0.7.1,
//! serde_json), since no GitHub download reaches this machine: the options from the environment as
//! a JSON load config (`tts` true; `tts_output_file` and `model_vocoder` required,
//! `tts_speaker_file`, `seed` and `temp` passed when set; `enable_log` and `enable_debug_log` false,
//! `n_predict` 4096, `ctx_size`, `batch_size` and `ubatch_size` 8192 and `n_gpu_layers` 100 by
//! default), `build_from_cache(argv[1])`, one context, the text argv[2] as input 0, the metadata
//! output 1 read before compute, compute, and output 0 (the WAV, read into a 1 MiB buffer as the
//! example does) written to output-buffer.wav in the working directory. wasinn's addition, only
//! read when set: `threads`, so a benchmark can run both sides on the same thread count.
use serde_json::Value;
use std::collections::HashMap;
use std::env;
use std::fs::File;
use std::io::Write;
use wasmedge_wasi_nn::{ExecutionTarget, GraphBuilder, GraphEncoding, GraphExecutionContext, TensorType};

fn env_json(name: &str) -> Option<Value> {
    env::var(name)
        .ok()
        .map(|v| serde_json::from_str(&v).expect("an option that is not JSON"))
}

fn options_from_env() -> HashMap<&'static str, Value> {
    let mut options = HashMap::new();
    options.insert("tts", Value::from(true));
    for (var, key, what) in [
        ("tts_output_file", "tts-output-file", "output file name"),
        ("model_vocoder", "model-vocoder", "vocoder model"),
    ] {
        match env::var(var) {
            Ok(v) => {
                options.insert(key, Value::from(v));
            }
            Err(_) => {
                eprintln!("Failed to get {}.", what);
                std::process::exit(1);
            }
        }
    }
    if let Ok(v) = env::var("tts_speaker_file") {
        options.insert("tts-speaker-file", Value::from(v));
    }
    let defaults = [
        ("enable_log", "enable-log", Value::from(false)),
        ("enable_debug_log", "enable-debug-log", Value::from(false)),
        ("n_predict", "n-predict", Value::from(4096)),
        ("ctx_size", "ctx-size", Value::from(8192)),
        ("batch_size", "batch-size", Value::from(8192)),
        ("ubatch_size", "ubatch-size", Value::from(8192)),
        ("n_gpu_layers", "n-gpu-layers", Value::from(100)),
    ];
    for (var, key, default) in defaults {
        options.insert(key, env_json(var).unwrap_or(default));
    }
    for (var, key) in [("seed", "seed"), ("temp", "temp"), ("threads", "threads")] {
        if let Some(v) = env_json(var) {
            options.insert(key, v);
        }
    }
    options
}

// Output `index`, in a 1 MiB buffer as the example reads its audio.
fn output(ctx: &GraphExecutionContext, index: usize) -> Vec<u8> {
    let mut buffer = vec![0u8; 1024 * 1024];
    let n = ctx.get_output(index, &mut buffer).expect("Failed to get output");
    buffer.truncate(n.min(buffer.len()));
    buffer
}

fn main() {
    let args: Vec<String> = env::args().collect();
    if args.len() < 3 {
        println!("Usage: {} <nn-preload-model> <prompt>", args[0]);
        return;
    }
    let options = options_from_env();
    let graph = GraphBuilder::new(GraphEncoding::Ggml, ExecutionTarget::AUTO)
        .config(serde_json::to_string(&options).expect("Failed to serialize options"))
        .build_from_cache(&args[1])
        .expect("Failed to build graph");
    let mut ctx = graph.init_execution_context().expect("Failed to init context");
    let prompt = &args[2];
    println!("Prompt:\n{}", prompt);
    ctx.set_input(0, TensorType::U8, &[prompt.len()], prompt.as_bytes())
        .expect("Failed to set input");
    let metadata: Value = serde_json::from_slice(&output(&ctx, 1)).expect("Failed to get metadata");
    println!("[INFO] llama_commit: {}", metadata["llama_commit"]);
    println!("[INFO] llama_build_number: {}", metadata["llama_build_number"]);
    println!("[INFO] Number of input tokens: {}", metadata["input_tokens"]);
    ctx.compute().expect("Failed to compute");
    println!("[INFO] Plugin writes output to file {}", options["tts-output-file"]);
    let wav = output(&ctx, 0);
    let mut file = File::create("output-buffer.wav").expect("Failed to create output file");
    file.write_all(&wav).expect("Failed to write output file");
    println!("[INFO] Write output buffer to file output-buffer.wav");
}
