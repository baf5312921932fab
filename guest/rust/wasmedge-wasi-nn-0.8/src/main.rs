// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A guest built against `wasmedge-wasi-nn` 0.8.0 (more encodings than 0.7, same ABI); see
//! ../../wasmedge_guest.rs.
const LIBRARY: &str = "wasmedge-wasi-nn 0.8.0";
include!("../../wasmedge_guest.rs");

// WasmEdge's whisper example's calls: GraphBuilder(Whisper, AUTO) with a config from the cache,
// the whole WAV file as an F32 [1, bytes] tensor, compute, get_output(0), unload. Prints the
// transcript as hex ("transcript hex: ..."), as it holds newlines.
fn whisper_main(argv: &[String]) {
    if argv.len() != 3 {
        fail("usage: whisper NAME CONFIG_JSON WAV_FILE");
    }
    println!("library: {}", LIBRARY);
    let builder = GraphBuilder::new(GraphEncoding::Whisper, ExecutionTarget::AUTO).config(argv[1].clone());
    let graph = check("load_by_name_with_config", builder.build_from_cache(&argv[0]));
    let mut ctx = check("init_execution_context", graph.init_execution_context());
    let wav = std::fs::read(&argv[2]).unwrap_or_else(|e| fail(&format!("cannot read {}: {}", argv[2], e)));
    check("set_input", ctx.set_input(0, TensorType::F32, &[1, wav.len()], &wav));
    check("compute", ctx.compute());
    let mut buf = vec![0u8; 1 << 20];
    let n = check("get_output", ctx.get_output(0, &mut buf));
    println!("transcript hex: {}", hex(&buf[..n]));
    check("unload", graph.unload());
}

// WasmEdge's piper example (wasmedge-piper): GraphBuilder(Piper, CPU).build_from_bytes([run
// config]), the text as a U8 [len] tensor, compute, get_output(0) into a 1 MiB buffer, the WAV
// written to OUT.
fn piper_main(argv: &[String]) {
    if argv.len() != 3 {
        fail("usage: piper CONFIG_JSON TEXT OUT_WAV");
    }
    println!("library: {}", LIBRARY);
    let builder = GraphBuilder::new(GraphEncoding::Piper, ExecutionTarget::CPU);
    let graph = check("load", builder.build_from_bytes([argv[0].as_bytes()]));
    let mut ctx = check("init_execution_context", graph.init_execution_context());
    let text = argv[1].as_bytes();
    check("set_input", ctx.set_input(0, TensorType::U8, &[text.len()], text));
    check("compute", ctx.compute());
    let mut buf = vec![0u8; 1 << 20];
    let n = check("get_output", ctx.get_output(0, &mut buf));
    std::fs::write(&argv[2], &buf[..n]).unwrap_or_else(|e| fail(&format!("cannot write {}: {}", argv[2], e)));
    println!("wrote {}: {} bytes", argv[2], n);
}
