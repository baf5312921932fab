// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The HTTP side of a server whose 0.3 instances are reused: one current-thread tokio runtime per
//! worker (a lane), each on a thread of its own with its own connections and its own reused
//! instances (Shared::p3_instances), so none of a request's wake-ups crosses to another thread
//! (docs/benchmarks.md: a multi-thread runtime woke a sibling worker for every request with a
//! body). A lane has no block_in_place: its long wasi:nn calls are async host functions whose work
//! runs on the lane's blocking pool (engine's long_call.rs), so the lane serves its other
//! connections, health checks included, meanwhile.
use std::cell::Cell;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::{watch, Notify};
use wasmtime::{format_err, Result};

use super::busy_poll;

thread_local! {
    static LANE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The lane whose thread this is, if any.
pub(super) fn current() -> Option<usize> {
    LANE.with(Cell::get)
}

/// How a server's runtimes end: drained (their blocking work gets a few seconds to finish) or cut.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum End {
    Drained,
    Cut,
}

impl End {
    pub(super) fn of(cut: u64) -> End {
        if cut == 0 {
            End::Drained
        } else {
            End::Cut
        }
    }

    pub(super) fn shut_down(self, rt: tokio::runtime::Runtime) {
        match self {
            // Drained: no guest runs, so its threads end at once and free what they hold.
            End::Drained => rt.shutdown_timeout(Duration::from_secs(5)),
            // Guests still running were cut: nothing waits for them (the CLI then exits).
            End::Cut => rt.shutdown_background(),
        }
    }
}

pub(super) struct Lanes {
    handles: Vec<Handle>,
    threads: Vec<JoinHandle<()>>,
    end: watch::Sender<Option<End>>,
}

impl Lanes {
    /// Starts `count` lanes, each thread first running `on_start` and polling for up to
    /// `busy_poll` after its last work before it sleeps (busy_poll.rs; zero: never).
    pub(super) fn start(count: usize, on_start: fn(), busy_poll: Duration) -> Result<Lanes> {
        let (end, end_rx) = watch::channel(None);
        let mut lanes = Lanes {
            handles: Vec::with_capacity(count),
            threads: Vec::with_capacity(count),
            end,
        };
        for lane in 0..count {
            let woke = Arc::new(Notify::new());
            let woke_hook = woke.clone();
            let rt = tokio::runtime::Builder::new_current_thread()
                .thread_name("wasinn-http-block")
                .on_thread_start(on_start)
                .on_thread_unpark(move || woke_hook.notify_one())
                .enable_all()
                .build()?;
            lanes.handles.push(rt.handle().clone());
            let mut end_rx = end_rx.clone();
            let thread = std::thread::Builder::new()
                .name(format!("wasinn-http-{lane}"))
                .spawn(move || {
                    on_start();
                    LANE.with(|l| l.set(Some(lane)));
                    // The lane's tasks run while its thread waits here for the end.
                    let end = rt.block_on(async {
                        tokio::select! {
                            end = end_rx.wait_for(Option::is_some) => match end {
                                Ok(end) => end.unwrap_or(End::Cut),
                                Err(_) => End::Cut,
                            },
                            _ = busy_poll::run(busy_poll, &woke), if !busy_poll.is_zero() => End::Cut,
                        }
                    });
                    end.shut_down(rt);
                })
                .map_err(|e| format_err!("starting an HTTP thread: {e}"))?;
            lanes.threads.push(thread);
        }
        Ok(lanes)
    }

    pub(super) fn count(&self) -> usize {
        self.handles.len()
    }

    /// Where each lane's tasks are spawned, by lane.
    pub(super) fn handles(&self) -> Vec<Handle> {
        self.handles.clone()
    }

    /// Ends every lane (its connections and instances dropped there) and joins its thread.
    pub(super) fn stop(&mut self, how: End) {
        let _ = self.end.send(Some(how));
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        self.stop(End::Cut);
    }
}
