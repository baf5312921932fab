// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Only here so that cargo builds the wasmtime-cli dependency; see Cargo.toml.
