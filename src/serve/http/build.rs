// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! serve/http's Rust mirrors of its C contract, generated at build time by rust-bindgen (the
//! engine's c_mirrors.rs says how): serve_host.h's types and the request record of
//! include/wasinn/request_record.h, into `$OUT_DIR/serve_host.rs`, which lib.rs includes. The
//! headers are the one definition.
use std::path::{Path, PathBuf};

#[path = "../../engine/wasmtime/c_mirrors.rs"]
mod c_mirrors;

/// serve_host.h's mirrors. `src`: the checkout's src/ (or scripts/build-engine.sh's copy of its
/// Rust parts and headers); `include`: the public headers' directory (include/, beside src/);
/// `wasmtime_include`: Wasmtime's C API headers.
pub fn serve_host_mirror(src: &Path, include: &Path, wasmtime_include: &Path) -> c_mirrors::Mirror<'static> {
    c_mirrors::Mirror {
        header: src.join("serve/http/serve_host.h"),
        include: vec![src.to_path_buf(), include.to_path_buf(), wasmtime_include.to_path_buf()],
        types: &[
            "wasinn_request_record_t",
            "wasinn_serve_stats",
            "wasinn_admission_entry",
            "wasinn_serve_admission",
            "wasinn_serve_config",
        ],
        // wit_host.h's types are the engine's; Wasmtime's handles the C API crate's.
        elsewhere: &["wasinn_wit_.*", "wasm_engine_t", "wasmtime_component_t"],
        rust_enums: &[],
        variant_prefix: None,
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    // Wasmtime's C API crate's headers (its build script says where: its `links` key's `include`).
    let wasmtime_include = std::env::var("DEP_WASMTIME_C_API_INCLUDE").expect("wasmtime-c-api-impl gives its include/");
    serve_host_mirror(
        &manifest.join("../.."),
        &manifest.join("../../../include"),
        Path::new(&wasmtime_include),
    )
    .write("serve_host.rs");
}
