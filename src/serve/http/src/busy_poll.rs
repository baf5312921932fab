// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A lane's busy poll (`--busy-poll`): after its connections last had work, a lane keeps checking its
//! sockets for a short window instead of sleeping, so the next request on a kept-alive connection
//! is read without its thread, and on a VM its vCPU, being put to sleep and woken again (on this
//! 2-vCPU VM, whose kernel does not poll before halting, that wake-up was most of a small request's
//! time: docs/benchmarks.md). The window adapts as Linux's guest halt-polling does: it shrinks
//! while the lane's sleeps are longer than the longest window (polling would have been waste)
//! and grows back when they are shorter.
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

thread_local! {
    /// Polls of this lane's connections so far: what the lane counts as its work.
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// A connection's future (or an HTTP/2 stream's), counted as its lane's work each time it is
/// polled: a request arriving, an answer going out. (Counting, not timing: on a VM a thread's
/// clocks run on while the host has its vCPU elsewhere.)
pub(super) struct Counted<F>(Pin<Box<F>>);

impl<F: Future> Counted<F> {
    pub(super) fn new(future: F) -> Counted<F> {
        Counted(Box::pin(future))
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        WORK.with(|w| w.set(w.get() + 1));
        self.0.as_mut().poll(cx)
    }
}

fn work() -> u64 {
    WORK.with(Cell::get)
}

/// The window an idle lane polls for, between 0 and `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Window {
    now: Duration,
    max: Duration,
}

impl Window {
    pub(super) fn new(max: Duration) -> Window {
        Window { now: max, max }
    }

    /// Learns from a sleep of `slept` (from the lane's last work to its wake-up), which came after
    /// polling for the current window without a request arriving.
    pub(super) fn after_sleep(&mut self, slept: Duration) {
        if slept > self.max {
            // No window would have caught it: poll less.
            self.now /= 2;
            if self.now < self.max / 16 {
                self.now = Duration::ZERO;
            }
        } else if slept > self.now {
            // A longer window would have caught it.
            self.now = (self.now * 2).clamp(self.max / 4, self.max);
        }
    }

    pub(super) fn get(&self) -> Duration {
        self.now
    }
}

/// Runs for the lane's life inside its `block_on`: `woke` is notified each time the lane's thread
/// wakes from a sleep (tokio's on_thread_unpark). A yield makes tokio's current-thread scheduler
/// check the I/O driver without blocking, so polling is yielding until the window has passed.
pub(super) async fn run(max: Duration, woke: &Notify) {
    let mut window = Window::new(max);
    let mut last_work = Instant::now();
    loop {
        woke.notified().await;
        window.after_sleep(last_work.elapsed());
        last_work = Instant::now();
        while last_work.elapsed() < window.get() {
            let before = work();
            tokio::task::yield_now().await;
            if work() != before {
                last_work = Instant::now();
            } else {
                // Nothing came: a thread waiting for this CPU (another lane, a client) goes first.
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_micros(200);

    #[test]
    fn sparse_requests_stop_the_polling_and_dense_ones_bring_it_back() {
        let mut w = Window::new(MAX);
        assert_eq!(w.get(), MAX);
        for _ in 0..5 {
            w.after_sleep(Duration::from_millis(50));
        }
        assert_eq!(w.get(), Duration::ZERO, "{w:?}");
        w.after_sleep(Duration::from_micros(30));
        assert_eq!(w.get(), MAX / 4);
        w.after_sleep(Duration::from_micros(120));
        assert_eq!(w.get(), MAX / 2);
        w.after_sleep(Duration::from_micros(150));
        assert_eq!(w.get(), MAX);
    }

    #[test]
    fn a_sleep_the_window_would_have_caught_changes_nothing() {
        let mut w = Window::new(MAX);
        w.after_sleep(Duration::from_micros(10));
        assert_eq!(w.get(), MAX);
    }

    #[test]
    fn a_zero_maximum_never_polls() {
        let mut w = Window::new(Duration::ZERO);
        w.after_sleep(Duration::from_micros(10));
        w.after_sleep(Duration::from_secs(1));
        assert_eq!(w.get(), Duration::ZERO);
    }
}
