// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A guest built against `wasmedge-wasi-nn` 0.7.1, WasmEdge's crate with its extensions
//! (load_by_name_with_config, unload); see ../../wasmedge_guest.rs.
const LIBRARY: &str = "wasmedge-wasi-nn 0.7.1";
include!("../../wasmedge_guest.rs");

// 0.7.1 has no GraphEncoding::Whisper (0.8.0 added it).
fn whisper_main(_argv: &[String]) {
    fail("whisper: wasmedge-wasi-nn 0.7.1 has no Whisper encoding; use the 0.8.0 guest");
}

// 0.7.1 has no GraphEncoding::Piper (0.8.0 added it).
fn piper_main(_argv: &[String]) {
    fail("piper: wasmedge-wasi-nn 0.7.1 has no Piper encoding; use the 0.8.0 guest");
}
