// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The library's SONAME, so that libwasinn and the command record it as their dependency (a
// cdylib has none by default and would be recorded by path).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libwasinn_wasmtime.so");
    println!("cargo:rerun-if-changed=build.rs");
}
