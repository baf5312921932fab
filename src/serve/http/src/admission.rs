// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A worker for a request whose body was read, asked of the C++ side's admission policy
//! (serve_host.h's `wasinn_serve_admission`, serve/admission.h: the one the OIP server uses too):
//! a free worker at once, else a wait in its bounded queue, else 503 at once. This file only
//! turns the policy's callback into an awaited answer and gives the worker back on drop.
use std::ffi::c_void;
use std::sync::Arc;

use hyper::StatusCode;
use tokio::sync::oneshot;

use super::answer::HostAnswer;
use super::shared::{Callbacks, Shared};
use super::{ADMISSION_ADMITTED, ADMISSION_QUEUED};
use crate::host::slot;

/// A worker held; given back to the policy when dropped (once the guest's state is freed). It
/// keeps the callbacks, and with them the policy, alive.
pub(super) struct Worker(Arc<Callbacks>);

impl Drop for Worker {
    fn drop(&mut self) {
        unsafe { slot!(self.0.admission, leave)(self.0.admission.policy) }
    }
}

/// What a queued request waits on: the policy's grant sends the worker (or None: closed). A
/// worker sent to a request that no longer waits is dropped with the message, so given back.
type Waiter = (oneshot::Sender<Option<Worker>>, Arc<Callbacks>);

unsafe extern "C" fn granted(waiter: *mut c_void, admitted: bool) {
    let (tx, callbacks) = *Box::from_raw(waiter as *mut Waiter);
    let _ = tx.send(admitted.then_some(Worker(callbacks)));
}

/// A request's place in the queue, withdrawn however the wait ends unanswered (a client that
/// leaves drops the waiting future). Owns the waiter's box until the policy's grant takes it.
struct Waiting {
    callbacks: Arc<Callbacks>,
    ticket: u64,
    waiter: Option<*mut Waiter>,
}

// The box is handed only to the policy's thread-safe functions (serve_host.h).
unsafe impl Send for Waiting {}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(waiter) = self.waiter {
            let table = &self.callbacks.admission;
            if unsafe { slot!(table, withdraw)(table.policy, self.ticket) } {
                // Withdrawn before its grant: the box is ours again.
                drop(unsafe { Box::from_raw(waiter) });
            }
        }
    }
}

/// Asks the policy; Ok(worker) when admitted at once, Err((waiting, answer)) when queued.
fn enter(callbacks: &Arc<Callbacks>) -> Result<Worker, Option<(Waiting, oneshot::Receiver<Option<Worker>>)>> {
    let (tx, rx) = oneshot::channel();
    let waiter = Box::into_raw(Box::new((tx, callbacks.clone())));
    let mut ticket = 0u64;
    let table = &callbacks.admission;
    match unsafe { slot!(table, enter)(table.policy, Some(granted), waiter as *mut c_void, &mut ticket) } {
        ADMISSION_QUEUED => Err(Some((
            Waiting {
                callbacks: callbacks.clone(),
                ticket,
                waiter: Some(waiter),
            },
            rx,
        ))),
        entry => {
            // Not queued: the policy keeps nothing of the box.
            drop(unsafe { Box::from_raw(waiter) });
            if entry == ADMISSION_ADMITTED {
                Ok(Worker(callbacks.clone()))
            } else {
                Err(None)
            }
        }
    }
}

impl Shared {
    /// A worker for one request; 503 when the queue is full, or when the server shuts down
    /// while the request waits.
    pub(super) async fn admit(&self) -> Result<Worker, HostAnswer> {
        match enter(&self.callbacks) {
            Ok(worker) => Ok(worker),
            Err(Some((mut waiting, answer))) => {
                let answer = answer.await;
                waiting.waiter = None; // answered: the grant took the box
                match answer {
                    Ok(Some(worker)) => Ok(worker),
                    _ => Err(HostAnswer::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "shutting down",
                        String::new(),
                    )),
                }
            }
            Err(None) => Err(HostAnswer::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "every worker is busy and the queue is full; retry later",
                "queue full",
            )),
        }
    }
}
