// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasinn:nn-async@0.1.0` (wit/wasinn-nn-async/nn-async.wit), for WASI 0.3 guests: compute as an
//! async function and a text model's answer as a `stream<string>`: bindgen!'s concurrent host
//! functions (bindings.rs; the same in both expansions) over the `WitHost` table. The framework's
//! work runs on tokio's blocking pool through a share of the guest's wasi-nn state (the table's
//! `guest_share`: its session, which outlives the store if it must), so the guest's other tasks
//! go on; dropping the call, or the stream's reader, cancels through the plugin's cancel.
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use tokio::sync::{mpsc, oneshot};
use wasmtime::component::{Accessor, Destination, Resource, StreamProducer, StreamReader, StreamResult};
use wasmtime::{format_err, Result, StoreContextMut};

use crate::bindings::blocking::wasinn::nn_async::{generate, inference};
use crate::bindings::{Context1028, Error1028, Tensor1028};
use crate::host::*;
use crate::long_call::{CancelOnDrop, SharedGuest};
use crate::nn_ext::text_err;
use crate::wit_nn::{chars, compute_named, guest_of, must, table, Access, Nn, NnStore};

/// A compute's outcome, copied off the blocking thread: outputs, an error's rep, or a trap's message.
type Computed = std::result::Result<std::result::Result<Vec<(String, u32)>, u32>, String>;

fn compute_blocking(shared: &SharedGuest, context: u32, inputs: &[(String, u32)]) -> Computed {
    compute_named(&shared.host, shared.guest, context, inputs).map_err(|e| e.to_string())
}

/// The pieces of one generation, fed by its blocking thread; dropped, it stops the generation.
struct Pieces {
    rx: mpsc::Receiver<String>,
    cancel: CancelOnDrop,
}

impl<D> StreamProducer<D> for Pieces {
    type Item = String;
    type Buffer = Option<String>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        store: StoreContextMut<'a, D>,
        mut dst: Destination<'a, Self::Item, Self::Buffer>,
        finish: bool,
    ) -> Poll<Result<StreamResult>> {
        let this = self.get_mut();
        // A zero-length read asks whether a piece is ready; a piece is not taken for it.
        if dst.remaining(store) == Some(0) {
            return Poll::Ready(Ok(StreamResult::Completed));
        }
        match this.rx.poll_recv(cx) {
            Poll::Ready(Some(piece)) => {
                dst.set_buffer(Some(piece));
                Poll::Ready(Ok(StreamResult::Completed))
            }
            Poll::Ready(None) => {
                this.cancel.done = true;
                Poll::Ready(Ok(StreamResult::Dropped))
            }
            Poll::Pending if finish => Poll::Ready(Ok(StreamResult::Cancelled)),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Generates on the blocking pool until the answer ends, fails, or the reader is gone.
fn generate_blocking(shared: Arc<SharedGuest>, context: u32, tx: mpsc::Sender<String>) {
    loop {
        let mut out = WitOut::default();
        let status = unsafe { slot!(shared.host, context_next)(shared.guest, context, &mut out) };
        match status {
            WitStatus::Ok if out.rep == 0 => return,
            WitStatus::Ok => {
                if tx.blocking_send(chars(&out)).is_err() {
                    return; // the reader was dropped: CancelOnDrop has asked the plugin to stop
                }
            }
            // Logged by the C++ side; a stream<string> has no error value, so it ends here.
            _ => return,
        }
    }
}

type NamedTensors = Vec<(String, Resource<Tensor1028>)>;
type ComputeResult = std::result::Result<NamedTensors, Resource<Error1028>>;

impl inference::Host for Nn {}

impl<T: NnStore> inference::HostWithStore<T> for Nn {
    fn compute(
        accessor: &Accessor<T, Self>,
        ctx: Resource<Context1028>,
        inputs: NamedTensors,
    ) -> impl std::future::Future<Output = Result<ComputeResult>> + Send {
        async move {
            let shared = SharedGuest::of(accessor)?;
            let context = ctx.rep();
            let inputs: Vec<(String, u32)> = inputs.into_iter().map(|(n, t)| (n, t.rep())).collect();
            let (tx, rx) = oneshot::channel::<Computed>();
            let mut cancel = CancelOnDrop {
                shared: shared.clone(),
                context,
                done: false,
            };
            let worker = shared.clone();
            tokio::task::spawn_blocking(move || {
                let computed = compute_blocking(&worker, context, &inputs);
                // The caller gave up: its outputs would stay in the guest's table unowned.
                if let Err(Ok(Ok(outputs))) = tx.send(computed) {
                    worker.drop_tensors(&outputs);
                }
            });
            let computed = rx
                .await
                .map_err(|_| format_err!("nn-async compute: its worker ended early"))?;
            cancel.done = true;
            Ok(computed
                .map_err(|m| format_err!("{m}"))?
                .map(|outs| outs.into_iter().map(|(n, r)| (n, Resource::new_own(r))).collect())
                .map_err(Resource::new_own))
        }
    }

    fn cancel(host: Access<'_, T>, ctx: Resource<Context1028>) -> Result<()> {
        let mut out = WitOut::default();
        let status = unsafe { slot!(table(), cancel)(guest_of(&host), ctx.rep(), &mut out) };
        must(status, &out, "nn-async cancel")
    }
}

impl generate::Host for Nn {}

impl<T: NnStore> generate::HostWithStore<T> for Nn {
    fn generate(
        accessor: &Accessor<T, Self>,
        ctx: Resource<Context1028>,
        input: String,
        text: String,
    ) -> impl std::future::Future<Output = Result<std::result::Result<StreamReader<String>, String>>> + Send {
        async move {
            let shared = SharedGuest::of(accessor)?;
            let context = ctx.rep();
            let starter = shared.clone();
            // The prompt is read (and a chat template applied) off the guest's thread too.
            let started = tokio::task::spawn_blocking(move || {
                let mut out = WitOut::default();
                let status = unsafe {
                    slot!(starter.host, context_start)(
                        starter.guest,
                        context,
                        WitStr::of(&input),
                        WitStr::of(&text),
                        &mut out,
                    )
                };
                text_err(status, &out)
            })
            .await
            .map_err(|e| format_err!("nn-async generate: {e}"))??;
            if let Err(message) = started {
                return Ok(Err(message));
            }
            // One piece ahead at most: the model runs no further than the reader reads.
            let (tx, rx) = mpsc::channel(1);
            let worker = shared.clone();
            tokio::task::spawn_blocking(move || generate_blocking(worker, context, tx));
            let pieces = Pieces {
                rx,
                cancel: CancelOnDrop {
                    shared,
                    context,
                    done: false,
                },
            };
            let reader = accessor.with(|mut access| StreamReader::new(&mut access, pieces))?;
            Ok(Ok(reader))
        }
    }
}
