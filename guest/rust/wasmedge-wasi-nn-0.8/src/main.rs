//! A guest built against `wasmedge-wasi-nn` 0.8.0 (more encodings than 0.7, same ABI); see
//! ../../wasmedge_guest.rs.
const LIBRARY: &str = "wasmedge-wasi-nn 0.8.0";
include!("../../wasmedge_guest.rs");
