// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The body of both WasmEdge guests (wasmedge-wasi-nn 0.7.1 and 0.8.0), included by each crate's
// main.rs so the same code is compiled against each version. WasmEdge's own way of working:
// `--name N` with `--config JSON` is build_from_cache = load_by_name_with_config (target AUTO),
// `--model F` loads bytes with encoding Autodetect (5). After classifying it unloads the graph,
// checks the handle is dead, then runs `--cycles N` load-infer-unload rounds like WasmEdge's
// test/unload example. `stream NAME CONFIG PROMPT` instead generates text from a GGML model as
// WasmEdge's llama-stream example does (stream_main); `whisper NAME CONFIG WAV` transcribes as
// its whisper example does (0.8.0 only: whisper_main in each crate's main.rs), `piper CONFIG TEXT
// OUT` speaks as its piper example does (0.8.0 only: piper_main). `schema NAME CONFIG METADATA PROMPT` and
// `embed NAME CONFIG PROMPT` run WasmEdge's json-schema and embedding examples' calls (one_answer).
use compat_digits::{argmax, check, classify_and_report, fail, logits_from, Args, Digits, ModelRef, Row, FEATURES};
use wasmedge_wasi_nn::{
    BackendError, Error, ExecutionTarget, Graph, GraphBuilder, GraphEncoding, GraphExecutionContext, TensorType,
};

fn build(args: &Args) -> Graph {
    match &args.model {
        ModelRef::File(path) => check(
            "load",
            GraphBuilder::new(GraphEncoding::Autodetec, ExecutionTarget::AUTO).build_from_files([path]),
        ),
        ModelRef::Name(name) => {
            let mut builder = GraphBuilder::new(GraphEncoding::Onnx, ExecutionTarget::AUTO);
            if let Some(config) = &args.config {
                builder = builder.config(config.clone());
            }
            check("load_by_name_with_config", builder.build_from_cache(name))
        }
    }
}

fn infer(ctx: &mut GraphExecutionContext, row: Row<'_>) -> Result<Vec<f32>, String> {
    let dims = [1, FEATURES];
    match row {
        Row::F32(x) => ctx.set_input(0, TensorType::F32, &dims, x),
        Row::U8(x) => ctx.set_input(0, TensorType::U8, &dims, x),
    }
    .map_err(|e| format!("set_input: {:?}", e))?;
    ctx.compute().map_err(|e| format!("compute: {:?}", e))?;
    let mut out = [0f32; 16];
    let n = ctx
        .get_output(0, &mut out)
        .map_err(|e| format!("get_output: {:?}", e))?;
    logits_from(&out, n)
}

// Generates once with compute + get_output, then again token by token with compute_single +
// get_output_single until end_of_sequence, then fini_single; prints both texts ({:?}-quoted)
// and the token count, so a test can check the stream adds up to the one-shot answer.
fn stream_main(argv: &[String]) {
    if argv.len() != 3 {
        fail("usage: stream NAME CONFIG_JSON PROMPT");
    }
    println!("library: {}", LIBRARY);
    let builder = GraphBuilder::new(GraphEncoding::Ggml, ExecutionTarget::AUTO).config(argv[1].clone());
    let graph = check("load_by_name_with_config", builder.build_from_cache(&argv[0]));
    let mut ctx = check("init_execution_context", graph.init_execution_context());
    let prompt = argv[2].as_bytes();
    let mut buf = vec![0u8; 24576];

    check("set_input", ctx.set_input(0, TensorType::U8, &[prompt.len()], prompt));
    check("compute", ctx.compute());
    let n = check("get_output", ctx.get_output(0, &mut buf));
    println!("oneshot: {:?}", String::from_utf8_lossy(&buf[..n]));

    check("set_input", ctx.set_input(0, TensorType::U8, &[prompt.len()], prompt));
    let (mut streamed, mut tokens) = (Vec::new(), 0u32);
    loop {
        match ctx.compute_single() {
            Ok(()) => {}
            Err(Error::BackendError(BackendError::EndOfSequence)) => break,
            Err(e) => fail(&format!("error in compute_single after {} tokens: {:?}", tokens, e)),
        }
        let n = check("get_output_single", ctx.get_output_single(0, &mut buf));
        streamed.extend_from_slice(&buf[..n]);
        tokens += 1;
    }
    check("fini_single", ctx.fini_single());
    println!("stream: {:?}", String::from_utf8_lossy(&streamed));
    println!("stream tokens: {}", tokens);
    check("unload", graph.unload());
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b)).collect()
}

// One compute on a GGML model loaded by name with CONFIG: METADATA (when not empty) goes to
// input 1 first, as WasmEdge's examples send per-request options. Prints output 0's bytes as hex
// ("output hex: ..."), which may be any text, newlines included. With `embed`, the output must be
// WasmEdge's JSON text (its embedding example parses it; f32 bytes made that example panic).
fn one_answer(argv: &[String], embed: bool) {
    let (config, metadata, prompt) = match (embed, argv.len()) {
        (false, 4) => (&argv[1], argv[2].as_str(), &argv[3]),
        (true, 3) => (&argv[1], "", &argv[2]),
        _ => fail("usage: schema NAME CONFIG_JSON METADATA_JSON PROMPT | embed NAME CONFIG_JSON PROMPT"),
    };
    println!("library: {}", LIBRARY);
    let builder = GraphBuilder::new(GraphEncoding::Ggml, ExecutionTarget::AUTO).config(config.clone());
    let graph = check("load_by_name_with_config", builder.build_from_cache(&argv[0]));
    let mut ctx = check("init_execution_context", graph.init_execution_context());
    if !metadata.is_empty() {
        check(
            "set_input(1)",
            ctx.set_input(1, TensorType::U8, &[1], metadata.as_bytes()),
        );
    }
    check(
        "set_input(0)",
        ctx.set_input(0, TensorType::U8, &[1], prompt.as_bytes()),
    );
    check("compute", ctx.compute());
    let mut buf = vec![0u8; 1 << 20];
    let n = check("get_output", ctx.get_output(0, &mut buf));
    let out = &buf[..n];
    if embed && !(out.starts_with(b"{\"n_embedding\": ") && std::str::from_utf8(out).is_ok()) {
        fail(&format!(
            "the embedding is not WasmEdge's JSON text: {} bytes starting {}",
            n,
            hex(&out[..n.min(16)])
        ));
    }
    println!("output bytes: {}", n);
    println!("output hex: {}", hex(out));
    check("unload", graph.unload());
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match argv.first().map(String::as_str) {
        Some("stream") => return stream_main(&argv[1..]),
        Some("schema") => return one_answer(&argv[1..], false),
        Some("embed") => return one_answer(&argv[1..], true),
        Some("whisper") => return whisper_main(&argv[1..]), // each crate's main.rs defines it
        Some("piper") => return piper_main(&argv[1..]),     // likewise
        _ => {}
    }
    let args = Args::parse();
    let digits = Digits::load(&args);
    println!("library: {}", LIBRARY);
    let graph = build(&args);
    let mut ctx = check("init_execution_context", graph.init_execution_context());
    classify_and_report(&digits, |row| infer(&mut ctx, row));
    let want = argmax(&check("row 0", infer(&mut ctx, digits.row(0))));

    check("unload", graph.unload());
    println!("unload: ok");
    match graph.init_execution_context() {
        Ok(_) => println!("after unload: init_execution_context succeeded"),
        Err(e) => println!("after unload: init_execution_context failed: {:?}", e),
    }

    for round in 0..args.cycles {
        let graph = build(&args);
        let mut ctx = check("init_execution_context", graph.init_execution_context());
        let got = argmax(&check("row 0", infer(&mut ctx, digits.row(0))));
        if got != want {
            fail(&format!(
                "cycle {}: row 0 classified as {}, first run said {}",
                round, got, want
            ));
        }
        check("unload", graph.unload());
    }
    if args.cycles > 0 {
        println!("cycles: {} ok", args.cycles);
    }
}
