// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Cancellation under stress, for tests/p3/ (issue 54): long work dropped after a random delay,
//! each drop followed at once by the calls a guest makes next on the same context.
//!   p3_nn stress MODEL.gguf ROUNDS SEED PROMPT   each round a 100000-token compute or generate
//!       dropped after 1-500 ms, then at once a set-context-property, an 8-token compute and an
//!       8-token generate of PROMPT; one line per round: what was dropped, the time from the drop's
//!       start to the property call's end ("next"), each call's outcome (answers as hex of UTF-8)
//!   p3_nn stress-onnx MODEL.onnx ROUNDS SEED OUT.f32   (the test's looping model) a compute of
//!       n = 10^9 dropped after 1-500 ms, then a set-context-property and a compute of n = 1,
//!       compared with the first such compute, written to OUT before the rounds
//!   p3_nn drop-exit MODEL.gguf compute|generate|keep MS CODE   a 100000-token compute (or
//!       generate) dropped after MS ms (keep: left in flight), then exit with CODE at once
use std::time::{Duration, Instant};

use futures::future::{select, Either};

use crate::wasi::nn::graph::GraphEncoding;
use crate::wasi::nn::inference::GraphExecutionContext;
use crate::wasi::nn::tensor::{Tensor, TensorType};
use crate::wasinn::nn_async::inference as nn_async;
use crate::wasinn::nn_ext::properties;
use crate::{answer, bad, context, load_model, nn_err, pieces, sleep, Failure};

/// xorshift64*: the rounds are reproducible from the seed the test prints.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

fn number<T: std::str::FromStr>(what: &str, s: &str) -> Result<T, Failure> {
    s.parse().map_err(|_| bad(format!("{what}: '{s}' is not a number")))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const LONG_PROMPT: &str = "Once upon a time";

/// Starts the long work of `kind` on `ctx` and drops it after `delay`: whether it ended first, and
/// when the drop began (the drop itself is part of the time to the next call).
async fn drop_after(ctx: &GraphExecutionContext, kind: &str, delay: Duration) -> (bool, Instant) {
    let long: std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Failure>>>> = if kind == "compute" {
        Box::pin(async { answer(ctx, LONG_PROMPT, 100000).await.map(|_| ()) })
    } else {
        Box::pin(async {
            let mut stream = pieces(ctx, 100000, LONG_PROMPT).await?;
            while stream.next().await.is_some() {}
            Ok(())
        })
    };
    // Work that ended first (a full context) is no failure: the round's checks come after it.
    let raced = select(long, Box::pin(sleep(delay))).await;
    let dropping = Instant::now();
    let ended_first = matches!(raced, Either::Left(_));
    // Cancels the subtask, or drops the stream's reader (mid-read, often).
    drop(raced);
    (ended_first, dropping)
}

/// An 8-token generate of `prompt`, all its pieces.
async fn generated(ctx: &GraphExecutionContext, prompt: &str) -> Result<String, Failure> {
    let mut stream = pieces(ctx, 8, prompt).await?;
    let mut text = String::new();
    while let Some(piece) = stream.next().await {
        text.push_str(&piece);
    }
    Ok(text)
}

fn outcome(r: Result<String, Failure>) -> String {
    match r {
        Ok(text) => hex(text.as_bytes()),
        Err(Failure(_, msg)) => format!("ERR {msg}"),
    }
}

pub async fn stress(args: &[String]) -> Result<(), Failure> {
    let [model, rounds, seed, prompt] = args else {
        return Err(bad("usage: stress MODEL.gguf ROUNDS SEED PROMPT".into()));
    };
    let rounds: u32 = number("ROUNDS", rounds)?;
    let mut rng = Rng(number::<u64>("SEED", seed)? | 1);
    let graph = load_model(model, GraphEncoding::Ggml)?;
    let ctx = context(&graph)?;
    for round in 0..rounds {
        let kind = if rng.below(2) == 0 { "compute" } else { "generate" };
        let delay = 1 + rng.below(500);
        let (ended_first, dropped) = drop_after(&ctx, kind, Duration::from_millis(delay)).await;
        let property = properties::set_context_property(&ctx, "n-predict", "8");
        let next = dropped.elapsed();
        let property = match property {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("ERR {:?}: {}", e.code(), e.data()),
        };
        let computed = outcome(answer(&ctx, prompt, 8).await);
        let streamed = outcome(generated(&ctx, prompt).await);
        println!(
            "round {round} {kind} {delay} ms{}; next {:.2} ms; property {property}; compute {computed}; generate {streamed}",
            if ended_first { " (ended first)" } else { "" },
            next.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn looping_inputs(x: &[u8], n: i64) -> Vec<(String, Tensor)> {
    vec![
        ("x".to_string(), Tensor::new(&[256, 256], TensorType::Fp32, x)),
        ("n".to_string(), Tensor::new(&[1], TensorType::I64, &n.to_le_bytes())),
    ]
}

async fn looping(ctx: &GraphExecutionContext, x: &[u8], n: i64) -> Result<Vec<u8>, Failure> {
    let outputs = nn_async::compute(ctx, looping_inputs(x, n))
        .await
        .map_err(|e| nn_err("compute", e))?;
    let (_, y) = outputs
        .into_iter()
        .next()
        .ok_or_else(|| Failure(1, "p3_nn: no output".into()))?;
    Ok(y.data())
}

pub async fn stress_onnx(args: &[String]) -> Result<(), Failure> {
    let [model, rounds, seed, out] = args else {
        return Err(bad("usage: stress-onnx MODEL.onnx ROUNDS SEED OUT.f32".into()));
    };
    let rounds: u32 = number("ROUNDS", rounds)?;
    let mut rng = Rng(number::<u64>("SEED", seed)? | 1);
    let graph = load_model(model, GraphEncoding::Onnx)?;
    let ctx = context(&graph)?;
    let x: Vec<u8> = (0..256 * 256)
        .flat_map(|k| ((k % 7) as f32 * 0.01).to_le_bytes())
        .collect();
    let want = looping(&ctx, &x, 1).await?;
    std::fs::write(out, &want).map_err(|e| bad(format!("cannot write {out}: {e}")))?;
    for round in 0..rounds {
        let delay = 1 + rng.below(500);
        let long = Box::pin(looping(&ctx, &x, 1_000_000_000));
        let raced = select(long, Box::pin(sleep(Duration::from_millis(delay)))).await;
        let dropped = Instant::now();
        let ended_first = matches!(raced, Either::Left(_));
        drop(raced); // the subtask's cancel
                     // ONNX Runtime has no settable knob: the known answer is its refusal, not "in use".
        let property = properties::set_context_property(&ctx, "threads", "1");
        let next = dropped.elapsed();
        let property = match property {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("ERR {:?}: {}", e.code(), e.data()),
        };
        let computed = match looping(&ctx, &x, 1).await {
            Ok(y) if y == want => "same".to_string(),
            Ok(_) => "DIFFERENT".to_string(),
            Err(Failure(_, msg)) => format!("ERR {msg}"),
        };
        println!(
            "round {round} compute {delay} ms{}; next {:.2} ms; property {property}; compute {computed}",
            if ended_first { " (ended first)" } else { "" },
            next.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

pub async fn drop_exit(args: &[String]) -> Result<(), Failure> {
    let [model, kind, ms, code] = args else {
        return Err(bad("usage: drop-exit MODEL.gguf compute|generate|keep MS CODE".into()));
    };
    let (ms, code): (u64, u8) = (number("MS", ms)?, number("CODE", code)?);
    let graph = load_model(model, GraphEncoding::Ggml)?;
    let ctx = context(&graph)?;
    if kind == "keep" {
        // The compute is still in flight when the guest exits: the host must end it, not the guest.
        let long = Box::pin(answer(&ctx, LONG_PROMPT, 100000));
        let pending = match select(long, Box::pin(sleep(Duration::from_millis(ms)))).await {
            Either::Left(_) => None,
            Either::Right(((), long)) => Some(long),
        };
        wasip3::cli::exit::exit_with_code(code);
        drop(pending);
    } else {
        drop_after(&ctx, kind, Duration::from_millis(ms)).await;
        wasip3::cli::exit::exit_with_code(code);
    }
    Ok(())
}
