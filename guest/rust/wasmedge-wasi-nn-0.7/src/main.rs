//! A guest built against `wasmedge-wasi-nn` 0.7.1, WasmEdge's crate with its extensions
//! (load_by_name_with_config, unload); see ../../wasmedge_guest.rs.
const LIBRARY: &str = "wasmedge-wasi-nn 0.7.1";
include!("../../wasmedge_guest.rs");
