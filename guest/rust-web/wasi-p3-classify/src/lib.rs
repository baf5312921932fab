// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! p3_classify: a WASI 0.3 command (wasi:cli/run@0.3.0) that classifies the digits through the
//! spec's wasi:nn@0.2.0-rc-2024-10-28, as guest/components/wit_classify_digits.c does:
//!   p3_classify MODEL X.f32 Y.u8 [LOGITS_OUT.f32]   or   p3_classify name:GRAPH X.f32 Y.u8 [...]
//! MODEL is loaded (onnx) from a preopened file, name:GRAPH by load-by-name (Wasmtime's
//! `-S nn-graph=onnx::DIR` names the graph after DIR). Each row is one compute on a [1, 64] FP32
//! tensor named "input"; stdout is wit_classify_digits's (the first ten rows, the accuracy), and
//! LOGITS_OUT, if given, receives every logit. Exit 0; 2 for bad arguments or files; 1 for a
//! wasi:nn error ("p3_classify: WHAT: CODE: DATA" on stderr).
//!   p3_classify run MODEL INPUT_NAME DIMS X.bin REPEAT   (scripts/bench-p3.sh: wit_run_model's
//!       `--repeat N --fetch each` in 0.3) compute REPEAT times on one FP32 input (DIMS like
//!       1x3x224x224), each with a fresh tensor, every output read; prints "outputs: N".
wit_bindgen::generate!({
    world: "wasinn:p3-guests/classify",
    path: [
        "../../../wit/wasi-nn/0.2.0-rc-2024-10-28",
        "../../../wit/wasinn-nn-ext",
        "../../../wit/wasinn-nn-async",
        "../wasi-p3/wit",
    ],
    generate_all,
});

#[path = "../../wasi-p3/src/digits.rs"]
mod digits;

use wasi::nn::errors::Error;
use wasi::nn::graph::{load, load_by_name, ExecutionTarget, GraphEncoding};
use wasi::nn::tensor::{Tensor, TensorType};

fn nn_err(what: &str, e: Error) -> (u8, String) {
    (1, format!("p3_classify: {what}: {:?}: {}", e.code(), e.data()))
}

fn read(path: &str) -> Result<Vec<u8>, (u8, String)> {
    std::fs::read(path).map_err(|e| (2, format!("p3_classify: cannot read {path}: {e}")))
}

async fn classify(args: &[String]) -> Result<(), (u8, String)> {
    if args.len() < 3 {
        return Err((
            2,
            "usage: p3_classify MODEL|name:GRAPH X.f32 Y.u8 [LOGITS_OUT.f32]".into(),
        ));
    }
    let graph = match args[0].strip_prefix("name:") {
        Some(name) => load_by_name(name).map_err(|e| nn_err("load-by-name", e))?,
        None => load(&[read(&args[0])?], GraphEncoding::Onnx, ExecutionTarget::Cpu).map_err(|e| nn_err("load", e))?,
    };
    let (x, y) = (read(&args[1])?, read(&args[2])?);
    let ctx = graph
        .init_execution_context()
        .map_err(|e| nn_err("init-execution-context", e))?;
    let compute = async |inputs| -> Result<Vec<u8>, Error> {
        let outputs = ctx.compute(inputs)?;
        Ok(outputs.into_iter().next().map(|(_, t)| t.data()).unwrap_or_default())
    };
    let logits_out = digits::classify(&x, &y, compute)
        .await
        .map_err(|e| (2, format!("p3_classify: {}: {e}", args[1])))?
        .map_err(|e| nn_err("compute", e))?;
    if let Some(path) = args.get(3) {
        std::fs::write(path, &logits_out).map_err(|e| (2, format!("p3_classify: cannot write {path}: {e}")))?;
    }
    Ok(())
}

fn run_model(args: &[String]) -> Result<(), (u8, String)> {
    let [model, name, dims, x, repeat] = args else {
        return Err((2, "usage: p3_classify run MODEL INPUT_NAME DIMS X.bin REPEAT".into()));
    };
    let dims: Vec<u32> = dims
        .split('x')
        .map(|d| {
            d.parse()
                .map_err(|_| (2, format!("p3_classify: DIMS: '{d}' is not a number")))
        })
        .collect::<Result<_, _>>()?;
    let repeat: u32 = repeat
        .parse()
        .map_err(|_| (2, format!("p3_classify: REPEAT: '{repeat}'")))?;
    let graph = load(&[read(model)?], GraphEncoding::Onnx, ExecutionTarget::Cpu).map_err(|e| nn_err("load", e))?;
    let x = read(x)?;
    let ctx = graph
        .init_execution_context()
        .map_err(|e| nn_err("init-execution-context", e))?;
    let mut count = 0;
    for _ in 0..repeat {
        let input = Tensor::new(&dims, TensorType::Fp32, &x);
        let outputs = ctx
            .compute(vec![(name.clone(), input)])
            .map_err(|e| nn_err("compute", e))?;
        count = outputs.len();
        for (_, t) in outputs {
            std::hint::black_box(t.data());
        }
    }
    println!("outputs: {count}");
    Ok(())
}

struct Command;

impl wasip3::exports::cli::run::Guest for Command {
    async fn run() -> Result<(), ()> {
        let args = wasip3::cli::environment::get_arguments();
        let rest = args.get(1..).unwrap_or(&[]);
        let outcome = match rest.first().map(String::as_str) {
            Some("run") => run_model(&rest[1..]),
            _ => classify(rest).await,
        };
        match outcome {
            Ok(()) => Ok(()),
            Err((code, msg)) => {
                eprintln!("{msg}");
                wasip3::cli::exit::exit_with_code(code);
                Err(())
            }
        }
    }
}

wasip3::cli::command::export!(Command);
