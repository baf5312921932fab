// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A lane's answer held until its body's first frames are read. A guest on a lane runs on the
//! thread that serves its connection, so it ends a short body (drops its stream, sets its
//! trailers) only after hyper has taken the body's data and, finding nothing more yet, written
//! the head and data; the chunked body's end then went out in a second write, and the client
//! woke twice. Reading the first frames, with a few turns for the guest between, before the head
//! goes out sends a short answer in one write (`/hello` at 16 connections: 1.9 -> 1.0 writes).
use std::collections::VecDeque;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, SizeHint};
use hyper::Response;

use super::answer::{BoxError, ServeBody};

/// At most this much of a body is held: a larger answer goes out as it comes.
const HELD_BYTES: usize = 64 * 1024;
/// A guest ends its body over several turns of its thread (each event of its stream and its
/// trailers' future is one): on `/hello` at 16 connections, 1 turn gave 1.7 writes per answer, 4
/// gave 1.25, 8 gave 1.0. Time bounds them too, for a thread whose other guests run long turns.
const TURNS: u32 = 8;
const TURNS_TIME: Duration = Duration::from_millis(1);

/// The answer with its first frames read: until the body ends, `HELD_BYTES` are read, or the
/// body has nothing more after `TURNS` turns of the thread. A frame that fails ends the reading.
/// A body of a known length (hyper ends it with its last byte) or none is not held.
pub(super) async fn first_frames(resp: Response<ServeBody>) -> Response<ServeBody> {
    let (parts, mut inner) = resp.into_parts();
    // hyper frames the answer (Content-Length, chunked, empty) by these before its first poll:
    // they stay the body's own, so holding frames changes no header.
    let hint = inner.size_hint();
    if inner.is_end_stream() || hint.exact().is_some() {
        return Response::from_parts(parts, inner);
    }
    let mut held = VecDeque::new();
    let (mut bytes, mut ended, mut turns, mut waiting_since) = (0, false, 0, None);
    while bytes < HELD_BYTES {
        match poll_fn(|cx| Poll::Ready(Pin::new(&mut inner).poll_frame(cx))).await {
            Poll::Ready(Some(frame)) => {
                let failed = frame.is_err();
                bytes += frame.as_ref().ok().and_then(Frame::data_ref).map_or(0, Bytes::len);
                held.push_back(frame);
                if failed {
                    break;
                }
            }
            Poll::Ready(None) => {
                ended = true;
                break;
            }
            Poll::Pending => {
                let since = *waiting_since.get_or_insert_with(Instant::now);
                if turns == TURNS || since.elapsed() >= TURNS_TIME {
                    break;
                }
                turns += 1;
                one_turn().await;
            }
        }
    }
    let body = Held {
        held,
        ended,
        inner,
        start_hint: Some(hint),
    };
    Response::from_parts(parts, body.boxed_unsync())
}

/// Lets every task already woken on this thread run once (the guest's, woken by the read of its
/// data) before this one goes on: a self-wake queues it behind them.
async fn one_turn() {
    let mut waited = false;
    poll_fn(|cx| {
        if waited {
            return Poll::Ready(());
        }
        waited = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}

/// The held frames, then the rest of the body.
struct Held {
    held: VecDeque<Result<Frame<Bytes>, BoxError>>,
    ended: bool,
    inner: ServeBody,
    /// The body's size as it said before it was read (until hyper's first poll, which frames
    /// the answer as chunked: it said no exact size and no end).
    start_hint: Option<SizeHint>,
}

impl Body for Held {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.start_hint = None;
        if let Some(frame) = self.held.pop_front() {
            return Poll::Ready(Some(frame));
        }
        if self.ended {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        match &self.start_hint {
            Some(_) => false,
            // After the last held frame, a body seen to end says so: hyper then writes the
            // chunked end with that frame.
            None => self.held.is_empty() && (self.ended || self.inner.is_end_stream()),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.start_hint {
            Some(hint) => hint.clone(),
            None => {
                let held: u64 = self
                    .held
                    .iter()
                    .filter_map(|f| f.as_ref().ok()?.data_ref().map(|d| d.len() as u64))
                    .sum();
                if self.ended {
                    return SizeHint::with_exact(held);
                }
                let inner = self.inner.size_hint();
                let mut hint = SizeHint::new();
                hint.set_lower(inner.lower() + held);
                if let Some(upper) = inner.upper() {
                    hint.set_upper(upper + held);
                }
                hint
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::Full;
    use tokio::sync::mpsc;

    type Sent = Result<Frame<Bytes>, BoxError>;

    /// A body whose frames come from a channel: it ends when every sender is gone.
    struct Channel(mpsc::Receiver<Sent>);

    impl Body for Channel {
        type Data = Bytes;
        type Error = BoxError;
        fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Sent>> {
            self.0.poll_recv(cx)
        }
    }

    fn data(bytes: &'static [u8]) -> Sent {
        Ok(Frame::data(Bytes::from_static(bytes)))
    }

    async fn whole(body: ServeBody) -> Bytes {
        body.collect().await.expect("the body is whole").to_bytes()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_body_of_a_known_length_is_passed_on_as_it_is() {
        let body = Full::new(Bytes::from_static(b"hello"))
            .map_err(|e: std::convert::Infallible| -> BoxError { match e {} })
            .boxed_unsync();
        let resp = first_frames(Response::new(body)).await;
        assert_eq!(
            resp.body().size_hint().exact(),
            Some(5),
            "a known length is hyper's to end"
        );
        assert_eq!(whole(resp.into_body()).await, "hello");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_body_ended_by_a_task_woken_by_its_read_is_seen_to_end() {
        // As a lane's guest: its data is taken, then it ends the body in its next turn.
        let (tx, rx) = mpsc::channel(1);
        tx.send(data(b"hi")).await.unwrap();
        tokio::spawn(async move {
            let _ = tx.reserve().await;
        });
        let resp = first_frames(Response::new(Channel(rx).boxed_unsync())).await;
        let mut body = resp.into_body();
        assert!(!body.is_end_stream(), "framed as before: chunked");
        assert_eq!(body.frame().await.unwrap().unwrap().into_data().unwrap(), "hi");
        assert!(body.is_end_stream(), "the end was read before the head went out");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_body_that_waits_is_not_held_past_its_first_frames() {
        let (tx, rx) = mpsc::channel(4);
        tx.send(data(b"first")).await.unwrap();
        let resp = first_frames(Response::new(Channel(rx).boxed_unsync())).await;
        let mut body = resp.into_body();
        assert_eq!(body.frame().await.unwrap().unwrap().into_data().unwrap(), "first");
        assert!(!body.is_end_stream());
        tx.send(data(b"later")).await.unwrap();
        drop(tx);
        assert_eq!(body.frame().await.unwrap().unwrap().into_data().unwrap(), "later");
        assert!(body.frame().await.is_none());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_large_body_is_held_no_further_than_the_bound() {
        let big = Bytes::from(vec![7u8; HELD_BYTES]);
        let (tx, rx) = mpsc::channel(4);
        tx.send(Ok(Frame::data(big.clone()))).await.unwrap();
        tx.send(Ok(Frame::data(big.clone()))).await.unwrap();
        drop(tx);
        let resp = first_frames(Response::new(Channel(rx).boxed_unsync())).await;
        let mut body = resp.into_body();
        assert_eq!(body.frame().await.unwrap().unwrap().into_data().unwrap(), big);
        assert!(!body.is_end_stream(), "the second frame was left to hyper");
        assert_eq!(whole(body).await, big);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_frame_ends_the_reading_and_is_passed_on() {
        let (tx, rx) = mpsc::channel(4);
        tx.send(data(b"part")).await.unwrap();
        tx.send(Err("the guest failed".into())).await.unwrap();
        let resp = first_frames(Response::new(Channel(rx).boxed_unsync())).await;
        let mut body = resp.into_body();
        assert_eq!(body.frame().await.unwrap().unwrap().into_data().unwrap(), "part");
        let failed = body.frame().await.unwrap().expect_err("the failure, in its place");
        assert_eq!(failed.to_string(), "the guest failed");
        drop(tx);
    }
}
