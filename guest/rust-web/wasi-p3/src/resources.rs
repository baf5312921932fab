// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Resource-table use, for `-S max-resources` (tests/p3): what Wasmtime's own p3_cli_many_tasks
//! and p3_cli_many_stream test programs do, written again here (they are not published).
//!   p3_nn many-tasks N     N wait-for calls of 2^60 ns started and never awaited: each holds a
//!       subtask entry, so a table bound below N fails the guest; else prints "started N tasks"
//!       and exits at once (wasi:cli/exit: the pending tasks are not waited for)
//!   p3_nn many-streams N   N streams each written to stdout's write-via-stream and dropped at
//!       once: never more than a few entries live, so any bound of a few works; "N streams"
use crate::{bad, Failure};

#[link(wasm_import_module = "wasi:clocks/monotonic-clock@0.3.0")]
unsafe extern "C" {
    // The async-lowered import with no bindings around it, so nothing awaits or drops the subtask.
    #[link_name = "[async-lower]wait-for"]
    fn wait_for(how_long: u64) -> u32;
}

fn count(args: &[String]) -> Result<u32, Failure> {
    args.first()
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| bad("usage: many-tasks|many-streams N".into()))
}

pub async fn many_tasks(args: &[String]) -> Result<(), Failure> {
    let n = count(args)?;
    // Once through the bindings, so that the import's type is in the component.
    wasip3::clocks::monotonic_clock::wait_for(0).await;
    for _ in 0..n {
        unsafe {
            wait_for(1 << 60);
        }
    }
    println!("started {n} tasks");
    wasip3::cli::exit::exit_with_code(0);
    Ok(())
}

pub async fn many_streams(args: &[String]) -> Result<(), Failure> {
    let n = count(args)?;
    for _ in 0..n {
        let (tx, rx) = wasip3::wit_stream::new();
        let _done = wasip3::cli::stdout::write_via_stream(rx);
        drop(tx);
    }
    println!("{n} streams");
    Ok(())
}
