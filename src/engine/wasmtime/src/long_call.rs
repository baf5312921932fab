// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The wasi:nn calls that may block for long (a load, a compute, a generation step), defined once
//! for both kinds of store. `LongCalls::InPlace`: a plain host function that blocks its thread
//! (the C API's stores, a server's instance per request on a guest thread). `LongCalls::OffThread`:
//! an async host function for stores that run on a current-thread runtime (the server's reused
//! 0.3 instances, src/serve/http/src/lanes.rs), where nothing could take the thread's other
//! connections over: its work runs on tokio's blocking pool through a share of the guest's
//! wasi-nn state, unless the store's recent calls were short, and the guest waits meanwhile.
//! (Not a concurrent one: Wasmtime lets those satisfy only `async func` imports.)
use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::{Accessor, HasData};
use wasmtime::{format_err, AsContext, Result};

use crate::host::*;
use crate::wit_nn::{table, Access, NnStore};

/// How a linker's long wasi:nn calls are defined (see the module's comment).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LongCalls {
    InPlace,
    OffThread,
}

/// A share of one guest's wasi-nn state that another thread may use (wit_host.h: guest_share).
pub(crate) struct SharedGuest {
    pub(crate) host: WitHost,
    pub(crate) guest: Guest,
}
// The shared state is the C++ session, whose functions may be called from any thread.
unsafe impl Send for SharedGuest {}
unsafe impl Sync for SharedGuest {}

impl Drop for SharedGuest {
    fn drop(&mut self) {
        unsafe { slot!(self.host, guest_release)(self.guest) }
    }
}

impl SharedGuest {
    pub(crate) fn of<T: NnStore, D: HasData>(accessor: &Accessor<T, D>) -> Result<Arc<SharedGuest>> {
        accessor.with(|access| SharedGuest::of_guest(table(), T::nn_guest(access.as_context())))
    }

    /// A share of `guest`, a store's guest state.
    pub(crate) fn of_guest(host: WitHost, guest: Guest) -> Result<Arc<SharedGuest>> {
        let mut out = WitOut::default();
        let status = unsafe { slot!(host, guest_share)(guest, &mut out) };
        crate::wit_nn::must(status, &out, "share")?;
        Ok(Arc::new(SharedGuest {
            host,
            guest: out.data as Guest,
        }))
    }

    pub(crate) fn cancel(&self, context: u32) {
        let mut out = WitOut::default();
        // An unknown context (the guest dropped it) has nothing running to stop.
        let _ = unsafe { slot!(self.host, cancel)(self.guest, context, &mut out) };
    }

    pub(crate) fn drop_tensors(&self, reps: &[(String, u32)]) {
        for (_, rep) in reps {
            let mut out = WitOut::default();
            let _ = unsafe { slot!(self.host, drop)(self.guest, WitResource::Tensor, *rep, &mut out) };
        }
    }
}

/// Cancels the context's work when dropped before `done`: the caller gave up on the call (the
/// guest dropped it, or its store is going).
pub(crate) struct CancelOnDrop {
    pub(crate) shared: Arc<SharedGuest>,
    pub(crate) context: u32,
    pub(crate) done: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.done {
            self.shared.cancel(self.context);
        }
    }
}

/// A guest state pointer that a long call's work takes to the blocking pool (the share's).
struct SendGuest(Guest);
unsafe impl Send for SendGuest {}

/// A long call of `LongCalls::InPlace`: `work` makes the answer on the store's thread.
pub(crate) fn in_place<T: NnStore, A, R>(
    access: &Access<'_, T>,
    args: A,
    work: fn(WitHost, Guest, A) -> Result<R>,
) -> Result<R> {
    work(table(), T::nn_guest(access.as_context()), args)
}

/// A long call of `LongCalls::OffThread`, `name` the WIT function: `work` makes the answer in place
/// when the store's recent calls of it were short, else on tokio's blocking pool through a share of
/// the guest's state while the guest (its whole store) waits, the lane's thread does not. Dropped
/// before the answer (the store is going: a trap, a deadline, the server's end), the call stops the
/// framework's work on `context`, if it names one.
pub(crate) async fn off_thread<T: NnStore, A: Send + 'static, R: Send + 'static>(
    access: Access<'_, T>,
    name: &'static str,
    context: Option<u32>,
    args: A,
    work: fn(WitHost, Guest, A) -> Result<R>,
) -> Result<R> {
    let host = table();
    let start = Instant::now();
    let guest = SendGuest(T::nn_guest(access.as_context()));
    let in_place = access.as_context().data().long_call_inline(name);
    let result = if in_place {
        work(host, guest.0, args)
    } else {
        let shared = SharedGuest::of_guest(host, guest.0)?;
        let mut cancel = context.map(|c| CancelOnDrop {
            shared: shared.clone(),
            context: c,
            done: false,
        });
        let guest = SendGuest(shared.guest);
        let done = tokio::task::spawn_blocking(move || {
            let guest = guest;
            let answer = work(host, guest.0, args);
            // Held to the work's end, even when the caller gave up and its future is gone.
            drop(shared);
            answer
        })
        .await
        .map_err(|e| format_err!("wasi:nn {name}: its worker thread failed: {e}"));
        if let Some(c) = cancel.as_mut() {
            c.done = true;
        }
        done?
    };
    access
        .as_context()
        .data()
        .long_call_took(name, start.elapsed(), in_place);
    result
}

/// A long call's host function in the expansion `$mode` (bindings.rs): `blocking`'s is plain,
/// `off_thread`'s an async function that may leave the store's thread. `$context`: the execution
/// context a drop of the call cancels, if any; `$work` makes the answer from the arguments
/// `($arg, ...)` (`in_place` and `off_thread as run_off_thread` in scope where it is used).
macro_rules! long_fn {
    (blocking, $name:literal, fn $f:ident($host:ident $(, $a:ident: $at:ty)*) -> $r:ty, $context:expr,
     ($($arg:expr),*), $work:expr) => {
        fn $f($host: Access<'_, T>, $($a: $at),*) -> Result<$r> {
            in_place(&$host, ($($arg,)*), $work)
        }
    };
    (off_thread, $name:literal, fn $f:ident($host:ident $(, $a:ident: $at:ty)*) -> $r:ty, $context:expr,
     ($($arg:expr),*), $work:expr) => {
        fn $f($host: Access<'_, T>, $($a: $at),*) -> impl std::future::Future<Output = Result<$r>> + Send {
            let context: Option<u32> = $context;
            run_off_thread($host, $name, context, ($($arg,)*), $work)
        }
    };
}
pub(crate) use long_fn;
