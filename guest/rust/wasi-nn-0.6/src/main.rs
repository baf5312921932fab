// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A guest built against the `wasi-nn` crate 0.6.0 (current witx numbering: u8 = 3), the crate
//! Wasmtime's examples use. `--model F` loads the bytes with encoding Onnx on CPU; `--name N`
//! uses load_by_name, which Wasmtime serves from `-S nn-graph=onnx::DIR` (N = DIR's base name).
use compat_digits::{check, classify_and_report, logits_from, Args, Digits, ModelRef, Row, FEATURES};
use wasi_nn::{ExecutionTarget, GraphBuilder, GraphEncoding, TensorType};

fn main() {
    let args = Args::parse();
    let digits = Digits::load(&args);
    println!("library: wasi-nn 0.6.0");
    let builder = GraphBuilder::new(GraphEncoding::Onnx, ExecutionTarget::CPU);
    let graph = match &args.model {
        ModelRef::File(path) => check("load", builder.build_from_files([path])),
        ModelRef::Name(name) => check("load_by_name", builder.build_from_cache(name)),
    };
    let mut ctx = check("init_execution_context", graph.init_execution_context());
    let ty = if args.input_u8 { TensorType::U8 } else { TensorType::F32 };
    println!("tensor type sent: {}", ty as u32);
    classify_and_report(&digits, |row| {
        let dims = [1, FEATURES];
        match row {
            Row::F32(x) => ctx.set_input(0, ty, &dims, x),
            Row::U8(x) => ctx.set_input(0, ty, &dims, x),
        }
        .map_err(|e| format!("set_input: {:?}", e))?;
        ctx.compute().map_err(|e| format!("compute: {:?}", e))?;
        let mut out = [0f32; 16];
        let n = ctx
            .get_output(0, &mut out)
            .map_err(|e| format!("get_output: {:?}", e))?;
        logits_from(&out, n)
    });
}
