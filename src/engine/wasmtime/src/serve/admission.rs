// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Admission to the guest workers (serve_host.h's `workers` and `max_queue`, and the `running`,
//! `queued` and `rejected` counts): a request whose body was read takes a free worker, else
//! waits in a bounded queue; a full queue is answered 503 at once.
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hyper::StatusCode;
use tokio::sync::OwnedSemaphorePermit;

use super::answer::HostAnswer;
use super::shared::Shared;

impl Shared {
    /// A worker for one request, held until its guest's state is freed; 503 when the queue is
    /// full, or when the server shuts down while the request waits.
    pub(super) async fn admit(&self) -> Result<OwnedSemaphorePermit, HostAnswer> {
        if let Ok(worker) = self.guests.clone().try_acquire_owned() {
            return Ok(worker);
        }
        if self.queued.fetch_add(1, Relaxed) >= self.settings.max_queue {
            self.queued.fetch_sub(1, Relaxed);
            self.rejected.fetch_add(1, Relaxed);
            return Err(HostAnswer::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "every worker is busy and the queue is full; retry later",
                "queue full",
            ));
        }
        let waiting = Waiting(&self.queued);
        let worker = self.guests.clone().acquire_owned().await;
        drop(waiting);
        worker.map_err(|_| HostAnswer::new(StatusCode::SERVICE_UNAVAILABLE, "shutting down", String::new()))
    }
}

/// A request in the queue, counted out however the wait ends: a client that leaves drops the
/// waiting future.
struct Waiting<'a>(&'a AtomicU64);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}
