// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! p3_nn: a WASI 0.3 command (wasi:cli/run@0.3.0, from wasip3) over wasi:nn@0.2.0-rc-2024-10-28
//! and wasinn:nn-async, for tests/p3/ and scripts/bench-p3.sh:
//!   p3_nn classify [--sync] MODEL.onnx X.f32 Y.u8 [LOGITS_OUT.f32]
//!       the digits as wit_classify_digits does them (its stdout, byte for byte), each row one
//!       compute: wasinn:nn-async's compute, or wasi:nn's (--sync); LOGITS_OUT gets every logit
//!   p3_nn overlap MODEL.gguf      two computes in flight on two contexts: a long answer (A) and a
//!       short one (B) started after it; prints "order: B A" when B ends first, and the times
//!   p3_nn cancel MODEL.gguf       a compute of 100000 tokens dropped after 200 ms; then the same
//!       context answers a short prompt ("reuse: TEXT"); prints how long the drop took
//!   p3_nn generate MODEL.gguf N PROMPT   the answer as a stream of pieces ("text: TEXT")
//!   p3_nn generate-drop MODEL.gguf PROMPT   three pieces, the reader dropped, then the same
//!       context answers PROMPT with 8 tokens by compute ("reuse: TEXT")
//!   p3_nn cancel-onnx MODEL.onnx OUT.f32   (the test's looping model: y = x·W^n, x [256, 256],
//!       n an i64 [1]) a compute of n = 10^9 dropped after 200 ms, then n = 1 on the same
//!       context, its output written to OUT; prints how long the two took
//!   p3_nn stress | stress-onnx | drop-exit ARGS   cancellation under stress (src/stress.rs)
//!   p3_nn many-tasks | many-streams N   resource-table use, for -S max-resources (src/resources.rs)
//! Beside run it exports `answer: async func() -> string` (`wasinn run --invoke answer`): an
//! async-lifted root export that awaits a 0.3 import before it answers.
//! Answers are greedy (temp 0) so tests compare them with native llama.cpp's. Exit 0; 2 for bad
//! arguments or files; 1 for a wasi:nn error, printed as "p3_nn: WHAT: CODE: DATA".
use std::time::{Duration, Instant};

use futures::future::{select, Either};

mod digits;
mod resources;
mod stress;

wit_bindgen::generate!({
    world: "wasinn:p3-guests/nn",
    path: [
        "../../../wit/wasi-nn/0.2.0-rc-2024-10-28",
        "../../../wit/wasinn-nn-ext",
        "../../../wit/wasinn-nn-async",
        "wit",
    ],
    generate_all,
});

use wasi::nn::errors::Error;
use wasi::nn::graph::{load, ExecutionTarget, Graph, GraphEncoding};
use wasi::nn::inference::GraphExecutionContext;
use wasi::nn::tensor::{Tensor, TensorType};
use wasinn::nn_async::{generate, inference as nn_async};
use wasinn::nn_ext::properties;

struct Failure(i32, String);

fn nn_err(what: &str, e: Error) -> Failure {
    Failure(1, format!("p3_nn: {what}: {:?}: {}", e.code(), e.data()))
}

fn bad(msg: String) -> Failure {
    Failure(2, format!("p3_nn: {msg}"))
}

fn read(path: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| bad(format!("cannot read {path}: {e}")))
}

fn load_model(path: &str, encoding: GraphEncoding) -> Result<Graph, Failure> {
    load(&[read(path)?], encoding, ExecutionTarget::Cpu).map_err(|e| nn_err("load", e))
}

fn context(graph: &Graph) -> Result<GraphExecutionContext, Failure> {
    graph
        .init_execution_context()
        .map_err(|e| nn_err("init-execution-context", e))
}

fn u8_tensor(bytes: &[u8]) -> Tensor {
    Tensor::new(&[bytes.len() as u32], TensorType::U8, bytes)
}

/// The digits: wit_classify_digits's stdout, each row through one compute.
async fn classify(args: &[String]) -> Result<(), Failure> {
    let sync = args.first().map(|a| a == "--sync").unwrap_or(false);
    let args = &args[sync as usize..];
    if args.len() < 3 {
        return Err(bad("usage: classify [--sync] MODEL X.f32 Y.u8 [LOGITS_OUT.f32]".into()));
    }
    let graph = load_model(&args[0], GraphEncoding::Onnx)?;
    let (x, y) = (read(&args[1])?, read(&args[2])?);
    let ctx = context(&graph)?;
    let logits_out = digits::classify(&x, &y, async |inputs| {
        let outputs = if sync {
            ctx.compute(inputs)?
        } else {
            nn_async::compute(&ctx, inputs).await?
        };
        Ok(outputs.into_iter().next().map(|(_, t)| t.data()).unwrap_or_default())
    })
    .await
    .map_err(|e| bad(format!("{}: {e}", args[1])))?
    .map_err(|e| nn_err("compute", e))?;
    if let Some(path) = args.get(3) {
        std::fs::write(path, &logits_out).map_err(|e| bad(format!("cannot write {path}: {e}")))?;
    }
    Ok(())
}

/// A greedy answer to `prompt` of at most `n` tokens, by nn-async's compute.
async fn answer(ctx: &GraphExecutionContext, prompt: &str, n: u32) -> Result<String, Failure> {
    let config =
        format!("{{\"n-predict\": {n}, \"ctx-size\": 4096, \"temp\": 0, \"repeat-penalty\": 1, \"threads\": 1}}");
    let inputs = vec![
        ("prompt".to_string(), u8_tensor(prompt.as_bytes())),
        ("metadata".to_string(), u8_tensor(config.as_bytes())),
    ];
    let outputs = nn_async::compute(ctx, inputs).await.map_err(|e| nn_err("compute", e))?;
    let text = outputs
        .into_iter()
        .find(|(name, _)| name == "text")
        .ok_or_else(|| Failure(1, "p3_nn: compute gave no output named text".into()))?;
    Ok(String::from_utf8_lossy(&text.1.data()).into_owned())
}

fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

async fn overlap(model: &str) -> Result<(), Failure> {
    let graph = load_model(model, GraphEncoding::Ggml)?;
    let (a, b) = (context(&graph)?, context(&graph)?);
    let start = Instant::now();
    let mut order = Vec::new();
    let long = async {
        let r = answer(&a, "Once upon a time", 400).await;
        (r, start.elapsed())
    };
    let short = async {
        let r = answer(&b, "Hello", 4).await;
        (r, start.elapsed())
    };
    let (ra, rb) = futures::join!(
        async {
            let r = long.await;
            r
        },
        short
    );
    // Which ended first, from their end times.
    if rb.1 < ra.1 {
        order.extend(["B", "A"]);
    } else {
        order.extend(["A", "B"]);
    }
    ra.0?;
    rb.0?;
    println!("order: {}", order.join(" "));
    println!(
        "A: {} B: {} wall: {}",
        millis(ra.1),
        millis(rb.1),
        millis(start.elapsed())
    );
    Ok(())
}

async fn sleep(d: Duration) {
    wasip3::clocks::monotonic_clock::wait_for(d.as_nanos() as u64).await;
}

async fn cancel(model: &str) -> Result<(), Failure> {
    let graph = load_model(model, GraphEncoding::Ggml)?;
    let ctx = context(&graph)?;
    let started = Instant::now();
    let long = Box::pin(answer(&ctx, "Once upon a time", 100000));
    match select(long, Box::pin(sleep(Duration::from_millis(200)))).await {
        Either::Left((r, _)) => {
            r?;
            return Err(Failure(
                1,
                "p3_nn: the long compute ended before it was cancelled".into(),
            ));
        }
        // The compute's future is dropped here: the subtask is cancelled.
        Either::Right(((), _)) => {}
    }
    let dropped = started.elapsed();
    let reuse = answer(&ctx, "Hello", 8).await?;
    println!(
        "cancelled after {}; reused after {}",
        millis(dropped),
        millis(started.elapsed())
    );
    println!("reuse: {reuse}");
    Ok(())
}

fn greedy(ctx: &GraphExecutionContext, n: u32) -> Result<(), Failure> {
    let settings = [
        ("temp", "0".to_string()),
        ("repeat-penalty", "1".into()),
        ("n-predict", n.to_string()),
        ("ctx-size", "4096".into()),
        ("threads", "1".into()),
    ];
    for (k, v) in settings {
        properties::set_context_property(ctx, k, &v).map_err(|e| nn_err("set-context-property", e))?;
    }
    Ok(())
}

/// nn-async's generate of `prompt` on `ctx`, greedy, at most `n` pieces.
async fn pieces(
    ctx: &GraphExecutionContext,
    n: u32,
    prompt: &str,
) -> Result<wit_bindgen::StreamReader<String>, Failure> {
    greedy(ctx, n)?;
    generate::generate(ctx, "prompt".into(), prompt.into())
        .await
        .map_err(|e| Failure(1, format!("p3_nn: generate: {e}")))
}

async fn generate_text(args: &[String]) -> Result<(), Failure> {
    let [model, n, prompt] = args else {
        return Err(bad("usage: generate MODEL.gguf N PROMPT".into()));
    };
    let n: u32 = n.parse().map_err(|_| bad(format!("N: '{n}' is not a number")))?;
    let graph = load_model(model, GraphEncoding::Ggml)?;
    let ctx = context(&graph)?;
    let mut pieces = pieces(&ctx, n, prompt).await?;
    let mut text = String::new();
    let mut count = 0;
    while let Some(piece) = pieces.next().await {
        text.push_str(&piece);
        count += 1;
    }
    println!("pieces: {count}");
    println!("text: {text}");
    Ok(())
}

async fn generate_drop(args: &[String]) -> Result<(), Failure> {
    let [model, prompt] = args else {
        return Err(bad("usage: generate-drop MODEL.gguf PROMPT".into()));
    };
    let graph = load_model(model, GraphEncoding::Ggml)?;
    let ctx = context(&graph)?;
    let mut pieces = pieces(&ctx, 100000, "Once upon a time").await?;
    for _ in 0..3 {
        pieces.next().await;
    }
    let started = Instant::now();
    drop(pieces);
    let reuse = answer(&ctx, prompt, 8).await?;
    println!("reused after {}", millis(started.elapsed()));
    println!("reuse: {reuse}");
    Ok(())
}

async fn cancel_onnx(args: &[String]) -> Result<(), Failure> {
    let [model, out] = args else {
        return Err(bad("usage: cancel-onnx MODEL.onnx OUT.f32".into()));
    };
    let graph = load_model(model, GraphEncoding::Onnx)?;
    let ctx = context(&graph)?;
    let x: Vec<u8> = (0..256 * 256)
        .flat_map(|k| ((k % 7) as f32 * 0.01).to_le_bytes())
        .collect();
    let inputs = |n: i64| {
        vec![
            ("x".to_string(), Tensor::new(&[256, 256], TensorType::Fp32, &x)),
            ("n".to_string(), Tensor::new(&[1], TensorType::I64, &n.to_le_bytes())),
        ]
    };
    let started = Instant::now();
    let long = Box::pin(nn_async::compute(&ctx, inputs(1_000_000_000)));
    if let Either::Left((r, _)) = select(long, Box::pin(sleep(Duration::from_millis(200)))).await {
        r.map_err(|e| nn_err("compute", e))?;
        return Err(Failure(
            1,
            "p3_nn: the long compute ended before it was cancelled".into(),
        ));
    }
    let dropped = Instant::now();
    let outputs = nn_async::compute(&ctx, inputs(1))
        .await
        .map_err(|e| nn_err("compute", e))?;
    let next = dropped.elapsed();
    let (_, y) = outputs
        .into_iter()
        .next()
        .ok_or_else(|| Failure(1, "p3_nn: no output".into()))?;
    std::fs::write(out, y.data()).map_err(|e| bad(format!("cannot write {out}: {e}")))?;
    println!(
        "cancelled after {}; next compute done {} after the drop",
        millis(dropped - started),
        millis(next)
    );
    Ok(())
}

struct Command;

impl wasip3::exports::cli::run::Guest for Command {
    async fn run() -> Result<(), ()> {
        let args = wasip3::cli::environment::get_arguments();
        let rest = args.get(2..).unwrap_or(&[]);
        let outcome = match args.get(1).map(String::as_str) {
            Some("classify") => classify(rest).await,
            Some("overlap") if rest.len() == 1 => overlap(&rest[0]).await,
            Some("cancel") if rest.len() == 1 => cancel(&rest[0]).await,
            Some("generate") => generate_text(rest).await,
            Some("generate-drop") => generate_drop(rest).await,
            Some("cancel-onnx") => cancel_onnx(rest).await,
            Some("stress") => stress::stress(rest).await,
            Some("stress-onnx") => stress::stress_onnx(rest).await,
            Some("drop-exit") => stress::drop_exit(rest).await,
            Some("many-tasks") => resources::many_tasks(rest).await,
            Some("many-streams") => resources::many_streams(rest).await,
            _ => Err(bad(
                "usage: p3_nn classify|overlap|cancel|generate|generate-drop|cancel-onnx|stress|stress-onnx|drop-exit|\
                 many-tasks|many-streams ARGS (see its source)"
                    .into(),
            )),
        };
        match outcome {
            Ok(()) => Ok(()),
            Err(Failure(code, msg)) => {
                eprintln!("{msg}");
                wasip3::cli::exit::exit_with_code(code as u8);
                Err(())
            }
        }
    }
}

wasip3::cli::command::export!(Command);

// The world's own export, `answer`, for --invoke.
impl Guest for Command {
    async fn answer() -> String {
        // A 0.3 import awaited first: the call really suspends and resumes.
        wasip3::clocks::monotonic_clock::wait_for(1_000_000).await;
        "42 from an async export".to_string()
    }
}

export!(Command);
