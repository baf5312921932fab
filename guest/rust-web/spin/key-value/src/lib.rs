// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A Spin http component that keeps a counter in Spin's key-value store
//! (`fermyon:spin/key-value@2.0.0`), which wasinn does not serve: `wasinn serve` refuses it at
//! start, naming the import (tests/backends/llamacpp/spin_test.py).
use spin_sdk::http::{IntoResponse, Request, Response};
use spin_sdk::http_component;
use spin_sdk::key_value::Store;

#[http_component]
fn handle(_req: Request) -> anyhow::Result<impl IntoResponse> {
    let store = Store::open_default()?;
    let n = store.get("count")?.map_or(0, |v| v.first().copied().unwrap_or(0)) + 1;
    store.set("count", &[n])?;
    Ok(Response::new(200, format!("{n}")))
}
