// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A guest built against the `wasi-nn` crate 0.4.0, the first high-level API, which still uses
//! the old witx numbering: it sends u8 tensors as type 2 (f64 in the current numbering). It has
//! no load_by_name, so the model always comes as bytes.
use compat_digits::{check, classify_and_report, fail, logits_from, Args, Digits, ModelRef, Row, FEATURES};
use wasi_nn::{ExecutionTarget, GraphBuilder, GraphEncoding, TensorType};

fn main() {
    let args = Args::parse();
    let digits = Digits::load(&args);
    println!("library: wasi-nn 0.4.0");
    let path = match &args.model {
        ModelRef::File(path) => path,
        ModelRef::Name(_) => fail("wasi-nn 0.4 has no load_by_name: give --model FILE"),
    };
    let graph = check(
        "load",
        GraphBuilder::new(GraphEncoding::Onnx, ExecutionTarget::CPU).build_from_files([path]),
    );
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
