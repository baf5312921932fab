// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! serve/pipeline's Rust mirrors of its C contract, pipeline_host.h's types, generated at build
//! time by rust-bindgen (the engine's c_mirrors.rs says how) into `$OUT_DIR/pipeline_host.rs`,
//! which lib.rs includes. The header is the one definition.
use std::path::PathBuf;

#[path = "../../engine/wasmtime/c_mirrors.rs"]
mod c_mirrors;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let src = manifest.join("../..");
    // Wasmtime's C API crate's headers (its build script says where: its `links` key's `include`).
    let wasmtime_include = std::env::var("DEP_WASMTIME_C_API_INCLUDE").expect("wasmtime-c-api-impl gives its include/");
    c_mirrors::Mirror {
        header: src.join("serve/pipeline/pipeline_host.h"),
        include: vec![src.clone(), PathBuf::from(wasmtime_include)],
        types: &[
            "wasinn_pipeline_config",
            "wasinn_pipeline_tensor",
            "wasinn_pipeline_spec",
            "wasinn_pipeline_answer",
        ],
        // wit_host.h's types are the engine's; Wasmtime's handles the C API crate's.
        elsewhere: &["wasinn_wit_.*", "wasm_engine_t", "wasmtime_component_t"],
        rust_enums: &[],
        variant_prefix: None,
    }
    .write("pipeline_host.rs");
}
