// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Paths the C++ side answers itself instead of the guest (serve_host.h's `host_paths` and
//! `host_route`: `wasinn serve --models-dir`'s /v1/models, /models/load and /models/unload, whose
//! state is the model registry's). After the key check, like any request; the body is read
//! whole under the same limits, and the call runs on the blocking pool, since a load may take
//! seconds and the server's threads must go on answering.
use std::ffi::c_void;
use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, StatusCode};

use super::answer::{HostAnswer, Tracked};
use super::body::read_whole;
use super::shared::Shared;
use crate::host::WitStr;

/// Where the C++ side's one answer is put (serve_host.h's `answer` callback's context).
struct Reply {
    status: u32,
    body: Option<String>,
}

unsafe extern "C" fn reply(ctx: *mut c_void, status: u32, body: WitStr) {
    let reply = &mut *(ctx as *mut Reply);
    reply.status = status;
    reply.body = Some(body.to_string_lossy());
}

impl Shared {
    pub(super) fn is_host_path(&self, path: &str) -> bool {
        self.callbacks.host_route.is_some() && self.settings.host_paths.iter().any(|p| p == path)
    }

    pub(super) async fn answer_by_host(
        self: &Arc<Shared>,
        req: Request<Incoming>,
        tracked: &mut Tracked,
    ) -> HostAnswer {
        let method = req.method().as_str().to_owned();
        let path = req.uri().path().to_owned();
        let req = match read_whole(req, &self.settings, tracked).await {
            Ok(req) => req,
            Err(refused) => return refused,
        };
        let body = match req.into_body().collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(never) => match never {},
        };
        let callbacks = self.callbacks.clone();
        let called = tokio::task::spawn_blocking(move || {
            let mut answer = Reply { status: 0, body: None };
            if let Some(route) = callbacks.host_route {
                unsafe {
                    route(
                        callbacks.user,
                        WitStr::of(&method),
                        WitStr::of(&path),
                        WitStr {
                            data: body.as_ptr().cast(),
                            len: body.len(),
                        },
                        Some(reply),
                        &mut answer as *mut Reply as *mut c_void,
                    )
                };
            }
            answer
        })
        .await;
        match called {
            Ok(Reply {
                status,
                body: Some(body),
            }) => match StatusCode::from_u16(status as u16) {
                Ok(status) => HostAnswer::json(status, body),
                Err(_) => HostAnswer::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the host's route failed",
                    "bad status",
                ),
            },
            _ => HostAnswer::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the host's route failed",
                "host route gave no answer",
            ),
        }
    }
}
