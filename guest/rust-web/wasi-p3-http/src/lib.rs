// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! p3_http: a wasi:http@0.3.0 service over wasi:nn and wasinn:nn-async (tests/p3/, the 0.3 twin
//! of guest/components/http_classify.c and http_chat.c):
//!   POST /infer/<graph>?dims=1,64   body: the input, little-endian f32 (4 x the product of dims)
//!       load-by-name(<graph>), one async compute on input "0" (the first); 200 application/json
//!       as http_classify answers: {"outputs":[{"name":..,"type":"fp32","dims":[..],"data":[..]}]}
//!       (fp32 outputs' floats in Rust's shortest round-trip form, NaN and infinities as null)
//!   POST /generate/<graph>?n=N      body: the prompt; greedy (temp 0), n-predict N (default 32)
//!       200 text/plain, streamed: the answer's pieces as nn-async's generate gives them
//!   GET|POST /hello                 200 "hello\n" (the serving benchmark's smallest request)
//!   GET|POST /count                 200 "N\n": the requests this instance has handled, this one
//!       included (1 each time when every request gets a fresh instance)
//!   POST /echo                      200, the request body streamed back as it arrives (the guest
//!       hands the request's body stream to the response: nothing is held whole)
//!   POST /trap                      the guest traps (a Rust panic): the host answers 500
//!   POST /trap-after                200, then the guest traps once the answer is out: the
//!       instance fails with no request in flight
//!   GET /spin?ms=N                  the guest computes for N ms without awaiting (a busy loop),
//!       then answers 200 "spun N ms\n": what a CPU-bound handler does to the thread it runs on
//!   anything else: 404 (so is /generate when built with the feature spec-only, which imports
//!       the spec's wasi:nn alone and computes with its blocking compute); a wasi:nn failure: 500 "WHAT: CODE: DATA" (400 for invalid-argument)
use wasip3::http::types::{ErrorCode, Fields, Method, Request, Response};
use wasip3::wit_bindgen;
// The body's stream<u8> and trailers' future are wasip3's types, not this crate's bindings'.
use wasip3::{spawn, wit_future as http_future, wit_stream as http_stream};

wit_bindgen::generate!({
    world: "wasinn:p3-guests/http",
    path: [
        "../../../wit/wasi-nn/0.2.0-rc-2024-10-28",
        "../../../wit/wasinn-nn-ext",
        "../../../wit/wasinn-nn-async",
        "../wasi-p3/wit",
    ],
    generate_all,
});

use wasi::nn::errors::{Error, ErrorCode as NnCode};
use wasi::nn::graph::load_by_name;
use wasi::nn::inference::GraphExecutionContext;
use wasi::nn::tensor::{Tensor, TensorType};
#[cfg(not(feature = "spec-only"))]
use wasinn::nn_async::{generate, inference as nn_async};
#[cfg(not(feature = "spec-only"))]
use wasinn::nn_ext::properties;

struct Service;

/// Requests this instance has handled: what tells a reused instance from a fresh one.
static HANDLED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A response whose body is `text`, written by a task of the guest's own.
fn text(status: u16, body: String) -> Result<Response, ErrorCode> {
    let (mut tx, rx) = http_stream::new();
    let (trailers_tx, trailers_rx) = http_future::new(|| Ok(None));
    drop(trailers_tx);
    let headers = Fields::from_list(&[("content-type".into(), b"text/plain".to_vec())])
        .map_err(|_| ErrorCode::InternalError(None))?;
    let (resp, _done) = Response::new(headers, Some(rx), trailers_rx);
    resp.set_status_code(status)
        .map_err(|_| ErrorCode::InternalError(None))?;
    spawn(async move {
        tx.write_all(body.into_bytes()).await;
    });
    Ok(resp)
}

/// The request's body as the response's, stream to stream: the host feeds it as it arrives.
fn echo(req: Request) -> Result<Response, ErrorCode> {
    let (trailers_tx, trailers_rx) = http_future::new(|| Ok(None));
    drop(trailers_tx);
    let (body, _trailers) = Request::consume_body(req, http_future::new(|| Ok(())).1);
    let headers = Fields::from_list(&[("content-type".into(), b"application/octet-stream".to_vec())])
        .map_err(|_| ErrorCode::InternalError(None))?;
    let (resp, _done) = Response::new(headers, Some(body), trailers_rx);
    Ok(resp)
}

/// An empty 200 whose instance traps once the host has sent it.
fn trap_after_answer() -> Result<Response, ErrorCode> {
    let (trailers_tx, trailers_rx) = http_future::new(|| Ok(None));
    drop(trailers_tx);
    let (resp, sent) = Response::new(Fields::new(), None, trailers_rx);
    spawn(async move {
        let _ = sent.await;
        panic!("p3_http: /trap-after asked for a trap after its answer");
    });
    Ok(resp)
}

fn nn_failure(what: &str, e: Error) -> Result<Response, ErrorCode> {
    let status = if e.code() == NnCode::InvalidArgument { 400 } else { 500 };
    text(status, format!("{what}: {:?}: {}\n", e.code(), e.data()))
}

/// A context on the preloaded graph `graph`, else the answer saying why not.
fn context_of(graph: &str) -> Result<GraphExecutionContext, Result<Response, ErrorCode>> {
    let g = load_by_name(graph).map_err(|e| nn_failure("load-by-name", e))?;
    g.init_execution_context()
        .map_err(|e| nn_failure("init-execution-context", e))
}

fn param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

async fn body_of(req: Request) -> Vec<u8> {
    let (rx, _trailers) = Request::consume_body(req, http_future::new(|| Ok(())).1);
    rx.collect().await
}

async fn infer(graph: &str, query: &str, req: Request) -> Result<Response, ErrorCode> {
    let dims: Option<Vec<u32>> = param(query, "dims").and_then(|d| d.split(',').map(|x| x.parse().ok()).collect());
    let Some(dims) = dims else {
        return text(400, "dims=D0,D1,... is required\n".into());
    };
    let body = body_of(req).await;
    let want = dims.iter().map(|d| *d as usize).product::<usize>() * 4;
    if body.len() != want {
        return text(400, format!("the body holds {} bytes; dims say {want}\n", body.len()));
    }
    let ctx = match context_of(graph) {
        Ok(c) => c,
        Err(failure) => return failure,
    };
    let input = Tensor::new(&dims, TensorType::Fp32, &body);
    #[cfg(not(feature = "spec-only"))]
    let computed = nn_async::compute(&ctx, vec![("0".into(), input)]).await;
    #[cfg(feature = "spec-only")]
    let computed = ctx.compute(vec![("0".into(), input)]);
    let outputs = match computed {
        Ok(o) => o,
        Err(e) => return nn_failure("compute", e),
    };
    let mut json = String::from("{\"outputs\":[");
    for (k, (name, t)) in outputs.into_iter().enumerate() {
        let dims: Vec<String> = t.dimensions().iter().map(|d| d.to_string()).collect();
        let (ty, data) = match t.ty() {
            TensorType::Fp32 => {
                let values: Vec<String> = t
                    .data()
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                    .map(|v| if v.is_finite() { format!("{v}") } else { "null".into() })
                    .collect();
                ("fp32", values.join(","))
            }
            // Other types' bytes, as numbers: the routes here serve fp32 models.
            _ => (
                "u8",
                t.data().iter().map(|b| b.to_string()).collect::<Vec<_>>().join(","),
            ),
        };
        let sep = if k > 0 { "," } else { "" };
        json += &format!(
            "{sep}{{\"name\":\"{name}\",\"type\":\"{ty}\",\"dims\":[{}],\"data\":[{data}]}}",
            dims.join(",")
        );
    }
    json += "]}";
    text(200, json)
}

#[cfg(not(feature = "spec-only"))]
async fn generate_text(graph: &str, query: &str, req: Request) -> Result<Response, ErrorCode> {
    let n = param(query, "n").unwrap_or("32");
    let prompt = String::from_utf8_lossy(&body_of(req).await).into_owned();
    let ctx = match context_of(graph) {
        Ok(c) => c,
        Err(failure) => return failure,
    };
    for (k, v) in [
        ("temp", "0"),
        ("repeat-penalty", "1"),
        ("n-predict", n),
        ("ctx-size", "4096"),
        ("threads", "1"),
    ] {
        if let Err(e) = properties::set_context_property(&ctx, k, v) {
            return nn_failure("set-context-property", e);
        }
    }
    let mut pieces = match generate::generate(&ctx, "prompt".into(), prompt).await {
        Ok(p) => p,
        Err(e) => return text(500, format!("generate: {e}\n")),
    };
    let (mut tx, rx) = http_stream::new();
    let (trailers_tx, trailers_rx) = http_future::new(|| Ok(None));
    drop(trailers_tx);
    let (resp, _done) = Response::new(Fields::new(), Some(rx), trailers_rx);
    // Each piece goes out as it comes; a client that leaves drops the body, then the pieces.
    spawn(async move {
        let _ctx = ctx;
        while let Some(piece) = pieces.next().await {
            if !tx.write_all(piece.into_bytes()).await.is_empty() {
                break;
            }
        }
    });
    Ok(resp)
}

impl wasip3::exports::http::handler::Guest for Service {
    async fn handle(req: Request) -> Result<Response, ErrorCode> {
        let path_query = req.get_path_with_query().unwrap_or_default();
        let (path, query) = path_query.split_once('?').unwrap_or((&path_query, ""));
        let (path, query) = (path.to_string(), query.to_string());
        let handled = HANDLED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if path == "/count" {
            return text(200, format!("{handled}\n"));
        }
        if path == "/hello" {
            return text(200, "hello\n".into());
        }
        if path == "/spin" {
            let ms: u64 = query.strip_prefix("ms=").and_then(|v| v.parse().ok()).unwrap_or(100);
            let start = std::time::Instant::now();
            let mut x = 0u64;
            while start.elapsed() < std::time::Duration::from_millis(ms) {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            return text(200, format!("spun {ms} ms\n"));
        }
        if !matches!(req.get_method(), Method::Post) {
            return text(405, "POST only\n".into());
        }
        if path == "/echo" {
            return echo(req);
        }
        if path == "/trap" {
            panic!("p3_http: /trap asked for a trap");
        }
        if path == "/trap-after" {
            return trap_after_answer();
        }
        if let Some(graph) = path.strip_prefix("/infer/") {
            return infer(graph, &query, req).await;
        }
        #[cfg(not(feature = "spec-only"))]
        if let Some(graph) = path.strip_prefix("/generate/") {
            return generate_text(graph, &query, req).await;
        }
        text(404, format!("no route {path}\n"))
    }
}

wasip3::http::service::export!(Service);
