// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A Spin http component as spin-sdk's llm example writes one, for `wasinn serve`'s
//! `fermyon:spin/llm@2.0.0` (tests/spin/):
//!   POST /infer?model=NAME[&max-tokens=N&temperature=T&top-k=K&top-p=P&repeat-penalty=R&repeat-last-n=N]
//!     body: the prompt -> 200 the text, the usage in `x-prompt-tokens` and `x-generated-tokens`;
//!     spin-sdk's defaults for the parameters not given; `&defaults`: no parameters at all
//!   POST /embed?model=NAME   body: one text per line -> 200 one embedding per line, its floats
//!     comma-separated; the usage in `x-prompt-tokens`
//! An llm error answers 404 (model-not-supported), 400 (invalid-input) or 500 (runtime-error), its
//! case and text in the body.
use spin_sdk::http::{IntoResponse, Request, Response};
use spin_sdk::http_component;
use spin_sdk::llm;

/// The value of `key` in the query, if any (names and numbers only: no percent-decoding).
fn param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

fn parsed<T: std::str::FromStr>(query: &str, key: &str, default: T) -> Result<T, String> {
    match param(query, key) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| format!("{key}: '{v}' is not a number")),
    }
}

fn params(query: &str) -> Result<llm::InferencingParams, String> {
    let d = llm::InferencingParams::default();
    Ok(llm::InferencingParams {
        max_tokens: parsed(query, "max-tokens", d.max_tokens)?,
        temperature: parsed(query, "temperature", d.temperature)?,
        top_k: parsed(query, "top-k", d.top_k)?,
        top_p: parsed(query, "top-p", d.top_p)?,
        repeat_penalty: parsed(query, "repeat-penalty", d.repeat_penalty)?,
        repeat_penalty_last_n_token_count: parsed(query, "repeat-last-n", d.repeat_penalty_last_n_token_count)?,
    })
}

fn failed(e: llm::Error) -> Response {
    let (status, text) = match e {
        llm::Error::ModelNotSupported => (404, "model-not-supported".to_string()),
        llm::Error::InvalidInput(m) => (400, format!("invalid-input: {m}")),
        llm::Error::RuntimeError(m) => (500, format!("runtime-error: {m}")),
    };
    Response::new(status, text)
}

fn infer(model: &str, query: &str, prompt: &str) -> Response {
    let model = llm::InferencingModel::Other(model);
    // `?defaults`: no infer-params at all (spin_sdk::llm::infer), the host's settings stand.
    let answer = if param(query, "defaults").is_some() || query.split('&').any(|kv| kv == "defaults") {
        llm::infer(model, prompt)
    } else {
        match params(query) {
            Ok(options) => llm::infer_with_options(model, prompt, options),
            Err(m) => return Response::new(400, m),
        }
    };
    match answer {
        Ok(r) => Response::builder()
            .status(200)
            .header("x-prompt-tokens", r.usage.prompt_token_count.to_string())
            .header("x-generated-tokens", r.usage.generated_token_count.to_string())
            .body(r.text)
            .build(),
        Err(e) => failed(e),
    }
}

fn embed(model: &str, body: &str) -> Response {
    let texts: Vec<String> = body.lines().map(str::to_string).collect();
    match llm::generate_embeddings(llm::EmbeddingModel::Other(model), &texts) {
        Ok(r) => {
            let lines: Vec<String> = r
                .embeddings
                .iter()
                .map(|e| e.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(","))
                .collect();
            Response::builder()
                .status(200)
                .header("x-prompt-tokens", r.usage.prompt_token_count.to_string())
                .body(lines.join("\n"))
                .build()
        }
        Err(e) => failed(e),
    }
}

#[http_component]
fn handle(req: Request) -> anyhow::Result<impl IntoResponse> {
    let query = req.query().to_string();
    let Some(model) = param(&query, "model") else {
        return Ok(Response::new(400, "the query names no model (?model=NAME)"));
    };
    let body = String::from_utf8_lossy(req.body()).into_owned();
    Ok(match req.path() {
        "/infer" => infer(model, &query, &body),
        "/embed" => embed(model, &body),
        other => Response::new(404, format!("no route {other}: /infer or /embed")),
    })
}
